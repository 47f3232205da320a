import { useEffect, useState, type FormEvent } from 'react';
import { Button, Dialog, DialogActions, DialogContent, DialogTitle, InputAdornment, Stack, TextField } from '@mui/material';
import { useTranslate } from 'react-admin';
import { TurnstileWidget } from '../../components/TurnstileWidget';
import { useApiNotify } from '../../hooks/useApiNotify';
import { useCountdown } from '../../hooks/useCountdown';
import { apiRequest } from '../../providers/httpClient';
import { useStatus } from '../../providers/statusStore';

export interface EmailBindDialogProps {
  open: boolean;
  onClose: () => void;
  onBound: () => void;
}

/** Email binding: send a code to the address, then bind with it. */
export const EmailBindDialog = ({ open, onClose, onBound }: EmailBindDialogProps) => {
  const translate = useTranslate();
  const notify = useApiNotify();
  const status = useStatus();
  const countdown = useCountdown(30);
  const [email, setEmail] = useState('');
  const [code, setCode] = useState('');
  const [turnstileToken, setTurnstileToken] = useState('');
  const [busy, setBusy] = useState(false);
  const turnstileOn = Boolean(status.turnstile_check && status.turnstile_site_key);

  useEffect(() => {
    if (open) setCode('');
  }, [open]);

  const sendCode = async () => {
    if (!email) return notify.failure('app.common.email_required');
    if (turnstileOn && !turnstileToken) return notify.info('app.common.turnstile_wait');
    countdown.start();
    try {
      await apiRequest('/api/verification', { query: { email, turnstile: turnstileToken } });
      notify.success('app.common.code_sent');
    } catch (error) {
      notify.error(error);
    }
  };

  const bind = async (event: FormEvent) => {
    event.preventDefault();
    if (!email) return notify.failure('app.common.email_required');
    if (!code) return notify.failure('app.personal.email_code_required');
    setBusy(true);
    try {
      await apiRequest('/api/oauth/email/bind', { query: { email, code } });
      notify.success('app.personal.email_bound');
      onBound();
      onClose();
    } catch (error) {
      notify.error(error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog open={open} onClose={onClose} maxWidth="xs" fullWidth>
      <form onSubmit={bind} noValidate>
        <DialogTitle>{translate('app.personal.email_bind_title')}</DialogTitle>
        <DialogContent>
          <Stack spacing={2} sx={{ pt: 1 }}>
            <TextField
              label={translate('app.common.email')}
              placeholder={translate('app.common.email_placeholder')}
              type="email"
              value={email}
              onChange={(event) => setEmail(event.target.value)}
              fullWidth
              autoFocus
              slotProps={{
                input: {
                  endAdornment: (
                    <InputAdornment position="end">
                      <Button size="small" onClick={sendCode} disabled={countdown.active}>
                        {countdown.active
                          ? translate('app.common.resend_in', { seconds: countdown.remaining })
                          : translate('app.common.send_code')}
                      </Button>
                    </InputAdornment>
                  ),
                },
              }}
            />
            <TextField
              label={translate('app.common.verification_code')}
              placeholder={translate('app.common.verification_code_placeholder')}
              value={code}
              onChange={(event) => setCode(event.target.value)}
              fullWidth
            />
            {turnstileOn ? <TurnstileWidget siteKey={status.turnstile_site_key ?? ''} onVerify={setTurnstileToken} /> : null}
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose}>{translate('app.common.cancel')}</Button>
          <Button type="submit" variant="contained" disabled={busy}>
            {translate('app.common.bind')}
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
};
