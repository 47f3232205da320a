import { Box } from '@mui/material';
import { type ReactNode, useMemo } from 'react';
import { Authenticated, DataTable, DateTimeInput, List, Pagination, type RaRecord, TextInput, useTranslate } from 'react-admin';
import { useSessionUser } from '../../hooks/useSessionUser';
import { ROLE_ADMIN } from '../../lib/types';

const PAGE_SIZES = [10, 20, 50, 100];

/** Whether the signed-in user is an admin (who sees every task, the channel column and filter). */
export const useIsAdmin = (): boolean => (useSessionUser()?.role ?? 0) >= ROLE_ADMIN;

export interface TaskListPageProps {
  /** The react-admin resource (its dataProvider endpoint). */
  resource: string;
  /** The page's i18n namespace: `<ns>.title` and `<ns>.filters.{channel_id,<idSource>,start,end}`. */
  i18n: string;
  /** The task-id filter's field (`mj_id`, `task_id`). */
  idSource: string;
  /** Filter values the page opens with. */
  filterDefaultValues?: Record<string, unknown>;
  /** Shown above the list (e.g. the admin's callback-off banner). */
  banner?: ReactNode;
  /** The table's columns; admins may see more. */
  columns: (isAdmin: boolean) => ReactNode;
}

/**
 * The list shared by /midjourney and /task: one's own tasks, or every task for admins (who also get the channel
 * filter), newest first, ten a page; the filter bar (channel id for admins, the task id, the submit-time range, all
 * always shown); the table scrolls inside its box on a narrow screen.
 */
export const TaskListPage = <RecordType extends RaRecord>({
  resource,
  i18n,
  idSource,
  filterDefaultValues,
  banner,
  columns,
}: TaskListPageProps) => {
  const translate = useTranslate();
  const isAdmin = useIsAdmin();
  const filters = useMemo(() => {
    const list = [
      <TextInput key={idSource} source={idSource} label={`${i18n}.filters.${idSource}`} alwaysOn resettable />,
      <DateTimeInput key="start" source="start" label={`${i18n}.filters.start`} alwaysOn />,
      <DateTimeInput key="end" source="end" label={`${i18n}.filters.end`} alwaysOn />,
    ];
    if (isAdmin) list.unshift(<TextInput key="channel_id" source="channel_id" label={`${i18n}.filters.channel_id`} alwaysOn resettable />);
    return list;
  }, [isAdmin, i18n, idSource]);
  return (
    <Authenticated>
      {banner}
      <List<RecordType>
        resource={resource}
        title={translate(`${i18n}.title`)}
        storeKey={false}
        filters={filters}
        filterDefaultValues={filterDefaultValues}
        perPage={10}
        pagination={<Pagination rowsPerPageOptions={PAGE_SIZES} />}
        exporter={false}
        empty={false}
        actions={false}
        sort={{ field: 'id', order: 'DESC' }}
      >
        <Box sx={{ width: 0, minWidth: '100%', overflowX: 'auto' }}>
          <DataTable<RecordType> rowClick={false} bulkActionButtons={false}>
            {columns(isAdmin)}
          </DataTable>
        </Box>
      </List>
    </Authenticated>
  );
};
