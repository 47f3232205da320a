import { Box, Chip, Tooltip, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import {
  CHANNEL_STATUS_AUTO_DISABLED,
  CHANNEL_STATUS_DISABLED,
  CHANNEL_STATUS_ENABLED,
  type Channel,
} from '../../providers/endpoints/channelEndpoints';
import { channelTypeName } from './channelTypes';

const pad = (value: number) => String(value).padStart(2, '0');

/** Seconds since the epoch as local `YYYY-MM-DD HH:mm:ss`. */
export const renderTimestamp = (seconds: number): string => {
  const date = new Date(seconds * 1000);
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
};

/** other_info's auto-disable reason and time; blank when the text is not JSON. */
export const statusDetails = (otherInfo: string): { reason: string; time: number } => {
  try {
    const parsed = JSON.parse(otherInfo || '{}') as { status_reason?: unknown; status_time?: unknown };
    return { reason: typeof parsed.status_reason === 'string' ? parsed.status_reason : '', time: Number(parsed.status_time ?? 0) || 0 };
  } catch {
    return { reason: '', time: 0 };
  }
};

/** 1 enabled, 2 disabled by hand, 3 auto-disabled (the reason and the time in a tooltip); anything else unknown. */
export const ChannelStatusTag = ({ channel }: { channel: Channel }) => {
  const translate = useTranslate();
  switch (channel.status) {
    case CHANNEL_STATUS_ENABLED:
      return <Chip size="small" color="success" label={translate('app.channels.status.enabled')} />;
    case CHANNEL_STATUS_DISABLED:
      return <Chip size="small" color="error" label={translate('app.channels.status.disabled')} />;
    case CHANNEL_STATUS_AUTO_DISABLED: {
      const { reason, time } = statusDetails(channel.other_info);
      const title = translate('app.channels.status.auto_disabled_tooltip', {
        reason: reason || translate('app.channels.status.no_reason'),
        time: time ? renderTimestamp(time) : '-',
      });
      return (
        <Tooltip title={title}>
          <Chip size="small" color="warning" label={translate('app.channels.status.auto_disabled')} data-testid="auto-disabled-tag" />
        </Tooltip>
      );
    }
    default:
      return <Chip size="small" label={translate('app.channels.status.unknown')} />;
  }
};

/** Colour of a response time: 0 untested (grey), up to 1 s green, 3 s lime, 5 s yellow, then red. */
export const responseTimeColour = (ms: number): string => {
  if (ms === 0) return 'grey';
  if (ms <= 1000) return 'green';
  if (ms <= 3000) return 'lime';
  if (ms <= 5000) return 'yellow';
  return 'red';
};

const COLOUR_SX: Record<string, object> = {
  grey: { bgcolor: 'action.selected', color: 'text.secondary' },
  green: { bgcolor: '#2e7d32', color: '#fff' },
  lime: { bgcolor: '#9e9d24', color: '#fff' },
  yellow: { bgcolor: '#f9a825', color: '#000' },
  red: { bgcolor: '#c62828', color: '#fff' },
};

export const ResponseTime = ({ channel }: { channel: Channel }) => {
  const translate = useTranslate();
  const colour = responseTimeColour(channel.response_time);
  const label =
    channel.response_time === 0
      ? translate('app.channels.not_tested')
      : translate('app.channels.seconds', { seconds: (channel.response_time / 1000).toFixed(2) });
  const chip = <Chip size="small" label={label} sx={COLOUR_SX[colour]} data-colour={colour} />;
  if (!channel.test_time) return chip;
  return <Tooltip title={translate('app.channels.tested_at', { time: renderTimestamp(channel.test_time) })}>{chip}</Tooltip>;
};

export const ChannelTypeCell = ({ channel }: { channel: Channel }) => {
  const translate = useTranslate();
  return <Chip size="small" variant="outlined" label={channelTypeName(channel.type, translate)} />;
};

/** Groups as small outlined chips. */
export const GroupsCell = ({ channel }: { channel: Channel }) => (
  <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 0.5 }}>
    {(channel.group || '')
      .split(',')
      .filter(Boolean)
      .map((group) => (
        <Chip key={group} size="small" variant="outlined" label={group} />
      ))}
  </Box>
);

/** The balance in dollars with the time it was last read from the upstream. */
export const BalanceCell = ({ channel }: { channel: Channel }) => {
  const translate = useTranslate();
  return (
    <Box>
      <Typography variant="body2">${channel.balance.toFixed(2)}</Typography>
      <Typography variant="caption" color="text.secondary" sx={{ whiteSpace: 'nowrap' }}>
        {channel.balance_updated_time
          ? translate('app.channels.balance_updated', { time: renderTimestamp(channel.balance_updated_time) })
          : translate('app.channels.balance_never')}
      </Typography>
    </Box>
  );
};
