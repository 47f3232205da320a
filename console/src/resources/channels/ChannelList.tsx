import { type ReactNode, useCallback, useState } from 'react';
import { Box, Button, Stack, Typography } from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import {
  BooleanInput,
  DataTable,
  List,
  Pagination,
  SelectInput,
  TextInput,
  TopToolbar,
  useRedirect,
  useRefresh,
  useTranslate,
} from 'react-admin';
import { useApiNotify } from '../../hooks/useApiNotify';
import { renderQuota } from '../../lib/quota';
import type { PublicStatus } from '../../lib/types';
import { CHANNEL_STATUS_ENABLED, type Channel } from '../../providers/endpoints/channelEndpoints';
import { useStatus } from '../../providers/statusStore';
import { RequireAdmin } from '../users/RequireAdmin';
import { useGroupChoices } from '../users/useGroupChoices';
import { ChannelToolbarActions, DeleteSelectedButton, RunProgressBanner } from './ChannelBulkActions';
import { BalanceCell, ChannelStatusTag, ChannelTypeCell, GroupsCell, ResponseTime } from './ChannelCells';
import { ChannelRowActions } from './ChannelRowActions';
import { InlineNumber } from './InlineNumber';
import { type RunKind, useChannelRun } from './useChannelRun';

/** The table's data columns, in order: each labelled `app.channels.fields.<source>`, shown by its cell (or as text). */
const columns = (status: PublicStatus): Array<{ source: keyof Channel; render?: (channel: Channel) => ReactNode }> => [
  { source: 'id' },
  { source: 'name' },
  { source: 'group', render: (channel) => <GroupsCell channel={channel} /> },
  { source: 'type', render: (channel) => <ChannelTypeCell channel={channel} /> },
  { source: 'status', render: (channel) => <ChannelStatusTag channel={channel} /> },
  { source: 'response_time', render: (channel) => <ResponseTime channel={channel} /> },
  { source: 'used_quota', render: (channel) => renderQuota(channel.used_quota, status) },
  { source: 'balance', render: (channel) => <BalanceCell channel={channel} /> },
  { source: 'priority', render: (channel) => <InlineNumber channel={channel} field="priority" /> },
  { source: 'weight', render: (channel) => <InlineNumber channel={channel} field="weight" /> },
];

const ListActions = () => {
  const translate = useTranslate();
  const redirect = useRedirect();
  return (
    <TopToolbar>
      <Button variant="contained" size="small" startIcon={<AddIcon />} onClick={() => redirect('/channel/add')}>
        {translate('app.channels.add')}
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
      label="app.channels.filters.keyword"
      placeholder={translate('app.channels.filters.keyword_placeholder')}
      alwaysOn
      resettable
      sx={{ minWidth: { sm: 280 } }}
    />,
    <SelectInput
      key="group"
      source="group"
      label="app.channels.filters.group"
      choices={groups}
      alwaysOn
      emptyText="app.channels.filters.any_group"
    />,
    <TextInput key="model" source="model" label="app.channels.filters.model" alwaysOn resettable />,
    <BooleanInput key="id_sort" source="id_sort" label="app.channels.filters.id_sort" alwaysOn />,
  ];
};

/** Channels not enabled are greyed. */
const rowSx = (channel: Channel) => (channel.status !== CHANNEL_STATUS_ENABLED ? { opacity: 0.5 } : {});

const Empty = () => {
  const translate = useTranslate();
  return (
    <Box sx={{ p: 3, textAlign: 'center' }}>
      <Typography color="text.secondary">{translate('app.channels.empty')}</Typography>
    </Box>
  );
};

/**
 * /channel: every channel, 10 per page by default (the page size is kept in the browser with react-admin's store),
 * priority order or id order, searched by keyword, group and model.
 */
export const ChannelList = () => {
  const translate = useTranslate();
  const status = useStatus();
  const filters = useFilters();
  const refresh = useRefresh();
  const notify = useApiNotify();
  const onTick = useCallback(() => refresh(), [refresh]);
  const run = useChannelRun(onTick);
  const [starting, setStarting] = useState(false);
  const running = starting || (run.progress !== null && !run.progress.finished);

  const startRun = async (kind: RunKind) => {
    setStarting(true);
    try {
      await run.start(kind);
    } catch (error) {
      notify.error(error);
    } finally {
      setStarting(false);
    }
  };

  return (
    <RequireAdmin>
      <List
        resource="channel"
        title={translate('app.channels.title')}
        perPage={10}
        filters={filters}
        actions={<ListActions />}
        pagination={<Pagination rowsPerPageOptions={[10, 20, 50, 100]} />}
        exporter={false}
        empty={false}
        storeKey="channel.list"
        // A wide table scrolls inside its box instead of widening the page on a phone.
        sx={{
          maxWidth: { xs: 'calc(100vw - 16px)', md: 'none' },
          '& .RaList-main': { minWidth: 0 },
          '& .RaDataTable-tableWrapper': { overflowX: 'auto' },
        }}
      >
        {/* The all-channel actions get a row of their own: in the top toolbar they would wrap over the bulk toolbar. */}
        <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap', px: 1, py: 1 }}>
          <ChannelToolbarActions running={running} onRun={(kind) => void startRun(kind)} />
        </Stack>
        <RunProgressBanner progress={run.progress} onClose={run.clear} />
        <DataTable<Channel> rowClick={false} bulkActionButtons={<DeleteSelectedButton />} rowSx={rowSx} empty={<Empty />}>
          {columns(status).map(({ source, render }) => (
            <DataTable.Col<Channel> key={source} source={source} label={`app.channels.fields.${source}`} disableSort render={render} />
          ))}
          <DataTable.Col<Channel> label="app.channels.fields.actions">
            <ChannelRowActions />
          </DataTable.Col>
        </DataTable>
      </List>
    </RequireAdmin>
  );
};
