import { Button } from '@mui/material';
import ListAltIcon from '@mui/icons-material/ListAlt';
import { useTranslate } from 'react-admin';
import { Link } from 'react-router-dom';
import { useSessionUser } from '../../hooks/useSessionUser';
import { ROLE_ADMIN } from '../../lib/types';

/** The admins' screen of every user's orders, filtered to one user when `userId` is given. */
export const topUpOrdersPath = (userId?: number): string =>
  userId ? `/topup/orders?${new URLSearchParams({ filter: JSON.stringify({ user_id: userId }) }).toString()}` : '/topup/orders';

/** On the wallet's order history: the way to everyone's orders, for administrators only. */
export const AllTopUpOrdersButton = () => {
  const translate = useTranslate();
  const user = useSessionUser();
  if ((user?.role ?? 0) < ROLE_ADMIN) return null;
  return (
    <Button
      size="small"
      component={Link}
      to={topUpOrdersPath()}
      startIcon={<ListAltIcon />}
      title={translate('app.topup_orders_admin.open_hint')}
    >
      {translate('app.topup_orders_admin.open')}
    </Button>
  );
};

/** The user list's row action to that user's top-up orders. */
export const TopUpOrdersRowButton = ({ userId }: { userId: number }) => {
  const translate = useTranslate();
  return (
    <Button size="small" component={Link} to={topUpOrdersPath(userId)}>
      {translate('app.topup_orders_admin.row_action')}
    </Button>
  );
};
