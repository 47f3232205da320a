import { Box } from '@mui/material';
import { useMemo } from 'react';
import { Authenticated, DataTable, DateTimeInput, List, Pagination, TextInput, useTranslate } from 'react-admin';
import { useSessionUser } from '../../hooks/useSessionUser';
import { ROLE_ADMIN } from '../../lib/types';
import { LongText, ProgressCell } from '../midjourney/MidjourneyCells';
import { PlatformCell, renderSeconds, TaskActionCell, TaskElapsedCell, TaskIdCell, TaskStatusCell } from './TaskCells';
import { type AsyncTask, startOfToday } from './taskEndpoints';

const PAGE_SIZES = [10, 20, 50, 100];

/**
 * /task (the Async tasks page): one's own Suno tasks, or every task for admins (with the channel column and filter),
 * newest first; filters on the task id and the submit time (from the start of today); a task id opens its JSON.
 */
export const TaskPage = () => {
  const translate = useTranslate();
  const user = useSessionUser();
  const isAdmin = (user?.role ?? 0) >= ROLE_ADMIN;
  const filters = useMemo(() => {
    const list = [
      <TextInput key="task_id" source="task_id" label="app.task.filters.task_id" alwaysOn resettable />,
      <DateTimeInput key="start" source="start" label="app.task.filters.start" alwaysOn />,
      <DateTimeInput key="end" source="end" label="app.task.filters.end" alwaysOn />,
    ];
    if (isAdmin) list.unshift(<TextInput key="channel_id" source="channel_id" label="app.task.filters.channel_id" alwaysOn resettable />);
    return list;
  }, [isAdmin]);
  const defaults = useMemo(() => ({ start: startOfToday() }), []);
  return (
    <Authenticated>
      <List<AsyncTask>
        resource="task"
        title={translate('app.task.title')}
        storeKey={false}
        filters={filters}
        filterDefaultValues={defaults}
        perPage={10}
        pagination={<Pagination rowsPerPageOptions={PAGE_SIZES} />}
        exporter={false}
        empty={false}
        actions={false}
        sort={{ field: 'id', order: 'DESC' }}
      >
        <Box sx={{ width: 0, minWidth: '100%', overflowX: 'auto' }}>
          <DataTable<AsyncTask> rowClick={false} bulkActionButtons={false}>
            <DataTable.Col<AsyncTask>
              source="submit_time"
              label="app.task.columns.submit_time"
              disableSort
              render={(task) => <span style={{ whiteSpace: 'nowrap' }}>{renderSeconds(task.submit_time)}</span>}
            />
            <DataTable.Col<AsyncTask>
              source="finish_time"
              label="app.task.columns.finish_time"
              disableSort
              render={(task) => <span style={{ whiteSpace: 'nowrap' }}>{renderSeconds(task.finish_time)}</span>}
            />
            <DataTable.Col<AsyncTask>
              source="progress"
              label="app.task.columns.progress"
              disableSort
              render={(task) => <ProgressCell progress={task.progress} />}
            />
            <DataTable.Col<AsyncTask> label="app.task.columns.elapsed" disableSort render={(task) => <TaskElapsedCell task={task} />} />
            {isAdmin && <DataTable.Col<AsyncTask> source="channel_id" label="app.task.columns.channel" disableSort />}
            <DataTable.Col<AsyncTask>
              source="platform"
              label="app.task.columns.platform"
              disableSort
              render={(task) => <PlatformCell platform={task.platform} />}
            />
            <DataTable.Col<AsyncTask>
              source="action"
              label="app.task.columns.action"
              disableSort
              render={(task) => <TaskActionCell action={task.action} />}
            />
            <DataTable.Col<AsyncTask>
              source="task_id"
              label="app.task.columns.task_id"
              disableSort
              render={(task) => <TaskIdCell task={task} />}
            />
            <DataTable.Col<AsyncTask>
              source="status"
              label="app.task.columns.status"
              disableSort
              render={(task) => <TaskStatusCell status={task.status} />}
            />
            <DataTable.Col<AsyncTask>
              source="fail_reason"
              label="app.task.columns.fail_reason"
              disableSort
              render={(task) => <LongText text={task.fail_reason} />}
            />
          </DataTable>
        </Box>
      </List>
    </Authenticated>
  );
};
