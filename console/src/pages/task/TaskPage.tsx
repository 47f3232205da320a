import { useMemo } from 'react';
import { DataTable } from 'react-admin';
import { LongText, ProgressCell } from '../../components/task-list/TaskCells';
import { TaskListPage } from '../../components/task-list/TaskListPage';
import { PlatformCell, renderSeconds, TaskActionCell, TaskElapsedCell, TaskIdCell, TaskStatusCell } from './TaskCells';
import { type AsyncTask, startOfToday } from './taskEndpoints';

const SecondsCell = ({ seconds }: { seconds: number }) => <span style={{ whiteSpace: 'nowrap' }}>{renderSeconds(seconds)}</span>;

/**
 * /task (the Async tasks page): one's own Suno tasks, or every task for admins (with the channel column and filter),
 * newest first; filters on the task id and the submit time (from the start of today); a task id opens its JSON. The
 * list and its filter bar are TaskListPage's, shared with /midjourney.
 */
export const TaskPage = () => {
  const defaults = useMemo(() => ({ start: startOfToday() }), []);
  return (
    <TaskListPage<AsyncTask>
      resource="task"
      i18n="app.task"
      idSource="task_id"
      filterDefaultValues={defaults}
      columns={(admin) => [
        <DataTable.Col<AsyncTask>
          key="submit_time"
          source="submit_time"
          label="app.task.columns.submit_time"
          disableSort
          render={(task) => <SecondsCell seconds={task.submit_time} />}
        />,
        <DataTable.Col<AsyncTask>
          key="finish_time"
          source="finish_time"
          label="app.task.columns.finish_time"
          disableSort
          render={(task) => <SecondsCell seconds={task.finish_time} />}
        />,
        <DataTable.Col<AsyncTask>
          key="progress"
          source="progress"
          label="app.task.columns.progress"
          disableSort
          render={(task) => <ProgressCell progress={task.progress} />}
        />,
        <DataTable.Col<AsyncTask>
          key="elapsed"
          label="app.task.columns.elapsed"
          disableSort
          render={(task) => <TaskElapsedCell task={task} />}
        />,
        admin && <DataTable.Col<AsyncTask> key="channel_id" source="channel_id" label="app.task.columns.channel" disableSort />,
        <DataTable.Col<AsyncTask>
          key="platform"
          source="platform"
          label="app.task.columns.platform"
          disableSort
          render={(task) => <PlatformCell platform={task.platform} />}
        />,
        <DataTable.Col<AsyncTask>
          key="action"
          source="action"
          label="app.task.columns.action"
          disableSort
          render={(task) => <TaskActionCell action={task.action} />}
        />,
        <DataTable.Col<AsyncTask>
          key="task_id"
          source="task_id"
          label="app.task.columns.task_id"
          disableSort
          render={(task) => <TaskIdCell task={task} />}
        />,
        <DataTable.Col<AsyncTask>
          key="status"
          source="status"
          label="app.task.columns.status"
          disableSort
          render={(task) => <TaskStatusCell status={task.status} />}
        />,
        <DataTable.Col<AsyncTask>
          key="fail_reason"
          source="fail_reason"
          label="app.task.columns.fail_reason"
          disableSort
          render={(task) => <LongText text={task.fail_reason} />}
        />,
      ]}
    />
  );
};
