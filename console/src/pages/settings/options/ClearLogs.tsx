import { useState } from 'react';
import {
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  Divider,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { useTranslate } from 'react-admin';
import { useApiNotify } from '../../../hooks/useApiNotify';
import { apiRequest, errorMessage } from '../../../providers/httpClient';

/** Deletes every log written before the chosen time (DELETE /api/log/?target_timestamp=unix seconds). */
export const ClearLogs = () => {
  const translate = useTranslate();
  const notify = useApiNotify();
  const [when, setWhen] = useState('');
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState('');

  const ask = () => {
    if (!when || Number.isNaN(new Date(when).getTime())) return notify.failure('app.options.logs_time_required');
    setConfirming(true);
  };

  const clear = async () => {
    setConfirming(false);
    setBusy(true);
    try {
      const timestamp = Math.floor(new Date(when).getTime() / 1000);
      const count = await apiRequest<number>('/api/log/', { method: 'DELETE', query: { target_timestamp: timestamp } });
      const text = translate('app.options.logs_cleared', { count: count ?? 0 });
      setResult(text);
      notify.success('app.options.logs_cleared', { count: count ?? 0 });
    } catch (error) {
      setResult(translate('app.options.logs_clear_failed', { message: errorMessage(error) }));
      notify.failure('app.options.logs_clear_failed', { message: errorMessage(error) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <Divider sx={{ my: 2 }} />
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1} sx={{ alignItems: { sm: 'center' } }}>
        <TextField
          type="datetime-local"
          label={translate('app.options.logs_time')}
          value={when}
          onChange={(event) => setWhen(event.target.value)}
          size="small"
          slotProps={{ inputLabel: { shrink: true } }}
          sx={{ width: { xs: '100%', sm: 280 } }}
        />
        <Button
          variant="outlined"
          color="error"
          onClick={ask}
          disabled={busy}
          sx={{ flexShrink: 0, alignSelf: { xs: 'flex-start', sm: 'auto' } }}
        >
          {translate('app.options.logs_clear')}
        </Button>
      </Stack>
      {result ? (
        <Typography variant="body2" sx={{ mt: 1 }} role="status">
          {result}
        </Typography>
      ) : null}
      <Dialog open={confirming} onClose={() => setConfirming(false)} maxWidth="xs" fullWidth>
        <DialogTitle>{translate('app.options.logs_clear')}</DialogTitle>
        <DialogContent>
          <DialogContentText>{translate('app.options.logs_clear_confirm', { time: when.replace('T', ' ') })}</DialogContentText>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setConfirming(false)}>{translate('app.common.cancel')}</Button>
          <Button color="error" variant="contained" onClick={clear}>
            {translate('app.options.logs_clear')}
          </Button>
        </DialogActions>
      </Dialog>
    </>
  );
};
