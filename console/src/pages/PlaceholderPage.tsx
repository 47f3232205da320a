import { Box, Card, CardContent, Typography } from '@mui/material';
import ConstructionIcon from '@mui/icons-material/Construction';
import { Authenticated, Title, useTranslate } from 'react-admin';

export interface PlaceholderPageProps {
  /** i18n key of the screen's name, e.g. app.menu.token */
  titleKey: string;
  /** Public screens (pricing, about) are reachable without logging in. */
  isPublic?: boolean;
}

/** Screens of a later release: the route and menu entry exist, the content does not yet. */
export const PlaceholderPage = ({ titleKey, isPublic = false }: PlaceholderPageProps) => {
  const translate = useTranslate();
  const content = (
    <Box sx={{ p: { xs: 1, sm: 2 } }}>
      <Title title={translate(titleKey)} />
      <Card>
        <CardContent sx={{ display: 'flex', alignItems: 'center', gap: 2, py: 4 }}>
          <ConstructionIcon color="action" fontSize="large" />
          <Box>
            <Typography variant="h6" component="h1">
              {translate(titleKey)}
            </Typography>
            <Typography color="text.secondary">{translate('app.placeholder.body')}</Typography>
          </Box>
        </CardContent>
      </Card>
    </Box>
  );
  return isPublic ? content : <Authenticated>{content}</Authenticated>;
};
