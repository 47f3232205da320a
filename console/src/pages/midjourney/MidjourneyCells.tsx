import { Box, Button, Chip, Dialog, DialogActions, DialogContent, DialogTitle, LinearProgress, Link, Typography } from '@mui/material';
import { useState } from 'react';
import { useTranslate } from 'react-admin';
import type { MidjourneyTask } from './midjourneyEndpoints';

const pad = (value: number) => String(value).padStart(2, '0');

/** A millisecond time as local `YYYY-MM-DD HH:mm:ss`. */
export const renderMillis = (millis: number): string => {
  if (!millis) return '';
  const date = new Date(millis);
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
};

/** Seconds from submit to finish (or to now while running), coloured as new-api colours it (over 60 s red). */
export const ElapsedCell = ({ task }: { task: MidjourneyTask }) => {
  const translate = useTranslate();
  if (!task.submit_time) return null;
  const end = task.finish_time || Date.now();
  const seconds = Math.max(0, (end - task.submit_time) / 1000);
  const color = seconds < 10 ? 'success' : seconds < 60 ? 'warning' : 'error';
  return <Chip size="small" color={color} label={translate('app.midjourney.seconds', { seconds: seconds.toFixed(1) })} />;
};

export const ActionCell = ({ action }: { action: string }) => {
  const translate = useTranslate();
  return <Chip size="small" variant="outlined" label={translate(`app.midjourney.actions.${action}`, { _: action })} />;
};

export const StatusCell = ({ status }: { status: string }) => {
  const translate = useTranslate();
  const color = status === 'SUCCESS' ? 'success' : status === 'FAILURE' ? 'error' : status === '' ? 'default' : 'info';
  return <Chip size="small" color={color} label={translate(`app.midjourney.statuses.${status || 'EMPTY'}`, { _: status })} />;
};

export const CodeCell = ({ code }: { code: number }) => {
  const translate = useTranslate();
  return (
    <Chip size="small" label={translate(`app.midjourney.codes.${code}`, { _: translate('app.midjourney.codes.unknown', { code }) })} />
  );
};

/** The progress text as a bar and its percentage. */
export const ProgressCell = ({ progress }: { progress: string }) => {
  const value = Number.parseFloat(progress);
  if (!progress) return null;
  return (
    <Box sx={{ minWidth: 90 }}>
      <LinearProgress variant="determinate" value={Number.isFinite(value) ? Math.min(100, Math.max(0, value)) : 0} />
      <Typography variant="caption">{progress}</Typography>
    </Box>
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

/** Long text (prompts, the failure reason) clipped to two lines, whole on hover. */
export const LongText = ({ text }: { text: string }) => (
  <Typography
    variant="body2"
    title={text}
    sx={{ maxWidth: 240, overflow: 'hidden', display: '-webkit-box', WebkitLineClamp: 2, WebkitBoxOrient: 'vertical' }}
  >
    {text}
  </Typography>
);
