import { useState } from 'react';
import { Button, Stack, Typography } from '@mui/material';
import { Confirm, useDataProvider, useRecordContext, useRefresh, useTranslate } from 'react-admin';
import { Link } from 'react-router-dom';
import { useApiNotify } from '../../hooks/useApiNotify';
import { USER_STATUS_ENABLED, type User, type UserManageAction } from '../../lib/types';
import type { ConsoleDataProvider } from '../../providers/dataProvider';
import { StatementRowButton } from '../../pages/statement/StatementRowButton';
import { TopUpOrdersRowButton } from '../../pages/topup/TopUpOrdersLinks';

/** Actions that change rights or can't be undone ask first, like new-api's pop-confirms. */
const CONFIRMED: Partial<Record<UserManageAction, { title: string; content: string }>> = {
  promote: { title: 'app.users.promote_title', content: 'app.users.promote_content' },
  demote: { title: 'app.users.demote_title', content: 'app.users.demote_content' },
  delete: { title: 'app.users.delete_title', content: 'app.users.delete_content' },
};

/** Promote, demote, enable/disable, cancel and edit; a cancelled user (DeletedAt set) offers none. */
export const UserRowActions = () => {
  const user = useRecordContext<User>();
  const translate = useTranslate();
  const refresh = useRefresh();
  const notify = useApiNotify();
  const dataProvider = useDataProvider<ConsoleDataProvider>();
  const [pending, setPending] = useState<UserManageAction | null>(null);
  const [busy, setBusy] = useState(false);

  if (!user) return null;
  if (user.DeletedAt) {
    return (
      <Stack direction="row" spacing={0.5} sx={{ alignItems: 'center' }}>
        <Typography variant="body2" color="text.disabled">
          {translate('app.users.no_actions')}
        </Typography>
        <StatementRowButton userId={Number(user.id)} />
        <TopUpOrdersRowButton userId={Number(user.id)} />
      </Stack>
    );
  }

  const run = async (action: UserManageAction) => {
    setPending(null);
    setBusy(true);
    try {
      await dataProvider.manageUser(Number(user.id), action);
      notify.success('app.common.operation_success');
      refresh();
    } catch (error) {
      notify.error(error);
    } finally {
      setBusy(false);
    }
  };

  const ask = (action: UserManageAction) => (CONFIRMED[action] ? setPending(action) : run(action));
  const confirm = pending ? CONFIRMED[pending] : undefined;

  return (
    <Stack direction="row" spacing={0.5} useFlexGap sx={{ flexWrap: 'wrap' }}>
      <Button size="small" disabled={busy} onClick={() => ask('promote')}>
        {translate('app.users.promote')}
      </Button>
      <Button size="small" disabled={busy} onClick={() => ask('demote')}>
        {translate('app.users.demote')}
      </Button>
      {user.status === USER_STATUS_ENABLED ? (
        <Button size="small" color="warning" disabled={busy} onClick={() => ask('disable')}>
          {translate('app.users.disable')}
        </Button>
      ) : (
        <Button size="small" color="success" disabled={busy || user.status === 3} onClick={() => ask('enable')}>
          {translate('app.users.enable')}
        </Button>
      )}
      <Button size="small" color="error" disabled={busy} onClick={() => ask('delete')}>
        {translate('app.users.delete')}
      </Button>
      <Button size="small" component={Link} to={`/user/edit/${user.id}`}>
        {translate('app.users.edit')}
      </Button>
      <StatementRowButton userId={Number(user.id)} />
      <TopUpOrdersRowButton userId={Number(user.id)} />
      <Confirm
        isOpen={Boolean(confirm)}
        title={confirm?.title ?? ''}
        content={confirm?.content ?? ''}
        confirm="app.common.ok"
        cancel="app.common.cancel"
        onConfirm={() => pending && run(pending)}
        onClose={() => setPending(null)}
      />
    </Stack>
  );
};
