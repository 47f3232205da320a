import { Button, Chip, Dialog, DialogActions, DialogContent, DialogTitle, Link } from '@mui/material';
import { useState } from 'react';
import { useTranslate } from 'react-admin';
import { elapsedColor, renderLocalTime, statusColor } from '../../components/task-list/TaskCells';
import type { AsyncTask } from './taskEndpoints';

/** A time in seconds as local `YYYY-MM-DD HH:mm:ss`. */
export const renderSeconds = (seconds: number): string => renderLocalTime(seconds * 1000);

/** Seconds from submit to finish (or to now while running); over 60 s red. */
export const TaskElapsedCell = ({ task }: { task: AsyncTask }) => {
  const translate = useTranslate();
  if (!task.submit_time) return null;
  const end = task.finish_time || Math.floor(Date.now() / 1000);
  const seconds = Math.max(0, end - task.submit_time);
  return <Chip size="small" color={elapsedColor(seconds)} label={translate('app.task.seconds', { seconds })} />;
};

export const PlatformCell = ({ platform }: { platform: string }) => {
  const translate = useTranslate();
  return <Chip size="small" variant="outlined" label={translate(`app.task.platforms.${platform}`, { _: platform })} />;
};

export const TaskActionCell = ({ action }: { action: string }) => {
  const translate = useTranslate();
  return <Chip size="small" variant="outlined" label={translate(`app.task.actions.${action}`, { _: action || '-' })} />;
};

export const TaskStatusCell = ({ status }: { status: string }) => {
  const translate = useTranslate();
  return <Chip size="small" color={statusColor(status)} label={translate(`app.task.statuses.${status || 'EMPTY'}`, { _: status })} />;
};

/** The task id; a click shows the whole task as JSON in a dialog. */
export const TaskIdCell = ({ task }: { task: AsyncTask }) => {
  const translate = useTranslate();
  const [open, setOpen] = useState(false);
  return (
    <>
      <Link component="button" type="button" variant="body2" onClick={() => setOpen(true)} data-testid="task-id">
        {task.task_id}
      </Link>
      <Dialog open={open} onClose={() => setOpen(false)} fullWidth maxWidth="md">
        <DialogTitle>{translate('app.task.json_title', { id: task.task_id })}</DialogTitle>
        <DialogContent>
          <pre data-testid="task-json" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all', margin: 0 }}>
            {JSON.stringify(task, null, 2)}
          </pre>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setOpen(false)}>{translate('app.task.close')}</Button>
        </DialogActions>
      </Dialog>
    </>
  );
};
