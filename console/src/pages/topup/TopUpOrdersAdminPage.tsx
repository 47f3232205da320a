import { Box, Typography, useMediaQuery, type Theme } from '@mui/material';
import {
  AutocompleteInput,
  DataTable,
  List,
  Pagination,
  ReferenceInput,
  SimpleList,
  TopToolbar,
  FilterButton,
  useTranslate,
  type RaRecord,
} from 'react-admin';
import { renderQuota } from '../../lib/quota';
import type { User } from '../../lib/types';
import { useStatus } from '../../providers/statusStore';
import { RequireAdmin } from '../../resources/users/RequireAdmin';
import { renderTime, StatusChip } from './TopUpOrderHistory';
import type { AdminTopUpOrder } from './topupOrderEndpoints';

const useFilters = () => {
  const translate = useTranslate();
  return [
    <ReferenceInput key="user_id" source="user_id" reference="user" alwaysOn>
      <AutocompleteInput
        label="app.topup_orders_admin.user_filter"
        helperText="app.topup_orders_admin.user_filter_hint"
        filterToQuery={(keyword: string) => ({ keyword })}
        optionText={(user: RaRecord) => translate('app.topup_orders_admin.user_label', { name: (user as User).username, id: user.id })}
        sx={{ minWidth: { xs: 240, sm: 300 } }}
      />
    </ReferenceInput>,
  ];
};

const Empty = () => {
  const translate = useTranslate();
  return (
    <Box sx={{ p: 3 }}>
      <Typography color="text.secondary">{translate('app.topup_orders_admin.empty')}</Typography>
    </Box>
  );
};

const useMethodLabel = () => {
  const translate = useTranslate();
  return (method: string) =>
    method === 'wx' ? translate('app.topup_online.wxpay') : method === 'zfb' ? translate('app.topup_online.alipay') : method;
};

const TopUpOrdersAdminList = () => {
  const translate = useTranslate();
  const status = useStatus();
  const filters = useFilters();
  const methodLabel = useMethodLabel();
  const phone = useMediaQuery<Theme>((theme) => theme.breakpoints.down('sm'));
  const small = useMediaQuery<Theme>((theme) => theme.breakpoints.down('md'));
  const money = (value: number) => translate('app.topup_online.money', { money: value.toFixed(2) });
  const user = (order: AdminTopUpOrder) => translate('app.topup_orders_admin.user_label', { name: order.username, id: order.user_id });
  const Col = DataTable.Col<AdminTopUpOrder>;
  return (
    <List
      resource="topup_order"
      title={translate('app.topup_orders_admin.title')}
      filters={filters}
      perPage={20}
      actions={
        <TopToolbar>
          <FilterButton />
        </TopToolbar>
      }
      pagination={<Pagination rowsPerPageOptions={[10, 20, 50, 100]} />}
      exporter={false}
      empty={<Empty />}
      storeKey="topup_orders.admin"
    >
      {phone ? (
        <SimpleList<AdminTopUpOrder>
          linkType={false}
          primaryText={(order) => (
            <Box component="span" sx={{ display: 'flex', gap: 1, alignItems: 'center', flexWrap: 'wrap' }}>
              <StatusChip status={order.status} />
              <span>{money(order.money)}</span>
              <span>{user(order)}</span>
            </Box>
          )}
          secondaryText={(order) => (
            <Box component="span" sx={{ wordBreak: 'break-all' }}>
              {`${order.trade_no} · ${methodLabel(order.payment_method)} · ${renderTime(order.create_time)}`}
            </Box>
          )}
          tertiaryText={(order) => renderQuota(order.quota, status)}
        />
      ) : (
        <DataTable<AdminTopUpOrder> rowClick={false} bulkActionButtons={false} data-testid="topup-orders-admin">
          <Col
            source="trade_no"
            label="app.topup_orders_admin.fields.trade_no"
            disableSort
            render={(order) => (
              <Typography variant="body2" sx={{ fontFamily: 'monospace', wordBreak: 'break-all' }}>
                {order.trade_no}
              </Typography>
            )}
          />
          <Col source="username" label="app.topup_orders_admin.fields.user" disableSort render={user} />
          <Col source="amount" label="app.topup_orders_admin.fields.amount" disableSort align="right" />
          <Col
            source="quota"
            label="app.topup_orders_admin.fields.quota"
            disableSort
            align="right"
            render={(order) => renderQuota(order.quota, status)}
          />
          <Col
            source="money"
            label="app.topup_orders_admin.fields.money"
            disableSort
            align="right"
            render={(order) => money(order.money)}
          />
          {small ? null : (
            <Col
              source="paid_money"
              label="app.topup_orders_admin.fields.paid_money"
              disableSort
              align="right"
              render={(order) => (order.status === 'pending' ? '-' : money(order.paid_money))}
            />
          )}
          <Col
            source="payment_method"
            label="app.topup_orders_admin.fields.method"
            disableSort
            render={(order) => methodLabel(order.payment_method)}
          />
          <Col
            source="status"
            label="app.topup_orders_admin.fields.status"
            disableSort
            render={(order) => <StatusChip status={order.status} />}
          />
          <Col
            source="create_time"
            label="app.topup_orders_admin.fields.created"
            disableSort
            render={(order) => renderTime(order.create_time)}
          />
          {small ? null : (
            <Col
              source="complete_time"
              label="app.topup_orders_admin.fields.completed"
              disableSort
              render={(order) => renderTime(order.complete_time)}
            />
          )}
        </DataTable>
      )}
    </List>
  );
};

/**
 * /topup/orders (administrators): every user's online top-up orders, newest first, with a user filter (a username,
 * e-mail or id search over the user list), over the `topup_order` resource (./topupOrderEndpoints.ts). Reached from
 * the wallet's order history and from a user's row on the user list (`?filter={"user_id":N}`).
 */
export const TopUpOrdersAdminPage = () => (
  <RequireAdmin>
    <TopUpOrdersAdminList />
  </RequireAdmin>
);
