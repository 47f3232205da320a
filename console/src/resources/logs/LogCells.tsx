import { Chip, Stack, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import { useCopy } from '../../hooks/useCopy';
import type { LogEntry } from '../../providers/endpoints/logEndpoints';
import { channelPath, firstTokenColour, parseLogOther, useTimeColour } from './logOther';

const pad = (value: number) => String(value).padStart(2, '0');

/** Seconds since the epoch as local `YYYY-MM-DD HH:mm:ss`. */
export const renderLogTime = (seconds: number): string => {
  const date = new Date(seconds * 1000);
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
};

const TYPE_COLOURS: Record<number, 'info' | 'success' | 'warning' | 'secondary'> = {
  1: 'info',
  2: 'success',
  3: 'warning',
  4: 'secondary',
};

/** 1 top-up, 2 consumption, 3 admin, 4 system, anything else unknown. */
export const LogTypeChip = ({ type }: { type: number }) => {
  const translate = useTranslate();
  const colour = TYPE_COLOURS[type];
  const label = colour ? translate(`app.logs.types.${type}`) : translate('app.logs.types.unknown');
  return <Chip size="small" color={colour ?? 'default'} variant={colour ? 'filled' : 'outlined'} label={label} data-testid="log-type" />;
};

/** A tag that copies its text when clicked (token and model names, as new-api's log table does). */
export const CopyTag = ({ text, testId }: { text: string; testId: string }) => {
  const copy = useCopy();
  if (!text) return null;
  return <Chip size="small" variant="outlined" label={text} onClick={() => void copy(text, 'app.logs.copied')} data-testid={testId} />;
};

/** Time used (green under 101 s, orange under 300, else red), the first-token time of a stream, and stream or not. */
export const UseTimeCell = ({ log }: { log: LogEntry }) => {
  const translate = useTranslate();
  const frt = log.is_stream ? parseLogOther(log.other)?.frt : undefined;
  const firstToken = typeof frt === 'number' && frt >= 0 ? frt / 1000 : null;
  return (
    <Stack direction="row" spacing={0.5} sx={{ flexWrap: 'nowrap' }} data-testid="log-use-time">
      <Chip size="small" color={useTimeColour(log.use_time)} label={translate('app.logs.seconds', { seconds: log.use_time })} />
      {firstToken !== null && (
        <Chip
          size="small"
          color={firstTokenColour(firstToken)}
          label={translate('app.logs.seconds', { seconds: firstToken.toFixed(1) })}
          data-testid="log-first-token"
        />
      )}
      <Chip
        size="small"
        variant="outlined"
        color={log.is_stream ? 'primary' : 'secondary'}
        label={translate(log.is_stream ? 'app.logs.stream' : 'app.logs.non_stream')}
      />
    </Stack>
  );
};

/** The channels tried for the request, first to last (admins see `admin_info.use_channel`). */
export const RetryPathCell = ({ log }: { log: LogEntry }) => {
  const translate = useTranslate();
  const path = channelPath(parseLogOther(log.other), log.channel);
  if (path.length === 0) return null;
  return (
    <Typography variant="body2" noWrap data-testid="log-retry">
      {translate('app.logs.retry_path', { path: path.join('->') })}
    </Typography>
  );
};

/** Long content is cut to two lines; the whole text is its tooltip. */
export const ContentText = ({ text }: { text: string }) => (
  <Typography
    variant="body2"
    title={text}
    sx={{
      minWidth: 180,
      maxWidth: 240,
      overflow: 'hidden',
      display: '-webkit-box',
      WebkitLineClamp: 2,
      WebkitBoxOrient: 'vertical',
      wordBreak: 'break-all',
    }}
  >
    {text}
  </Typography>
);
