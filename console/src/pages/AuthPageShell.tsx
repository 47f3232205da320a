import type { ReactNode } from 'react';
import { AppBar, Box, Card, CardContent, Toolbar, Typography } from '@mui/material';
import { LanguageSwitch } from '../components/LanguageSwitch';
import { SystemBrand } from '../components/SystemBrand';
import { ThemeToggleButton } from '../components/ThemeToggleButton';
import { useStatusFailureNotice } from '../hooks/useStatusFailureNotice';

export interface AuthPageShellProps {
  title: string;
  children: ReactNode;
  below?: ReactNode;
}

/** The frame of the public account screens (login, register, reset, OAuth callback). */
export const AuthPageShell = ({ title, children, below }: AuthPageShellProps) => {
  useStatusFailureNotice();
  return (
    <Box sx={{ minHeight: '100vh', bgcolor: 'background.default', display: 'flex', flexDirection: 'column' }}>
      <AppBar position="static" color="secondary" elevation={1}>
        <Toolbar variant="dense" sx={{ gap: 1 }}>
          <SystemBrand />
          <Box sx={{ flex: 1 }} />
          <LanguageSwitch />
          <ThemeToggleButton />
        </Toolbar>
      </AppBar>
      <Box component="main" sx={{ flex: 1, display: 'flex', justifyContent: 'center', alignItems: 'flex-start', p: 2 }}>
        <Box sx={{ width: '100%', maxWidth: 440, mt: { xs: 2, sm: 8 } }}>
          <Card elevation={3}>
            <CardContent sx={{ p: { xs: 2, sm: 4 } }}>
              <Typography variant="h5" component="h1" sx={{ textAlign: 'center', mb: 3, fontWeight: 600 }}>
                {title}
              </Typography>
              {children}
            </CardContent>
          </Card>
          {below}
        </Box>
      </Box>
    </Box>
  );
};
