import { useEffect, useState } from 'react';
import { TextField } from '@mui/material';
import { useRefresh, useTranslate } from 'react-admin';
import { useApiNotify } from '../../hooks/useApiNotify';
import { type Channel, patchChannel } from '../../providers/endpoints/channelEndpoints';
import { clampPriority, clampWeight } from './channelForm';

/** Priority (minimum -999) or weight (minimum 0, negatives become 0), saved when the field is left or Enter is pressed. */
export const InlineNumber = ({ channel, field }: { channel: Channel; field: 'priority' | 'weight' }) => {
  const translate = useTranslate();
  const notify = useApiNotify();
  const refresh = useRefresh();
  const stored = channel[field] ?? 0;
  const [text, setText] = useState(String(stored));
  const [busy, setBusy] = useState(false);
  useEffect(() => setText(String(stored)), [stored]);

  const save = async () => {
    const parsed = Number.parseInt(text, 10);
    const value = field === 'priority' ? clampPriority(parsed) : clampWeight(parsed);
    setText(String(value));
    if (value === stored || Number.isNaN(parsed)) {
      setText(String(stored));
      return;
    }
    setBusy(true);
    try {
      await patchChannel(channel.id, { [field]: value });
      notify.success('app.channels.updated');
      refresh();
    } catch (error) {
      setText(String(stored));
      notify.error(error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <TextField
      size="small"
      type="number"
      value={text}
      disabled={busy}
      onChange={(event) => setText(event.target.value)}
      onBlur={() => void save()}
      onKeyDown={(event) => {
        if (event.key === 'Enter') (event.target as HTMLInputElement).blur();
      }}
      onClick={(event) => event.stopPropagation()}
      slotProps={{
        htmlInput: { min: field === 'priority' ? -999 : 0, 'aria-label': translate(`app.channels.fields.${field}`), style: { width: 56 } },
      }}
      variant="outlined"
    />
  );
};
