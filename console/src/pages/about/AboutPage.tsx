import { Box, Card, CardContent, Typography } from '@mui/material';
import { Title, useTranslate } from 'react-admin';
import { useSystemName } from '../../components/SystemBrand';
import { useStatus } from '../../providers/statusStore';
import { OperatorContentView } from './OperatorContentView';
import { useOperatorContent } from './useOperatorContent';

/** What /about shows while the About option is empty, as new-api's page does. */
const DefaultAbout = () => {
  const translate = useTranslate();
  const systemName = useSystemName();
  const { version } = useStatus();
  return (
    <Card>
      <CardContent>
        <Typography variant="h5" component="h1" gutterBottom>
          {translate('app.menu.about')}
        </Typography>
        <Typography gutterBottom>{translate('pages.about.default_body')}</Typography>
        <Typography color="text.secondary">
          {systemName} {version ?? ''}
        </Typography>
        <Typography color="text.secondary">{translate('pages.about.project')}</Typography>
      </CardContent>
    </Card>
  );
};

/** The public about page: the About option (Markdown or an https address to frame), else the default text. */
export const AboutPage = () => {
  const translate = useTranslate();
  const state = useOperatorContent('/api/about', 'about');
  return (
    <Box sx={{ p: { xs: 1, sm: 2 } }}>
      <Title title={translate('app.menu.about')} />
      <OperatorContentView state={state} failedKey="pages.content.about_failed" fallback={<DefaultAbout />} />
    </Box>
  );
};
