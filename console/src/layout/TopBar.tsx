import { Box, Button, IconButton, ListItemIcon, ListItemText, MenuItem, Tooltip, useMediaQuery, type Theme } from '@mui/material';
import InfoOutlinedIcon from '@mui/icons-material/InfoOutlined';
import LogoutIcon from '@mui/icons-material/Logout';
import { AppBar, LoadingIndicator, TitlePortal, UserMenu, useLogout, useNotify, useTranslate, useUserMenu } from 'react-admin';
import { Link } from 'react-router-dom';
import { LanguageSwitch } from '../components/LanguageSwitch';
import { SystemBrand } from '../components/SystemBrand';
import { ThemeToggleButton } from '../components/ThemeToggleButton';
import { useSessionUser } from '../hooks/useSessionUser';
import { FestiveLantern } from './FestiveLantern';

const LogoutMenuItem = () => {
  const translate = useTranslate();
  const logout = useLogout();
  const notify = useNotify();
  const userMenu = useUserMenu();
  const onClick = async () => {
    userMenu?.onClose();
    await logout(undefined, '/login', false);
    notify('app.topbar.logged_out', { type: 'success' });
  };
  return (
    <MenuItem onClick={onClick}>
      <ListItemIcon>
        <LogoutIcon fontSize="small" />
      </ListItemIcon>
      <ListItemText>{translate('app.topbar.logout')}</ListItemText>
    </MenuItem>
  );
};

/** Logged in: the user menu (name and log-out). Logged out: login and register links. */
const TopBarUserMenu = () => {
  const translate = useTranslate();
  const user = useSessionUser();
  if (user) {
    return (
      <UserMenu>
        <LogoutMenuItem />
      </UserMenu>
    );
  }
  return (
    <Box sx={{ display: 'flex', gap: 0.5 }}>
      <Button color="inherit" component={Link} to="/login">
        {translate('app.topbar.login')}
      </Button>
      <Button color="inherit" component={Link} to="/register">
        {translate('app.topbar.register')}
      </Button>
    </Box>
  );
};

const TopBarTools = () => {
  const translate = useTranslate();
  return (
    <>
      <FestiveLantern />
      <Tooltip title={translate('app.topbar.about')}>
        <IconButton color="inherit" component={Link} to="/about" aria-label={translate('app.topbar.about')}>
          <InfoOutlinedIcon />
        </IconButton>
      </Tooltip>
      <LanguageSwitch />
      <ThemeToggleButton />
      <LoadingIndicator />
    </>
  );
};

export const TopBar = () => {
  const isSmall = useMediaQuery<Theme>((theme) => theme.breakpoints.down('sm'));
  return (
    <AppBar toolbar={<TopBarTools />} userMenu={<TopBarUserMenu />}>
      <SystemBrand />
      {isSmall ? <Box sx={{ flex: 1 }} /> : <TitlePortal sx={{ ml: 3, opacity: 0.85 }} variant="subtitle1" />}
    </AppBar>
  );
};
