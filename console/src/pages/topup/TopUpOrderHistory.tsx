import { useEffect, useState } from 'react';
import { Box, Button, Card, CardContent, CardHeader, Chip, Stack, Typography } from '@mui/material';
import RefreshIcon from '@mui/icons-material/Refresh';
import { DataTable, ListContextProvider, useList, useTranslate } from 'react-admin';
import { useApiData } from '../../hooks/useApiData';
import { renderQuota } from '../../lib/quota';
import type { PublicStatus } from '../../lib/types';
import { AllTopUpOrdersButton } from './TopUpOrdersLinks';

const PAGE_SIZE = 10;

/** One order as GET /api/user/topup/self lists it. */
export interface TopUpOrder {
  id: number;
  trade_no: string;
  amount: number;
  quota: number;
  money: number;
  paid_money: number;
  payment_method: string;
  status: string;
  create_time: number;
  complete_time: number;
}

const pad = (value: number) => String(value).padStart(2, '0');

/** A unix time in seconds as local `YYYY-MM-DD hh:mm:ss`; 0 (not yet) is '-'. */
export const renderTime = (seconds: number): string => {
  if (!seconds) return '-';
  const date = new Date(seconds * 1000);
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
};

export const StatusChip = ({ status }: { status: string }) => {
  const translate = useTranslate();
  if (status === 'success') return <Chip size="small" color="success" label={translate('app.topup_online.status_success')} />;
  if (status === 'failed') return <Chip size="small" color="error" label={translate('app.topup_online.status_failed')} />;
  return <Chip size="small" color="warning" variant="outlined" label={translate('app.topup_online.status_pending')} />;
};

/**
 * The caller's own top-up orders, newest first, 10 a page: the server pages (0-based `p`) and answers a bare array,
 * so a page shorter than 10 is the last. `version` reloads it (a new order, the tab coming back into focus).
 */
export const TopUpOrderHistory = ({ status, version }: { status: PublicStatus; version: number }) => {
  const translate = useTranslate();
  const [page, setPage] = useState(0);
  const orders = useApiData<TopUpOrder[]>('/api/user/topup/self', { p: page, page_size: PAGE_SIZE });
  const { reload } = orders;
  const data = orders.data ?? [];
  const list = useList<TopUpOrder>({ data, isPending: orders.loading && !orders.data, perPage: PAGE_SIZE });

  useEffect(() => {
    setPage(0);
    reload();
  }, [version, reload]);

  const methodLabel = (method: string) =>
    translate(method === 'wx' ? 'app.topup_online.wxpay' : method === 'zfb' ? 'app.topup_online.alipay' : method);
  return (
    <Card>
      <CardHeader
        title={translate('app.topup_online.history_title')}
        action={
          <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap', justifyContent: 'flex-end' }}>
            <AllTopUpOrdersButton />
            <Button size="small" startIcon={<RefreshIcon />} onClick={reload}>
              {translate('app.topup_online.refresh')}
            </Button>
          </Stack>
        }
      />
      <CardContent>
        {data.length === 0 && !orders.loading ? (
          <Typography color="text.secondary">{translate('app.topup_online.history_empty')}</Typography>
        ) : (
          // Zero width, at least the card's: the table scrolls inside the card instead of widening the page on a phone.
          <Box sx={{ width: 0, minWidth: '100%', overflowX: 'auto' }}>
            <ListContextProvider value={list}>
              <DataTable<TopUpOrder> resource="topup_orders" rowClick={false} bulkActionButtons={false} data-testid="topup-orders">
                <DataTable.Col<TopUpOrder> source="trade_no" label="app.topup_online.trade_no" disableSort />
                <DataTable.Col<TopUpOrder> source="amount" label="app.topup_online.amount" disableSort />
                <DataTable.Col<TopUpOrder>
                  source="quota"
                  label="app.topup_online.quota"
                  disableSort
                  render={(order) => renderQuota(order.quota, status)}
                />
                <DataTable.Col<TopUpOrder>
                  source="money"
                  label="app.topup_online.payable"
                  disableSort
                  render={(order) => translate('app.topup_online.money', { money: order.money.toFixed(2) })}
                />
                <DataTable.Col<TopUpOrder>
                  source="payment_method"
                  label="app.topup_online.method"
                  disableSort
                  render={(order) => methodLabel(order.payment_method)}
                />
                <DataTable.Col<TopUpOrder>
                  source="status"
                  label="app.topup_online.status"
                  disableSort
                  render={(order) => <StatusChip status={order.status} />}
                />
                <DataTable.Col<TopUpOrder>
                  source="create_time"
                  label="app.topup_online.created"
                  disableSort
                  render={(order) => renderTime(order.create_time)}
                />
                <DataTable.Col<TopUpOrder>
                  source="complete_time"
                  label="app.topup_online.completed"
                  disableSort
                  render={(order) => renderTime(order.complete_time)}
                />
              </DataTable>
            </ListContextProvider>
          </Box>
        )}
        <Stack direction="row" spacing={1} sx={{ mt: 1, alignItems: 'center', justifyContent: 'flex-end' }}>
          <Button size="small" disabled={page === 0} onClick={() => setPage((value) => value - 1)}>
            {translate('app.topup_online.previous')}
          </Button>
          <Typography variant="body2">{translate('app.topup_online.page', { page: page + 1 })}</Typography>
          <Button size="small" disabled={data.length < PAGE_SIZE} onClick={() => setPage((value) => value + 1)}>
            {translate('app.topup_online.next')}
          </Button>
        </Stack>
      </CardContent>
    </Card>
  );
};
