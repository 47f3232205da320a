import { Box, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import { useSystemName } from '../components/SystemBrand';
import { useStatus } from '../providers/statusStore';

/**
 * The operator's footer HTML (option Footer) when set, else a project credit with the server version.
 * new-api's UI polls localStorage for 1 s because its status loads late; here the status store
 * re-renders the footer as soon as the status arrives.
 */
export const Footer = () => {
  const translate = useTranslate();
  const status = useStatus();
  const systemName = useSystemName();
  return (
    <Box component="footer" sx={{ mt: 'auto', py: 2, px: 1, textAlign: 'center', color: 'text.secondary' }}>
      {status.footer_html ? (
        // Written by the super admin in the Other settings tab, exactly as new-api renders it.
        <Box className="custom-footer" dangerouslySetInnerHTML={{ __html: status.footer_html }} />
      ) : (
        <Typography variant="body2">{translate('app.footer.credit', { system: systemName, version: status.version ?? '' })}</Typography>
      )}
    </Box>
  );
};
