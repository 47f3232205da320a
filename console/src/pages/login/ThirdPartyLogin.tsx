import { useState } from 'react';
import { Box, Button, Divider, Stack } from '@mui/material';
import GitHubIcon from '@mui/icons-material/GitHub';
import ChatIcon from '@mui/icons-material/Chat';
import { useTranslate } from 'react-admin';
import { useNavigate } from 'react-router-dom';
import { TelegramLoginButton, type TelegramUser } from '../../components/TelegramLoginButton';
import { WeChatCodeDialog } from '../../components/WeChatCodeDialog';
import { useApiNotify } from '../../hooks/useApiNotify';
import { startGitHubOAuth } from '../../lib/oauth';
import type { SessionUser } from '../../lib/types';
import { rememberLogin } from '../../providers/authProvider';
import { apiRequest } from '../../providers/httpClient';
import { useStatus } from '../../providers/statusStore';

const TELEGRAM_FIELDS = ['id', 'first_name', 'last_name', 'username', 'photo_url', 'auth_date', 'hash', 'lang'];

/** Code-hosting, messaging-app and chat-app login, each shown only when the public status enables it. */
export const ThirdPartyLogin = () => {
  const status = useStatus();
  const translate = useTranslate();
  const navigate = useNavigate();
  const notify = useApiNotify();
  const [weChatOpen, setWeChatOpen] = useState(false);

  const showGitHub = Boolean(status.github_oauth && status.github_client_id);
  const showWeChat = Boolean(status.wechat_login);
  const showTelegram = Boolean(status.telegram_oauth && status.telegram_bot_name);
  if (!showGitHub && !showWeChat && !showTelegram) return null;

  const finishLogin = (user: SessionUser) => {
    rememberLogin(user);
    notify.success('app.login.success');
    navigate('/');
  };

  const loginWithWeChat = async (code: string) => {
    try {
      finishLogin(await apiRequest<SessionUser>('/api/oauth/wechat', { query: { code } }));
      setWeChatOpen(false);
    } catch (error) {
      notify.error(error);
    }
  };

  const loginWithTelegram = async (widgetUser: TelegramUser) => {
    const query: Record<string, string> = {};
    for (const field of TELEGRAM_FIELDS) {
      const value = widgetUser[field];
      if (value !== undefined && value !== null && value !== '') query[field] = String(value);
    }
    try {
      finishLogin(await apiRequest<SessionUser>('/api/oauth/telegram/login', { query }));
    } catch (error) {
      notify.error(error);
    }
  };

  return (
    <Box sx={{ mt: 3 }}>
      <Divider sx={{ mb: 2 }}>{translate('app.login.third_party')}</Divider>
      <Stack direction="row" spacing={1} sx={{ justifyContent: 'center' }}>
        {showGitHub ? (
          <Button
            variant="outlined"
            startIcon={<GitHubIcon />}
            onClick={() => startGitHubOAuth(status.github_client_id ?? '').catch(notify.error)}
          >
            {translate('app.login.github')}
          </Button>
        ) : null}
        {showWeChat ? (
          <Button variant="outlined" color="success" startIcon={<ChatIcon />} onClick={() => setWeChatOpen(true)}>
            {translate('app.login.wechat')}
          </Button>
        ) : null}
      </Stack>
      {showTelegram ? (
        <Box sx={{ display: 'flex', justifyContent: 'center', mt: 2 }}>
          <TelegramLoginButton botName={status.telegram_bot_name ?? ''} onAuth={loginWithTelegram} />
        </Box>
      ) : null}
      <WeChatCodeDialog
        open={weChatOpen}
        title={translate('app.login.wechat_title')}
        submitLabel={translate('app.login.submit')}
        qrcode={status.wechat_qrcode}
        onSubmit={loginWithWeChat}
        onClose={() => setWeChatOpen(false)}
      />
    </Box>
  );
};
