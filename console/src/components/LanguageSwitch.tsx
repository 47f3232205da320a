import { useState, type MouseEvent } from 'react';
import { Button, Menu, MenuItem } from '@mui/material';
import TranslateIcon from '@mui/icons-material/Translate';
import { useLocaleState, useTranslate } from 'react-admin';
import { LOCALES } from '../providers/i18nProvider';

/** en/zh switch; the choice is kept in localStorage `i18nextLng`. */
export const LanguageSwitch = () => {
  const translate = useTranslate();
  const [locale, setLocale] = useLocaleState();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const current = LOCALES.find((entry) => entry.locale === locale) ?? LOCALES[0];

  return (
    <>
      <Button
        color="inherit"
        aria-label={translate('app.topbar.language')}
        aria-haspopup="menu"
        startIcon={<TranslateIcon />}
        onClick={(event: MouseEvent<HTMLElement>) => setAnchor(event.currentTarget)}
        sx={{ textTransform: 'none' }}
      >
        {current.name}
      </Button>
      <Menu anchorEl={anchor} open={Boolean(anchor)} onClose={() => setAnchor(null)}>
        {LOCALES.map((entry) => (
          <MenuItem
            key={entry.locale}
            selected={entry.locale === locale}
            lang={entry.locale}
            onClick={() => {
              setLocale(entry.locale);
              setAnchor(null);
            }}
          >
            {entry.name}
          </MenuItem>
        ))}
      </Menu>
    </>
  );
};
