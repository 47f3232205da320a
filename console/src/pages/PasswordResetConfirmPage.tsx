import { useState, type FormEvent } from 'react';
import { Alert, Box, Button, Link as MuiLink, Stack, TextField, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import { Link, useSearchParams } from 'react-router-dom';
import { useApiNotify } from '../hooks/useApiNotify';
import { useCountdown } from '../hooks/useCountdown';
import { copyToClipboard } from '../lib/clipboard';
import { apiRequest } from '../providers/httpClient';
import { AuthPageShell } from './AuthPageShell';

/** /user/reset?email&token: the link from the reset mail; the server answers with a new password. */
export const PasswordResetConfirmPage = () => {
  const translate = useTranslate();
  const notify = useApiNotify();
  const lock = useCountdown(30);
  const [searchParams] = useSearchParams();
  const email = searchParams.get('email') ?? '';
  const token = searchParams.get('token') ?? '';
  const [newPassword, setNewPassword] = useState('');
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!email || !token) return;
    lock.start();
    setBusy(true);
    try {
      const password = await apiRequest<string>('/api/user/reset', { method: 'POST', body: { email, token } });
      setNewPassword(password);
      await copyToClipboard(password);
      notify.success('app.reset.new_password_copied', { password });
    } catch (error) {
      notify.error(error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthPageShell title={translate('app.reset.confirm_title')}>
      {!email || !token ? (
        <Alert severity="error" sx={{ mb: 2 }}>
          {translate('app.reset.invalid_link')}
        </Alert>
      ) : null}
      <Box component="form" onSubmit={submit} noValidate>
        <Stack spacing={2}>
          <TextField label={translate('app.common.email')} name="email" value={email} slotProps={{ input: { readOnly: true } }} fullWidth />
          {newPassword ? (
            <>
              <Typography variant="body2">{translate('app.reset.new_password_hint')}</Typography>
              <TextField
                label={translate('app.reset.new_password')}
                name="new_password"
                value={newPassword}
                slotProps={{ input: { readOnly: true } }}
                onFocus={(event) => event.target.select()}
                fullWidth
              />
            </>
          ) : null}
          <Button type="submit" variant="contained" size="large" disabled={busy || lock.active || !email || !token} fullWidth>
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
