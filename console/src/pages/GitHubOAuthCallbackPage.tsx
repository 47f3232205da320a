import { useEffect, useRef } from 'react';
import { Box, CircularProgress, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { useApiNotify } from '../hooks/useApiNotify';
import type { SessionUser } from '../lib/types';
import { rememberLogin } from '../providers/authProvider';
import { apiFetch } from '../providers/httpClient';
import { AuthPageShell } from './AuthPageShell';

/**
 * /oauth/github?code&state. The server binds when a session exists (message 'bind' → settings) and logs
 * in otherwise (→ token page). A failure goes to settings, which sends a logged-out visitor on to login.
 */
export const GitHubOAuthCallbackPage = () => {
  const translate = useTranslate();
  const navigate = useNavigate();
  const notify = useApiNotify();
  const [searchParams] = useSearchParams();
  const started = useRef(false);

  useEffect(() => {
    // An OAuth code is single-use: never send it twice (React may run effects twice in development).
    if (started.current) return;
    started.current = true;
    const code = searchParams.get('code') ?? '';
    const state = searchParams.get('state') ?? '';
    apiFetch<SessionUser>('/api/oauth/github', { query: { code, state } })
      .then((answer) => {
        if (answer.message === 'bind') {
          notify.success('app.oauth.bind_success');
          navigate('/setting', { replace: true });
        } else {
          rememberLogin(answer.data as SessionUser);
          notify.success('app.login.success');
          navigate('/token', { replace: true });
        }
      })
      .catch((error) => {
        notify.error(error);
        navigate('/setting', { replace: true });
      });
  }, [navigate, notify, searchParams]);

  return (
    <AuthPageShell title="GitHub">
      <Box sx={{ display: 'flex', alignItems: 'center', justifyContent: 'center', gap: 2, py: 2 }}>
        <CircularProgress size={24} />
        <Typography>{translate('app.oauth.processing')}</Typography>
      </Box>
    </AuthPageShell>
  );
};
