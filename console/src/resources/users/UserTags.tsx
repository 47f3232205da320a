import { Chip } from '@mui/material';
import { useTranslate } from 'react-admin';
import { ROLE_ADMIN, ROLE_COMMON, ROLE_ROOT, USER_STATUS_DISABLED, USER_STATUS_ENABLED, type User } from '../../lib/types';

/** User roles: 1 common, 10 admin, 100 super admin, anything else unknown. */
export const RoleChip = ({ role }: { role: number }) => {
  const translate = useTranslate();
  switch (role) {
    case ROLE_COMMON:
      return <Chip size="small" label={translate('app.users.role_common')} />;
    case ROLE_ADMIN:
      return <Chip size="small" color="warning" label={translate('app.users.role_admin')} />;
    case ROLE_ROOT:
      return <Chip size="small" color="error" label={translate('app.users.role_root')} />;
    default:
      return <Chip size="small" variant="outlined" label={translate('app.users.role_unknown')} />;
  }
};

/** 1 activated, 2 banned, other unknown; a set DeletedAt means cancelled whatever the status. */
export const StatusChip = ({ user }: { user: Pick<User, 'status' | 'DeletedAt'> }) => {
  const translate = useTranslate();
  if (user.DeletedAt) return <Chip size="small" variant="outlined" label={translate('app.users.status_cancelled')} />;
  switch (user.status) {
    case USER_STATUS_ENABLED:
      return <Chip size="small" color="success" label={translate('app.users.status_enabled')} />;
    case USER_STATUS_DISABLED:
      return <Chip size="small" color="error" label={translate('app.users.status_disabled')} />;
    default:
      return <Chip size="small" variant="outlined" label={translate('app.users.status_unknown')} />;
  }
};
