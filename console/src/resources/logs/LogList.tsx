import { useEffect, useMemo } from 'react';
import { Box } from '@mui/material';
import {
  Authenticated,
  DataTable,
  DateTimeInput,
  List,
  Pagination,
  SelectInput,
  TextInput,
  TopToolbar,
  useListContext,
  useStore,
  useTranslate,
} from 'react-admin';
import { useSessionUser } from '../../hooks/useSessionUser';
import { renderQuota } from '../../lib/quota';
import { ROLE_ADMIN } from '../../lib/types';
import type { LogEntry, LogListFilter } from '../../providers/endpoints/logEndpoints';
import { useStatus } from '../../providers/statusStore';
import { CopyTag, LogTypeChip, RetryPathCell, renderLogTime, UseTimeCell } from './LogCells';
import { LogDetailsCell } from './LogDetailsCell';
import { LogStatChips } from './LogStatChips';
import { LogUserCell } from './LogUserCell';
import { isConsumption, LOG_TYPES } from './logOther';
import { PurgeLogsButton } from './PurgeLogsDialog';

const PAGE_SIZES = [10, 20, 50, 100];
const PAGE_SIZE_KEY = 'logs.pageSize';

const pad = (value: number) => String(value).padStart(2, '0');
const minuteText = (date: Date) =>
  `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;

/** new-api's default range: from the start of today to an hour from now. */
const defaultRange = (): LogListFilter => {
  const start = new Date();
  start.setHours(0, 0, 0, 0);
  return { start: minuteText(start), end: minuteText(new Date(Date.now() + 3600_000)) };
};

const useLogFilters = (isAdmin: boolean) => {
  const translate = useTranslate();
  return useMemo(() => {
    const filters = [
      <TextInput key="token_name" source="token_name" label="app.logs.filters.token_name" alwaysOn resettable />,
      <TextInput key="model_name" source="model_name" label="app.logs.filters.model_name" alwaysOn resettable />,
      <DateTimeInput key="start" source="start" label="app.logs.filters.start" alwaysOn />,
      <DateTimeInput key="end" source="end" label="app.logs.filters.end" alwaysOn />,
    ];
    if (isAdmin) {
      filters.push(
        <TextInput key="channel" source="channel" label="app.logs.filters.channel" alwaysOn resettable />,
        <TextInput key="username" source="username" label="app.logs.filters.username" alwaysOn resettable />,
      );
    }
    filters.push(
      <SelectInput
        key="type"
        source="type"
        label="app.logs.filters.type"
        alwaysOn
        emptyText="app.logs.types.all"
        choices={LOG_TYPES.map((type) => ({ id: type, name: translate(`app.logs.types.${type}`) }))}
        // The empty value reads "all", as new-api's type select does.
        slotProps={{ select: { displayEmpty: true }, inputLabel: { shrink: true } }}
        sx={{ minWidth: 140 }}
      />,
    );
    return filters;
  }, [isAdmin, translate]);
};

/** Remembers the chosen page size locally (new-api kept it in localStorage). */
const PageSizeKeeper = () => {
  const { perPage } = useListContext();
  const [, setStored] = useStore<number>(PAGE_SIZE_KEY, 10);
  useEffect(() => {
    if (PAGE_SIZES.includes(perPage)) setStored(perPage);
  }, [perPage, setStored]);
  return null;
};

const consumption = (log: LogEntry) => isConsumption(log.type);

/**
 * /log: everyone's own usage logs; admins see every user's, with channel and user columns and filters, the retry
 * path, and a button to clear old logs. Summary chips over the same filters sit above the table.
 */
export const LogList = () => {
  const translate = useTranslate();
  const status = useStatus();
  const user = useSessionUser();
  const isAdmin = (user?.role ?? 0) >= ROLE_ADMIN;
  const filters = useLogFilters(isAdmin);
  const [perPage] = useStore<number>(PAGE_SIZE_KEY, 10);
  const defaults = useMemo(defaultRange, []);
  return (
    <Authenticated>
      <List<LogEntry>
        resource="log"
        title={translate('app.logs.title')}
        perPage={PAGE_SIZES.includes(perPage) ? perPage : 10}
        storeKey={false}
        filters={filters}
        filterDefaultValues={defaults}
        actions={isAdmin ? <TopToolbar>{<PurgeLogsButton />}</TopToolbar> : false}
        pagination={<Pagination rowsPerPageOptions={PAGE_SIZES} />}
        exporter={false}
        empty={false}
        sort={{ field: 'id', order: 'DESC' }}
      >
        <PageSizeKeeper />
        <LogStatChips />
        {/* Width 0 and min-width 100%: the table adds no width to the page (react-admin's layout grows to fit its
            content) and scrolls sideways in its own box on a narrow screen. */}
        <Box sx={{ width: 0, minWidth: '100%', overflowX: 'auto' }}>
          <DataTable<LogEntry> rowClick={false} bulkActionButtons={false}>
            <DataTable.Col<LogEntry>
              source="created_at"
              label="app.logs.columns.time"
              disableSort
              render={(log) => <span style={{ whiteSpace: 'nowrap' }}>{renderLogTime(log.created_at)}</span>}
            />
            {isAdmin && (
              <DataTable.Col<LogEntry>
                source="channel"
                label="app.logs.columns.channel"
                disableSort
                render={(log) => (log.channel ? <CopyTag text={String(log.channel)} testId="log-channel" /> : null)}
              />
            )}
            {isAdmin && (
              <DataTable.Col<LogEntry>
                source="username"
                label="app.logs.columns.user"
                disableSort
                render={(log) => <LogUserCell userId={log.user_id} username={log.username} />}
              />
            )}
            <DataTable.Col<LogEntry>
              source="token_name"
              label="app.logs.columns.token"
              disableSort
              render={(log) => (consumption(log) ? <CopyTag text={log.token_name} testId="log-token" /> : null)}
            />
            <DataTable.Col<LogEntry>
              source="type"
              label="app.logs.columns.type"
              disableSort
              render={(log) => <LogTypeChip type={log.type} />}
            />
            <DataTable.Col<LogEntry>
              source="model_name"
              label="app.logs.columns.model"
              disableSort
              render={(log) => (consumption(log) ? <CopyTag text={log.model_name} testId="log-model" /> : null)}
            />
            <DataTable.Col<LogEntry>
              source="use_time"
              label="app.logs.columns.use_time"
              disableSort
              render={(log) => (consumption(log) ? <UseTimeCell log={log} /> : null)}
            />
            <DataTable.Col<LogEntry>
              source="prompt_tokens"
              label="app.logs.columns.prompt"
              disableSort
              render={(log) => (consumption(log) ? <span data-testid="log-prompt">{log.prompt_tokens}</span> : null)}
            />
            <DataTable.Col<LogEntry>
              source="completion_tokens"
              label="app.logs.columns.completion"
              disableSort
              render={(log) => (consumption(log) ? <span data-testid="log-completion">{log.completion_tokens}</span> : null)}
            />
            <DataTable.Col<LogEntry>
              source="quota"
              label="app.logs.columns.cost"
              disableSort
              render={(log) => (consumption(log) ? <span data-testid="log-cost">{renderQuota(log.quota, status, 6)}</span> : null)}
            />
            {isAdmin && (
              <DataTable.Col<LogEntry>
                source="other"
                label="app.logs.columns.retry"
                disableSort
                render={(log) => (consumption(log) ? <RetryPathCell log={log} /> : null)}
              />
            )}
            <DataTable.Col<LogEntry>
              source="content"
              label="app.logs.columns.details"
              disableSort
              render={(log) => <LogDetailsCell log={log} />}
            />
          </DataTable>
        </Box>
      </List>
    </Authenticated>
  );
};
