import { Box, Button, Card, CardContent, Stack, Typography } from '@mui/material';
import { Title, useTranslate } from 'react-admin';
import { Link } from 'react-router-dom';
import { useSystemName } from '../components/SystemBrand';
import { useSessionUser } from '../hooks/useSessionUser';
import { useStatus } from '../providers/statusStore';

/** The public home page: system name and the way in. */
export const HomePage = () => {
  const translate = useTranslate();
  const status = useStatus();
  const systemName = useSystemName();
  const user = useSessionUser();
  return (
    <Box sx={{ p: { xs: 1, sm: 2 } }}>
      <Title title={translate('app.menu.home')} />
      <Card>
        <CardContent sx={{ py: 5, textAlign: 'center' }}>
          <Typography variant="h4" component="h1" gutterBottom>
            {translate('app.home.title', { system: systemName })}
          </Typography>
          <Typography color="text.secondary">{translate('app.home.body')}</Typography>
          {status.version ? (
            <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
              {translate('app.home.version', { version: status.version })}
            </Typography>
          ) : null}
          <Stack direction="row" spacing={2} sx={{ mt: 3, justifyContent: 'center' }}>
            {user ? (
              <Button component={Link} to="/setting?tab=personal" variant="contained">
                {translate('app.home.go_console')}
              </Button>
            ) : (
              <>
                <Button component={Link} to="/login" variant="contained">
                  {translate('app.topbar.login')}
                </Button>
                <Button component={Link} to="/register" variant="outlined">
                  {translate('app.topbar.register')}
                </Button>
              </>
            )}
          </Stack>
        </CardContent>
      </Card>
    </Box>
  );
};
