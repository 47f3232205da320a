import { useState, type FormEvent } from 'react';
import { Alert, Box, Button, Link as MuiLink, Stack, TextField, Typography } from '@mui/material';
import { useLogin, useTranslate } from 'react-admin';
import { Link, useLocation, useSearchParams } from 'react-router-dom';
import { TurnstileWidget } from '../components/TurnstileWidget';
import { useApiNotify } from '../hooks/useApiNotify';
import { useStatus } from '../providers/statusStore';
import { AuthPageShell } from './AuthPageShell';
import { ThirdPartyLogin } from './login/ThirdPartyLogin';

/** Where a successful password login lands unless the visitor was sent here from a protected page. */
const AFTER_LOGIN_PATH = '/token';

export const LoginPage = () => {
  const translate = useTranslate();
  const login = useLogin();
  const notify = useApiNotify();
  const status = useStatus();
  const location = useLocation();
  const [searchParams] = useSearchParams();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [turnstileToken, setTurnstileToken] = useState('');
  const [busy, setBusy] = useState(false);

  const turnstileOn = Boolean(status.turnstile_check && status.turnstile_site_key);
  const nextPath = (location.state as { nextPathname?: string; nextSearch?: string } | null)?.nextPathname;
  const nextSearch = (location.state as { nextSearch?: string } | null)?.nextSearch ?? '';

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!username || !password) {
      notify.failure('app.login.required');
      return;
    }
    if (turnstileOn && !turnstileToken) {
      notify.info('app.common.turnstile_wait');
      return;
    }
    setBusy(true);
    try {
      await login(
        { username, password, turnstile: turnstileOn ? turnstileToken : undefined },
        nextPath && nextPath !== '/login' ? `${nextPath}${nextSearch}` : AFTER_LOGIN_PATH,
      );
      notify.success('app.login.success');
    } catch (error) {
      notify.error(error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthPageShell title={translate('app.login.title')}>
      {searchParams.get('expired') === 'true' ? (
        <Alert severity="warning" sx={{ mb: 2 }} role="alert">
          {translate('app.errors.expired')}
        </Alert>
      ) : null}
      <Box component="form" onSubmit={submit} noValidate>
        <Stack spacing={2}>
          <TextField
            label={translate('app.login.username')}
            name="username"
            autoComplete="username"
            value={username}
            onChange={(event) => setUsername(event.target.value)}
            autoFocus
            fullWidth
          />
          <TextField
            label={translate('app.login.password')}
            name="password"
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={(event) => setPassword(event.target.value)}
            fullWidth
          />
          {turnstileOn ? <TurnstileWidget siteKey={status.turnstile_site_key ?? ''} onVerify={setTurnstileToken} /> : null}
          <Button type="submit" variant="contained" size="large" disabled={busy} fullWidth>
            {translate('app.login.submit')}
          </Button>
        </Stack>
      </Box>
      <Stack direction="row" sx={{ mt: 2, justifyContent: 'space-between', flexWrap: 'wrap', gap: 1 }}>
        <Typography variant="body2">
          {translate('app.login.no_account')}{' '}
          <MuiLink component={Link} to="/register">
            {translate('app.login.to_register')}
          </MuiLink>
        </Typography>
        <Typography variant="body2">
          {translate('app.login.forgot')}{' '}
          <MuiLink component={Link} to="/reset">
            {translate('app.login.to_reset')}
          </MuiLink>
        </Typography>
      </Stack>
      <ThirdPartyLogin />
    </AuthPageShell>
  );
};
