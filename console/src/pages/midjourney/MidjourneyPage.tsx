import { Alert } from '@mui/material';
import { DataTable, useTranslate } from 'react-admin';
import { LongText, ProgressCell, TimeCell } from '../../components/task-list/TaskCells';
import { TaskListPage, useIsAdmin } from '../../components/task-list/TaskListPage';
import { useStatus } from '../../providers/statusStore';
import { ActionCell, CodeCell, ElapsedCell, ImageCell, StatusCell } from './MidjourneyCells';
import type { MidjourneyTask } from './midjourneyEndpoints';

/**
 * /midjourney (the Drawing page): one's own drawing tasks, or every task for admins (with channel, submit result and
 * status columns and the channel filter), newest first; filters on the task id and the submit time. Admins are told
 * when the Midjourney callback is off. The list and its filter bar are TaskListPage's, shared with /task.
 */
export const MidjourneyPage = () => {
  const translate = useTranslate();
  const status = useStatus();
  const isAdmin = useIsAdmin();
  return (
    <TaskListPage<MidjourneyTask>
      resource="midjourney"
      i18n="app.midjourney"
      idSource="mj_id"
      banner={
        isAdmin && status.mj_notify_enabled !== true ? (
          <Alert severity="info" sx={{ mt: 1 }} data-testid="mj-notify-banner">
            {translate('app.midjourney.notify_off')}
          </Alert>
        ) : null
      }
      columns={(admin) => [
        <DataTable.Col<MidjourneyTask>
          key="submit_time"
          source="submit_time"
          label="app.midjourney.columns.submit_time"
          disableSort
          render={(task) => <TimeCell millis={task.submit_time} />}
        />,
        <DataTable.Col<MidjourneyTask>
          key="elapsed"
          label="app.midjourney.columns.elapsed"
          disableSort
          render={(task) => <ElapsedCell task={task} />}
        />,
        admin && <DataTable.Col<MidjourneyTask> key="channel_id" source="channel_id" label="app.midjourney.columns.channel" disableSort />,
        <DataTable.Col<MidjourneyTask>
          key="action"
          source="action"
          label="app.midjourney.columns.action"
          disableSort
          render={(task) => <ActionCell action={task.action} />}
        />,
        <DataTable.Col<MidjourneyTask> key="mj_id" source="mj_id" label="app.midjourney.columns.mj_id" disableSort />,
        admin && (
          <DataTable.Col<MidjourneyTask>
            key="code"
            source="code"
            label="app.midjourney.columns.code"
            disableSort
            render={(task) => <CodeCell code={task.code} />}
          />
        ),
        admin && (
          <DataTable.Col<MidjourneyTask>
            key="status"
            source="status"
            label="app.midjourney.columns.status"
            disableSort
            render={(task) => <StatusCell status={task.status} />}
          />
        ),
        <DataTable.Col<MidjourneyTask>
          key="progress"
          source="progress"
          label="app.midjourney.columns.progress"
          disableSort
          render={(task) => <ProgressCell progress={task.progress} />}
        />,
        <DataTable.Col<MidjourneyTask>
          key="image"
          label="app.midjourney.columns.image"
          disableSort
          render={(task) => <ImageCell task={task} />}
        />,
        <DataTable.Col<MidjourneyTask>
          key="prompt"
          source="prompt"
          label="app.midjourney.columns.prompt"
          disableSort
          render={(task) => <LongText text={task.prompt} />}
        />,
        <DataTable.Col<MidjourneyTask>
          key="prompt_en"
          source="prompt_en"
          label="app.midjourney.columns.prompt_en"
          disableSort
          render={(task) => <LongText text={task.prompt_en} />}
        />,
        <DataTable.Col<MidjourneyTask>
          key="fail_reason"
          source="fail_reason"
          label="app.midjourney.columns.fail_reason"
          disableSort
          render={(task) => <LongText text={task.fail_reason} />}
        />,
      ]}
    />
  );
};
