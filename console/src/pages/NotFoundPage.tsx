import { Box, Button, Typography } from '@mui/material';
import SearchOffIcon from '@mui/icons-material/SearchOff';
import { Title, useTranslate } from 'react-admin';
import { Link } from 'react-router-dom';

/** Any path the console does not know. */
export const NotFoundPage = () => {
  const translate = useTranslate();
  return (
    <Box sx={{ textAlign: 'center', py: 8, px: 2 }}>
      <Title title={translate('app.not_found.title')} />
      <SearchOffIcon sx={{ fontSize: 72, color: 'text.disabled' }} />
      <Typography variant="h4" component="h1" sx={{ mt: 2 }}>
        {translate('app.not_found.title')}
      </Typography>
      <Typography color="text.secondary" sx={{ mt: 1 }}>
        {translate('app.not_found.hint')}
      </Typography>
      <Button component={Link} to="/" variant="outlined" sx={{ mt: 3 }}>
        {translate('app.not_found.back_home')}
      </Button>
    </Box>
  );
};
