import { Alert, Box, LinearProgress } from '@mui/material';
import { Authenticated, Title, useTranslate } from 'react-admin';
import { useChatLink } from './useChatLink';

const ChatContent = () => {
  const translate = useTranslate();
  const state = useChatLink();
  return (
    <Box sx={{ p: { xs: 1, sm: 2 } }}>
      <Title title={translate('app.menu.chat')} />
      {state.kind === 'loading' ? <LinearProgress aria-label={translate('app.common.loading')} /> : null}
      {state.kind === 'no-token' ? (
        <Alert severity="error" variant="outlined">
          {translate('pages.chat.no_token')}
          <br />
          {translate('pages.chat.redirecting')}
        </Alert>
      ) : null}
      {state.kind === 'no-link' ? <Alert severity="warning">{translate('pages.chat.no_link')}</Alert> : null}
      {state.kind === 'ready' ? (
        <Box
          component="iframe"
          src={state.url}
          title={translate('pages.chat.frame_title')}
          sx={{ display: 'block', width: '100%', height: '85vh', border: 'none' }}
        />
      ) : null}
    </Box>
  );
};

/** /chat: the configured chat app in a frame, signed in with the first enabled token. */
export const ChatPage = () => (
  <Authenticated>
    <ChatContent />
  </Authenticated>
);
