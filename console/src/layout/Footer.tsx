import { useEffect, useState } from 'react';
import { Box, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import { useSystemName } from '../components/SystemBrand';
import { useStatus } from '../providers/statusStore';

export const FOOTER_REFRESH_MS = 200;
export const FOOTER_REFRESH_TIMES = 5;
const FOOTER_KEY = 'footer_html';

/**
 * new-api's footer refresh: the stored `footer_html` is read again every 200 ms, up to 5 times, so a footer stored
 * just after the first render (by the status answer, or by another tab) shows without a reload.
 */
const useRefreshedFooterHtml = (): string => {
  const [stored, setStored] = useState(() => localStorage.getItem(FOOTER_KEY) ?? '');
  useEffect(() => {
    let remaining = FOOTER_REFRESH_TIMES;
    const timer = window.setInterval(() => {
      remaining -= 1;
      setStored(localStorage.getItem(FOOTER_KEY) ?? '');
      if (remaining <= 0) window.clearInterval(timer);
    }, FOOTER_REFRESH_MS);
    return () => window.clearInterval(timer);
  }, []);
  return stored;
};

/**
 * The operator's footer HTML (option Footer) when set, else a project credit with the server's version string
 * (`GET /api/status` version, new-api's build tag). The status store also re-renders the footer as soon as the
 * status arrives.
 */
export const Footer = () => {
  const translate = useTranslate();
  const status = useStatus();
  const systemName = useSystemName();
  const refreshed = useRefreshedFooterHtml();
  const footerHtml = status.footer_html ?? refreshed;
  return (
    <Box component="footer" sx={{ mt: 'auto', py: 2, px: 1, textAlign: 'center', color: 'text.secondary' }}>
      {footerHtml ? (
        // Written by the super admin in the Other settings tab, exactly as new-api renders it.
        <Box className="custom-footer" dangerouslySetInnerHTML={{ __html: footerHtml }} />
      ) : (
        <Typography variant="body2">{translate('app.footer.credit', { system: systemName, version: status.version ?? '' })}</Typography>
      )}
    </Box>
  );
};
