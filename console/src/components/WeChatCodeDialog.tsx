import { useState, type FormEvent } from 'react';
import { Box, Button, Dialog, DialogActions, DialogContent, DialogTitle, TextField, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';

export interface WeChatCodeDialogProps {
  open: boolean;
  title: string;
  submitLabel: string;
  qrcode?: string;
  onSubmit: (code: string) => Promise<void> | void;
  onClose: () => void;
}

/** The messaging-account QR modal: scan, follow, send the keyword, type the code (valid three minutes). */
export const WeChatCodeDialog = ({ open, title, submitLabel, qrcode, onSubmit, onClose }: WeChatCodeDialogProps) => {
  const translate = useTranslate();
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!code.trim()) return;
    setBusy(true);
    try {
      await onSubmit(code.trim());
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog open={open} onClose={onClose} maxWidth="xs" fullWidth>
      <form onSubmit={submit}>
        <DialogTitle>{title}</DialogTitle>
        <DialogContent>
          {qrcode ? (
            <Box sx={{ display: 'flex', justifyContent: 'center', mb: 2 }}>
              <img src={qrcode} alt={translate('app.login.wechat_qr_alt')} style={{ maxWidth: 220 }} />
            </Box>
          ) : null}
          <Typography variant="body2" sx={{ textAlign: 'center', mb: 2 }}>
            {translate('app.login.wechat_hint')}
          </Typography>
          <TextField
            label={translate('app.common.verification_code')}
            value={code}
            onChange={(event) => setCode(event.target.value)}
            fullWidth
            autoFocus
          />
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose}>{translate('app.common.cancel')}</Button>
          <Button type="submit" variant="contained" disabled={busy || !code.trim()}>
            {submitLabel}
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
};
