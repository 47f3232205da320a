import { Box, LinearProgress, Typography } from '@mui/material';

const pad = (value: number) => String(value).padStart(2, '0');

/** A time in milliseconds as local `YYYY-MM-DD HH:mm:ss` ('' for 0). */
export const renderLocalTime = (millis: number): string => {
  if (!millis) return '';
  const date = new Date(millis);
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
};

/** The colour of an elapsed-time chip, as new-api colours it: under 10 s green, under 60 s amber, else red. */
export const elapsedColor = (seconds: number): 'success' | 'warning' | 'error' =>
  seconds < 10 ? 'success' : seconds < 60 ? 'warning' : 'error';

/** The colour of a task status chip. */
export const statusColor = (status: string): 'success' | 'error' | 'default' | 'info' =>
  status === 'SUCCESS' ? 'success' : status === 'FAILURE' ? 'error' : status === '' ? 'default' : 'info';

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

/** A time column's cell: the local time, on one line. */
export const TimeCell = ({ millis }: { millis: number }) => <span style={{ whiteSpace: 'nowrap' }}>{renderLocalTime(millis)}</span>;
