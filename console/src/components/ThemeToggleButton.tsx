import { IconButton, Tooltip } from '@mui/material';
import DarkModeIcon from '@mui/icons-material/DarkMode';
import LightModeIcon from '@mui/icons-material/LightMode';
import { useTheme, useTranslate } from 'react-admin';

/** Light/dark switch; the choice is kept in localStorage `theme` (see providers/store.ts). */
export const ThemeToggleButton = () => {
  const translate = useTranslate();
  const [theme, setTheme] = useTheme();
  const isDark = theme === 'dark';
  const label = translate(isDark ? 'app.topbar.to_light' : 'app.topbar.to_dark');
  return (
    <Tooltip title={label}>
      <IconButton color="inherit" aria-label={label} onClick={() => setTheme(isDark ? 'light' : 'dark')}>
        {isDark ? <LightModeIcon /> : <DarkModeIcon />}
      </IconButton>
    </Tooltip>
  );
};
