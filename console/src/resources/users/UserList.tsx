import { Box, Button, Typography } from '@mui/material';
import PersonAddIcon from '@mui/icons-material/PersonAdd';
import { DataTable, List, Pagination, SelectInput, TextInput, TopToolbar, useTranslate } from 'react-admin';
import { Link } from 'react-router-dom';
import { renderQuota } from '../../lib/quota';
import type { User } from '../../lib/types';
import { useStatus } from '../../providers/statusStore';
import { RequireAdmin } from './RequireAdmin';
import { RoleChip, StatusChip } from './UserTags';
import { UserRowActions } from './UserRowActions';
import { useGroupChoices } from './useGroupChoices';

const ListActions = () => {
  const translate = useTranslate();
  return (
    <TopToolbar>
      <Button component={Link} to="/user/add" variant="contained" size="small" startIcon={<PersonAddIcon />}>
        {translate('app.users.add')}
      </Button>
    </TopToolbar>
  );
};

const useFilters = () => {
  const translate = useTranslate();
  const groups = useGroupChoices();
  return [
    <TextInput
      key="keyword"
      source="keyword"
      label="ra.action.search"
      placeholder={translate('app.users.search')}
      alwaysOn
      resettable
      sx={{ minWidth: { sm: 360 } }}
    />,
    <SelectInput key="group" source="group" label="app.users.group" choices={groups} alwaysOn emptyText="" />,
  ];
};

/** Cancelled users stay listed (the server lists soft-deleted rows) but greyed. */
const rowSx = (record: User) => (record.DeletedAt ? { opacity: 0.5 } : {});

const UserName = ({ user }: { user: User }) => (
  <Box>
    <Typography variant="body2">{user.username}</Typography>
    {user.display_name && user.display_name !== user.username ? (
      <Typography variant="caption" color="text.secondary">
        {user.display_name}
      </Typography>
    ) : null}
  </Box>
);

/** /user: the admin's user list, 10 per page by default, one server page at a time. */
export const UserList = () => {
  const translate = useTranslate();
  const status = useStatus();
  const filters = useFilters();
  return (
    <RequireAdmin>
      <List
        resource="user"
        title={translate('app.users.title')}
        perPage={10}
        filters={filters}
        actions={<ListActions />}
        pagination={<Pagination rowsPerPageOptions={[10, 20, 50, 100]} />}
        exporter={false}
        empty={false}
      >
        <DataTable<User> rowClick={false} bulkActionButtons={false} rowSx={rowSx}>
          <DataTable.Col<User> source="id" disableSort />
          <DataTable.Col<User> source="username" disableSort render={(user) => <UserName user={user} />} />
          <DataTable.Col<User> source="group" disableSort />
          <DataTable.Col<User> source="quota" disableSort render={(user) => renderQuota(user.quota, status)} />
          <DataTable.Col<User> source="used_quota" disableSort render={(user) => renderQuota(user.used_quota, status)} />
          <DataTable.Col<User> source="request_count" disableSort />
          <DataTable.Col<User> source="role" disableSort render={(user) => <RoleChip role={user.role} />} />
          <DataTable.Col<User> source="status" disableSort render={(user) => <StatusChip user={user} />} />
          <DataTable.Col<User> label="resources.user.fields.actions">
            <UserRowActions />
          </DataTable.Col>
        </DataTable>
      </List>
    </RequireAdmin>
  );
};
