import { Box, Button, Card, CardContent, CardHeader, Stack, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import { Link } from 'react-router-dom';
import { useSystemName } from '../../components/SystemBrand';
import { useSessionUser } from '../../hooks/useSessionUser';
import { useStatus } from '../../providers/statusStore';

const Facts = ({ rows }: { rows: Array<[string, string]> }) => (
  <Box component="dl" sx={{ m: 0, display: 'grid', gridTemplateColumns: 'auto 1fr', columnGap: 2, rowGap: 0.75 }}>
    {rows.map(([label, value]) => (
      <Box key={label} sx={{ display: 'contents' }}>
        <Typography component="dt" color="text.secondary">
          {label}
        </Typography>
        <Typography component="dd" sx={{ m: 0, overflowWrap: 'anywhere' }}>
          {value}
        </Typography>
      </Box>
    ))}
  </Box>
);

/** The home page while HomePageContent is empty: the way in, then new-api's system information and configuration. */
export const DefaultHome = () => {
  const translate = useTranslate();
  const status = useStatus();
  const systemName = useSystemName();
  const user = useSessionUser();
  const onOff = (value: boolean | undefined) => translate(value === true ? 'pages.home.enabled' : 'pages.home.disabled');
  const started = status.start_time ? new Date(status.start_time * 1000).toLocaleString() : '';
  return (
    <Stack spacing={2}>
      <Card>
        <CardContent sx={{ py: 5, textAlign: 'center' }}>
          <Typography variant="h4" component="h1" gutterBottom>
            {translate('app.home.title', { system: systemName })}
          </Typography>
          <Typography color="text.secondary">{translate('app.home.body')}</Typography>
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
      <Stack direction={{ xs: 'column', md: 'row' }} spacing={2}>
        <Card sx={{ flex: 1 }}>
          <CardHeader title={translate('pages.home.system_title')} slotProps={{ title: { variant: 'h6', component: 'h2' } }} />
          <CardContent sx={{ pt: 0 }}>
            <Facts
              rows={[
                [translate('pages.home.name'), systemName],
                [translate('pages.home.version'), status.version || translate('pages.home.unknown')],
                [translate('pages.home.started'), started],
              ]}
            />
          </CardContent>
        </Card>
        <Card sx={{ flex: 1 }}>
          <CardHeader title={translate('pages.home.config_title')} slotProps={{ title: { variant: 'h6', component: 'h2' } }} />
          <CardContent sx={{ pt: 0 }}>
            <Facts
              rows={[
                [translate('pages.home.email_verification'), onOff(status.email_verification)],
                [translate('pages.home.github_oauth'), onOff(status.github_oauth)],
                [translate('pages.home.wechat_login'), onOff(status.wechat_login)],
                [translate('pages.home.turnstile_check'), onOff(status.turnstile_check)],
                [translate('pages.home.telegram_oauth'), onOff(status.telegram_oauth)],
              ]}
            />
          </CardContent>
        </Card>
      </Stack>
    </Stack>
  );
};
