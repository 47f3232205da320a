import { useEffect, useState, type FormEvent } from 'react';
import { Button, Dialog, DialogActions, DialogContent, DialogTitle, Stack, TextField } from '@mui/material';
import { useTranslate } from 'react-admin';
import { useApiNotify } from '../../hooks/useApiNotify';
import { apiRequest } from '../../providers/httpClient';

export interface ChangePasswordDialogProps {
  open: boolean;
  onClose: () => void;
}

/** Both entries must match; the server validates 8 to 20 characters. */
export const ChangePasswordDialog = ({ open, onClose }: ChangePasswordDialogProps) => {
  const translate = useTranslate();
  const notify = useApiNotify();
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (open) {
      setPassword('');
      setConfirmation('');
    }
  }, [open]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (password !== confirmation) return notify.failure('app.personal.password_mismatch');
    setBusy(true);
    try {
      await apiRequest('/api/user/self', { method: 'PUT', body: { password } });
      notify.success('app.personal.password_changed');
      onClose();
    } catch (error) {
      notify.error(error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog open={open} onClose={onClose} maxWidth="xs" fullWidth>
      <form onSubmit={submit} noValidate>
        <DialogTitle>{translate('app.personal.change_password')}</DialogTitle>
        <DialogContent>
          <Stack spacing={2} sx={{ pt: 1 }}>
            <TextField
              label={translate('app.personal.new_password')}
              type="password"
              autoComplete="new-password"
              value={password}
              onChange={(event) => setPassword(event.target.value)}
              fullWidth
              autoFocus
            />
            <TextField
              label={translate('app.personal.new_password_confirm')}
              type="password"
              autoComplete="new-password"
              value={confirmation}
              onChange={(event) => setConfirmation(event.target.value)}
              fullWidth
            />
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose}>{translate('app.common.cancel')}</Button>
          <Button type="submit" variant="contained" disabled={busy || !password}>
            {translate('app.common.ok')}
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
};
