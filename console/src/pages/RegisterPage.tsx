import { useEffect, useState, type FormEvent } from 'react';
import { Box, Button, InputAdornment, Link as MuiLink, Stack, TextField, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { TurnstileWidget } from '../components/TurnstileWidget';
import { useApiNotify } from '../hooks/useApiNotify';
import { useCountdown } from '../hooks/useCountdown';
import { AFF_KEY } from '../lib/storage';
import { apiRequest } from '../providers/httpClient';
import { useStatus } from '../providers/statusStore';
import { AuthPageShell } from './AuthPageShell';
import { ThirdPartyLogin } from './login/ThirdPartyLogin';

const MIN_PASSWORD_LENGTH = 8;

export const RegisterPage = () => {
  const translate = useTranslate();
  const navigate = useNavigate();
  const notify = useApiNotify();
  const status = useStatus();
  const [searchParams] = useSearchParams();
  const countdown = useCountdown(30);
  const [form, setForm] = useState({ username: '', password: '', password2: '', email: '', verification_code: '' });
  const [turnstileToken, setTurnstileToken] = useState('');
  const [busy, setBusy] = useState(false);

  const emailVerification = Boolean(status.email_verification);
  const turnstileOn = Boolean(status.turnstile_check && status.turnstile_site_key);
  const affFromLink = searchParams.get('aff');

  useEffect(() => {
    if (affFromLink) localStorage.setItem(AFF_KEY, affFromLink);
  }, [affFromLink]);

  const change = (field: keyof typeof form) => (event: { target: { value: string } }) =>
    setForm((current) => ({ ...current, [field]: event.target.value }));

  const turnstileReady = () => {
    if (turnstileOn && !turnstileToken) {
      notify.info('app.common.turnstile_wait');
      return false;
    }
    return true;
  };

  const sendCode = async () => {
    if (!form.email) {
      notify.failure('app.common.email_required');
      return;
    }
    if (!turnstileReady()) return;
    countdown.start();
    try {
      await apiRequest('/api/verification', { query: { email: form.email, turnstile: turnstileToken } });
      notify.success('app.common.code_sent');
    } catch (error) {
      notify.error(error);
    }
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!form.username || !form.password) return notify.failure('app.login.required');
    if (form.password.length < MIN_PASSWORD_LENGTH) return notify.failure('app.register.password_too_short');
    if (form.password !== form.password2) return notify.failure('app.register.password_mismatch');
    if (!turnstileReady()) return;
    setBusy(true);
    try {
      await apiRequest('/api/user/register', {
        method: 'POST',
        query: { turnstile: turnstileToken },
        body: { ...form, aff_code: affFromLink ?? localStorage.getItem(AFF_KEY) ?? '' },
      });
      notify.success('app.register.success');
      navigate('/login');
    } catch (error) {
      notify.error(error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthPageShell title={translate('app.register.title')}>
      <Box component="form" onSubmit={submit} noValidate>
        <Stack spacing={2}>
          <TextField
            label={translate('app.register.username')}
            name="username"
            autoComplete="username"
            value={form.username}
            onChange={change('username')}
            autoFocus
            fullWidth
          />
          <TextField
            label={translate('app.register.password')}
            placeholder={translate('app.register.password_placeholder')}
            name="password"
            type="password"
            autoComplete="new-password"
            value={form.password}
            onChange={change('password')}
            fullWidth
          />
          <TextField
            label={translate('app.register.password2')}
            name="password2"
            type="password"
            autoComplete="new-password"
            value={form.password2}
            onChange={change('password2')}
            fullWidth
          />
          {emailVerification ? (
            <>
              <TextField
                label={translate('app.common.email')}
                placeholder={translate('app.common.email_placeholder')}
                name="email"
                type="email"
                autoComplete="email"
                value={form.email}
                onChange={change('email')}
                fullWidth
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
                name="verification_code"
                value={form.verification_code}
                onChange={change('verification_code')}
                fullWidth
              />
            </>
          ) : null}
          {turnstileOn ? <TurnstileWidget siteKey={status.turnstile_site_key ?? ''} onVerify={setTurnstileToken} /> : null}
          <Button type="submit" variant="contained" size="large" disabled={busy} fullWidth>
            {translate('app.register.submit')}
          </Button>
        </Stack>
      </Box>
      <Typography variant="body2" sx={{ mt: 2 }}>
        {translate('app.register.has_account')}{' '}
        <MuiLink component={Link} to="/login">
          {translate('app.register.to_login')}
        </MuiLink>
      </Typography>
      <ThirdPartyLogin />
    </AuthPageShell>
  );
};
