import { useState, type FormEvent } from 'react';
import { Box, Button, Link as MuiLink, Stack, TextField, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import { Link } from 'react-router-dom';
import { TurnstileWidget } from '../components/TurnstileWidget';
import { useApiNotify } from '../hooks/useApiNotify';
import { useCountdown } from '../hooks/useCountdown';
import { apiRequest } from '../providers/httpClient';
import { useStatus } from '../providers/statusStore';
import { AuthPageShell } from './AuthPageShell';

/** /reset: asks the server to mail a reset link; the submit button then locks for 30 seconds. */
export const PasswordResetRequestPage = () => {
  const translate = useTranslate();
  const notify = useApiNotify();
  const status = useStatus();
  const lock = useCountdown(30);
  const [email, setEmail] = useState('');
  const [turnstileToken, setTurnstileToken] = useState('');
  const [busy, setBusy] = useState(false);
  const turnstileOn = Boolean(status.turnstile_check && status.turnstile_site_key);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!email) return notify.failure('app.common.email_required');
    if (turnstileOn && !turnstileToken) return notify.info('app.common.turnstile_wait');
    lock.start();
    setBusy(true);
    try {
      await apiRequest('/api/reset_password', { query: { email, turnstile: turnstileToken } });
      notify.success('app.reset.sent');
      setEmail('');
    } catch (error) {
      notify.error(error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthPageShell title={translate('app.reset.title')}>
      <Box component="form" onSubmit={submit} noValidate>
        <Stack spacing={2}>
          <TextField
            label={translate('app.common.email')}
            placeholder={translate('app.common.email_placeholder')}
            name="email"
            type="email"
            autoComplete="email"
            value={email}
            onChange={(event) => setEmail(event.target.value)}
            autoFocus
            fullWidth
          />
          {turnstileOn ? <TurnstileWidget siteKey={status.turnstile_site_key ?? ''} onVerify={setTurnstileToken} /> : null}
          <Button type="submit" variant="contained" size="large" disabled={busy || lock.active} fullWidth>
            {lock.active ? translate('app.common.retry_in', { seconds: lock.remaining }) : translate('app.common.submit')}
          </Button>
        </Stack>
      </Box>
      <Typography variant="body2" sx={{ mt: 2 }}>
        <MuiLink component={Link} to="/login">
          {translate('app.register.to_login')}
        </MuiLink>
      </Typography>
    </AuthPageShell>
  );
};
