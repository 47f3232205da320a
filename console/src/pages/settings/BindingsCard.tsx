import { useState, type ReactNode } from 'react';
import { Box, Button, Card, CardContent, Stack, TextField, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import { TelegramLoginButton } from '../../components/TelegramLoginButton';
import { WeChatCodeDialog } from '../../components/WeChatCodeDialog';
import { useApiNotify } from '../../hooks/useApiNotify';
import { startGitHubOAuth } from '../../lib/oauth';
import type { User } from '../../lib/types';
import { apiRequest } from '../../providers/httpClient';
import { useStatus } from '../../providers/statusStore';
import { EmailBindDialog } from './EmailBindDialog';

const BindingRow = ({ label, value, action }: { label: string; value: string; action: ReactNode }) => (
  <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1} sx={{ alignItems: { sm: 'center' } }}>
    <TextField label={label} value={value} size="small" slotProps={{ input: { readOnly: true } }} sx={{ flex: 1 }} />
    <Box sx={{ minWidth: 120, display: 'flex', justifyContent: { sm: 'flex-end' } }}>{action}</Box>
  </Stack>
);

export interface BindingsCardProps {
  user?: User;
  onChanged: () => void;
}

/** Email, messaging-app, code-hosting and chat-app bindings; each needs its login method enabled. */
export const BindingsCard = ({ user, onChanged }: BindingsCardProps) => {
  const translate = useTranslate();
  const notify = useApiNotify();
  const status = useStatus();
  const [emailOpen, setEmailOpen] = useState(false);
  const [weChatOpen, setWeChatOpen] = useState(false);
  const notBound = translate('app.common.not_bound');

  const bindWeChat = async (code: string) => {
    try {
      await apiRequest('/api/oauth/wechat/bind', { query: { code } });
      notify.success('app.personal.wechat_bound');
      setWeChatOpen(false);
      onChanged();
    } catch (error) {
      notify.error(error);
    }
  };

  const enabledLabel = (enabled?: boolean) => translate(enabled ? 'app.common.bind' : 'app.common.not_enabled');

  return (
    <Card component="section" aria-label={translate('app.personal.bindings_title')}>
      <CardContent>
        <Typography variant="subtitle1" component="h2" gutterBottom>
          {translate('app.personal.bindings_title')}
        </Typography>
        <Stack spacing={2}>
          <BindingRow
            label={translate('app.personal.email')}
            value={user?.email || notBound}
            action={
              <Button variant="outlined" onClick={() => setEmailOpen(true)}>
                {translate(user?.email ? 'app.personal.change_binding' : 'app.personal.bind_email')}
              </Button>
            }
          />
          <BindingRow
            label={translate('app.personal.wechat')}
            value={user?.wechat_id ? translate('app.common.bound') : notBound}
            action={
              <Button variant="outlined" disabled={Boolean(user?.wechat_id) || !status.wechat_login} onClick={() => setWeChatOpen(true)}>
                {enabledLabel(status.wechat_login)}
              </Button>
            }
          />
          <BindingRow
            label={translate('app.personal.github')}
            value={user?.github_id || notBound}
            action={
              <Button
                variant="outlined"
                disabled={Boolean(user?.github_id) || !status.github_oauth}
                onClick={() => startGitHubOAuth(status.github_client_id ?? '').catch(notify.error)}
              >
                {enabledLabel(status.github_oauth)}
              </Button>
            }
          />
          <BindingRow
            label={translate('app.personal.telegram')}
            value={user?.telegram_id || notBound}
            action={
              status.telegram_oauth && status.telegram_bot_name && !user?.telegram_id ? (
                <TelegramLoginButton botName={status.telegram_bot_name} authUrl="/api/oauth/telegram/bind" />
              ) : (
                <Button variant="outlined" disabled>
                  {translate(user?.telegram_id ? 'app.common.bound' : 'app.common.not_enabled')}
                </Button>
              )
            }
          />
        </Stack>
      </CardContent>
      <EmailBindDialog open={emailOpen} onClose={() => setEmailOpen(false)} onBound={onChanged} />
      <WeChatCodeDialog
        open={weChatOpen}
        title={translate('app.personal.wechat_bind_title')}
        submitLabel={translate('app.common.bind')}
        qrcode={status.wechat_qrcode}
        onSubmit={bindWeChat}
        onClose={() => setWeChatOpen(false)}
      />
    </Card>
  );
};
