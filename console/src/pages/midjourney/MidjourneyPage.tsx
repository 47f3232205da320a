import { Alert, Box } from '@mui/material';
import { useMemo } from 'react';
import { Authenticated, DataTable, DateTimeInput, List, Pagination, TextInput, useTranslate } from 'react-admin';
import { useSessionUser } from '../../hooks/useSessionUser';
import { ROLE_ADMIN } from '../../lib/types';
import { useStatus } from '../../providers/statusStore';
import { ActionCell, CodeCell, ElapsedCell, ImageCell, LongText, ProgressCell, renderMillis, StatusCell } from './MidjourneyCells';
import type { MidjourneyTask } from './midjourneyEndpoints';

const PAGE_SIZES = [10, 20, 50, 100];

/**
 * /midjourney (the Drawing page): one's own drawing tasks, or every task for admins (with channel, submit result and
 * status columns and the channel filter), newest first; filters on the task id and the submit time. Admins are told
 * when the Midjourney callback is off.
 */
export const MidjourneyPage = () => {
  const translate = useTranslate();
  const user = useSessionUser();
  const status = useStatus();
  const isAdmin = (user?.role ?? 0) >= ROLE_ADMIN;
  const filters = useMemo(() => {
    const list = [
      <TextInput key="mj_id" source="mj_id" label="app.midjourney.filters.mj_id" alwaysOn resettable />,
      <DateTimeInput key="start" source="start" label="app.midjourney.filters.start" alwaysOn />,
      <DateTimeInput key="end" source="end" label="app.midjourney.filters.end" alwaysOn />,
    ];
    if (isAdmin)
      list.unshift(<TextInput key="channel_id" source="channel_id" label="app.midjourney.filters.channel_id" alwaysOn resettable />);
    return list;
  }, [isAdmin]);
  return (
    <Authenticated>
      {isAdmin && status.mj_notify_enabled !== true && (
        <Alert severity="info" sx={{ mt: 1 }} data-testid="mj-notify-banner">
          {translate('app.midjourney.notify_off')}
        </Alert>
      )}
      <List<MidjourneyTask>
        resource="midjourney"
        title={translate('app.midjourney.title')}
        storeKey={false}
        filters={filters}
        perPage={10}
        pagination={<Pagination rowsPerPageOptions={PAGE_SIZES} />}
        exporter={false}
        empty={false}
        actions={false}
        sort={{ field: 'id', order: 'DESC' }}
      >
        <Box sx={{ width: 0, minWidth: '100%', overflowX: 'auto' }}>
          <DataTable<MidjourneyTask> rowClick={false} bulkActionButtons={false}>
            <DataTable.Col<MidjourneyTask>
              source="submit_time"
              label="app.midjourney.columns.submit_time"
              disableSort
              render={(task) => <span style={{ whiteSpace: 'nowrap' }}>{renderMillis(task.submit_time)}</span>}
            />
            <DataTable.Col<MidjourneyTask>
              label="app.midjourney.columns.elapsed"
              disableSort
              render={(task) => <ElapsedCell task={task} />}
            />
            {isAdmin && <DataTable.Col<MidjourneyTask> source="channel_id" label="app.midjourney.columns.channel" disableSort />}
            <DataTable.Col<MidjourneyTask>
              source="action"
              label="app.midjourney.columns.action"
              disableSort
              render={(task) => <ActionCell action={task.action} />}
            />
            <DataTable.Col<MidjourneyTask> source="mj_id" label="app.midjourney.columns.mj_id" disableSort />
            {isAdmin && (
              <DataTable.Col<MidjourneyTask>
                source="code"
                label="app.midjourney.columns.code"
                disableSort
                render={(task) => <CodeCell code={task.code} />}
              />
            )}
            {isAdmin && (
              <DataTable.Col<MidjourneyTask>
                source="status"
                label="app.midjourney.columns.status"
                disableSort
                render={(task) => <StatusCell status={task.status} />}
              />
            )}
            <DataTable.Col<MidjourneyTask>
              source="progress"
              label="app.midjourney.columns.progress"
              disableSort
              render={(task) => <ProgressCell progress={task.progress} />}
            />
            <DataTable.Col<MidjourneyTask> label="app.midjourney.columns.image" disableSort render={(task) => <ImageCell task={task} />} />
            <DataTable.Col<MidjourneyTask>
              source="prompt"
              label="app.midjourney.columns.prompt"
              disableSort
              render={(task) => <LongText text={task.prompt} />}
            />
            <DataTable.Col<MidjourneyTask>
              source="prompt_en"
              label="app.midjourney.columns.prompt_en"
              disableSort
              render={(task) => <LongText text={task.prompt_en} />}
            />
            <DataTable.Col<MidjourneyTask>
              source="fail_reason"
              label="app.midjourney.columns.fail_reason"
              disableSort
              render={(task) => <LongText text={task.fail_reason} />}
            />
          </DataTable>
        </Box>
      </List>
    </Authenticated>
  );
};
