import { Button, Chip, Dialog, DialogActions, DialogContent, DialogTitle, Link, Typography } from '@mui/material';
import { useState } from 'react';
import { useTranslate } from 'react-admin';
import { elapsedColor, statusColor } from '../../components/task-list/TaskCells';
import type { MidjourneyTask } from './midjourneyEndpoints';

/** Seconds from submit to finish (or to now while running), coloured as new-api colours it (over 60 s red). */
export const ElapsedCell = ({ task }: { task: MidjourneyTask }) => {
  const translate = useTranslate();
  if (!task.submit_time) return null;
  const end = task.finish_time || Date.now();
  const seconds = Math.max(0, (end - task.submit_time) / 1000);
  return <Chip size="small" color={elapsedColor(seconds)} label={translate('app.midjourney.seconds', { seconds: seconds.toFixed(1) })} />;
};

export const ActionCell = ({ action }: { action: string }) => {
  const translate = useTranslate();
  return <Chip size="small" variant="outlined" label={translate(`app.midjourney.actions.${action}`, { _: action })} />;
};

export const StatusCell = ({ status }: { status: string }) => {
  const translate = useTranslate();
  return <Chip size="small" color={statusColor(status)} label={translate(`app.midjourney.statuses.${status || 'EMPTY'}`, { _: status })} />;
};

export const CodeCell = ({ code }: { code: number }) => {
  const translate = useTranslate();
  return (
    <Chip size="small" label={translate(`app.midjourney.codes.${code}`, { _: translate('app.midjourney.codes.unknown', { code }) })} />
  );
};

/**
 * The result image: a thumbnail that opens the image viewer (a dialog with the whole image and a link to the original
 * in a new tab). The thumbnail keeps the image's address as its link, so opening it in a new tab still works.
 */
export const ImageCell = ({ task }: { task: MidjourneyTask }) => {
  const translate = useTranslate();
  const [open, setOpen] = useState(false);
  if (!task.image_url) return <Typography variant="body2">{translate('app.midjourney.no_image')}</Typography>;
  const alt = translate('app.midjourney.image_alt', { id: task.mj_id });
  return (
    <>
      <Link
        href={task.image_url}
        target="_blank"
        rel="noreferrer"
        data-testid="mj-image"
        onClick={(event) => {
          if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return; // a new tab, as asked
          event.preventDefault();
          setOpen(true);
        }}
      >
        <img src={task.image_url} alt={alt} style={{ width: 64, height: 64, objectFit: 'cover' }} />
      </Link>
      <Dialog open={open} onClose={() => setOpen(false)} maxWidth="lg" data-testid="mj-image-viewer">
        <DialogTitle>{translate('app.midjourney.viewer_title', { id: task.mj_id })}</DialogTitle>
        <DialogContent>
          <img src={task.image_url} alt={alt} style={{ display: 'block', maxWidth: '100%', maxHeight: '75vh', margin: '0 auto' }} />
        </DialogContent>
        <DialogActions>
          <Button href={task.image_url} target="_blank" rel="noreferrer">
            {translate('app.midjourney.open_original')}
          </Button>
          <Button onClick={() => setOpen(false)}>{translate('app.midjourney.close')}</Button>
        </DialogActions>
      </Dialog>
    </>
  );
};
