import { useEffect } from 'react';
import { Alert, Box, Typography } from '@mui/material';
import { Authenticated, Title, useTranslate } from 'react-admin';
import { useChatLink } from './useChatLink';

const Chat2LinkContent = () => {
  const translate = useTranslate();
  const state = useChatLink();
  const target = state.kind === 'ready' ? state.url : null;

  useEffect(() => {
    if (target) window.location.assign(target);
  }, [target]);

  return (
    <Box sx={{ p: { xs: 1, sm: 2 } }}>
      <Title title={translate('app.menu.chat')} />
      {state.kind === 'no-link' ? (
        <Alert severity="warning">{translate('pages.chat.no_link')}</Alert>
      ) : (
        <Typography variant="h6" component="p">
          {translate('pages.chat.loading')}
        </Typography>
      )}
    </Box>
  );
};

/** /chat2link: the browser leaves for the configured chat link with the first enabled token. */
export const Chat2LinkPage = () => (
  <Authenticated>
    <Chat2LinkContent />
  </Authenticated>
);
