import type { ReactNode } from 'react';
import { Alert, Box } from '@mui/material';
import { Authenticated, useTranslate } from 'react-admin';
import { useSessionUser } from '../../hooks/useSessionUser';
import { ROLE_ADMIN } from '../../lib/types';

/** Login required; below the admin role the screen says so instead of showing server refusals. */
export const RequireAdmin = ({ children }: { children: ReactNode }) => {
  const translate = useTranslate();
  const user = useSessionUser();
  return (
    <Authenticated>
      {(user?.role ?? 0) >= ROLE_ADMIN ? (
        children
      ) : (
        <Box sx={{ p: 2 }}>
          <Alert severity="warning">{translate('ra.message.access_denied')}</Alert>
        </Box>
      )}
    </Authenticated>
  );
};
