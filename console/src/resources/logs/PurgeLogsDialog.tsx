import { useState } from 'react';
import { Button, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle, Stack, TextField } from '@mui/material';
import DeleteSweepIcon from '@mui/icons-material/DeleteSweep';
import { useRefresh, useTranslate } from 'react-admin';
import { useApiNotify } from '../../hooks/useApiNotify';
import { countLogsBefore, purgeLogsBefore, toTimestamp } from '../../providers/endpoints/logEndpoints';
import { renderLogTime } from './LogCells';

const pad = (value: number) => String(value).padStart(2, '0');

/** A datetime input's local text (to the second) for a date. */
const localInputValue = (date: Date): string =>
  `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;

/** A month ago at midnight, new-api's default for clearing historical logs. */
const defaultCutoff = (): string => {
  const date = new Date();
  date.setMonth(date.getMonth() - 1);
  date.setHours(0, 0, 0, 0);
  return localInputValue(date);
};

type Step = { kind: 'pick' } | { kind: 'confirm'; timestamp: number; count: number };

/**
 * Admins clear logs created before a chosen time: the first step counts the rows that time would delete and asks
 * for confirmation with that count; the answer's count (rows actually deleted) is then shown.
 */
export const PurgeLogsButton = () => {
  const translate = useTranslate();
  const notify = useApiNotify();
  const refresh = useRefresh();
  const [open, setOpen] = useState(false);
  const [value, setValue] = useState(defaultCutoff);
  const [step, setStep] = useState<Step>({ kind: 'pick' });
  const [busy, setBusy] = useState(false);
  const [invalid, setInvalid] = useState(false);

  const close = () => {
    setOpen(false);
    setStep({ kind: 'pick' });
    setInvalid(false);
  };

  const next = async () => {
    const timestamp = toTimestamp(value);
    if (timestamp <= 0) {
      setInvalid(true);
      return;
    }
    setBusy(true);
    try {
      setStep({ kind: 'confirm', timestamp, count: await countLogsBefore(timestamp) });
    } catch (error) {
      notify.error(error);
    } finally {
      setBusy(false);
    }
  };

  const purge = async (timestamp: number) => {
    setBusy(true);
    try {
      const deleted = await purgeLogsBefore(timestamp);
      notify.success('app.logs.purge_done', { count: deleted });
      close();
      refresh();
    } catch (error) {
      notify.error(error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <Button size="small" color="error" variant="outlined" startIcon={<DeleteSweepIcon />} onClick={() => setOpen(true)}>
        {translate('app.logs.purge')}
      </Button>
      <Dialog open={open} onClose={busy ? undefined : close} fullWidth maxWidth="xs" aria-labelledby="purge-logs-title">
        <DialogTitle id="purge-logs-title">{translate('app.logs.purge_title')}</DialogTitle>
        <DialogContent>
          {step.kind === 'pick' ? (
            <Stack spacing={2} sx={{ pt: 1 }}>
              <TextField
                type="datetime-local"
                label={translate('app.logs.purge_before')}
                value={value}
                onChange={(event) => {
                  setValue(event.target.value);
                  setInvalid(false);
                }}
                error={invalid}
                helperText={invalid ? translate('app.logs.purge_pick_time') : translate('app.logs.purge_hint')}
                slotProps={{ inputLabel: { shrink: true }, htmlInput: { step: 1 } }}
                fullWidth
              />
            </Stack>
          ) : (
            <DialogContentText data-testid="purge-confirm">
              {translate('app.logs.purge_confirm', { count: step.count, time: renderLogTime(step.timestamp) })}
            </DialogContentText>
          )}
        </DialogContent>
        <DialogActions>
          <Button onClick={close} disabled={busy}>
            {translate('app.common.cancel')}
          </Button>
          {step.kind === 'pick' ? (
            <Button variant="contained" onClick={() => void next()} disabled={busy}>
              {translate('app.logs.purge_next')}
            </Button>
          ) : (
            <Button variant="contained" color="error" onClick={() => void purge(step.timestamp)} disabled={busy}>
              {translate('app.logs.purge_delete')}
            </Button>
          )}
        </DialogActions>
      </Dialog>
    </>
  );
};
