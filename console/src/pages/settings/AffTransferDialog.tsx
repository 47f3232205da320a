import { useEffect, useState, type FormEvent } from 'react';
import { Button, Dialog, DialogActions, DialogContent, DialogTitle, Stack, TextField, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import { useApiNotify } from '../../hooks/useApiNotify';
import { quotaPerUnit, renderQuota } from '../../lib/quota';
import { apiFetch } from '../../providers/httpClient';
import { useStatus } from '../../providers/statusStore';

export interface AffTransferDialogProps {
  open: boolean;
  affQuota: number;
  onClose: () => void;
  onTransferred: () => void;
}

/** Moves pending invite earnings into quota; at least one quota unit (QuotaPerUnit). */
export const AffTransferDialog = ({ open, affQuota, onClose, onTransferred }: AffTransferDialogProps) => {
  const translate = useTranslate();
  const notify = useApiNotify();
  const status = useStatus();
  const minimum = quotaPerUnit(status);
  const [amount, setAmount] = useState(String(minimum));
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (open) setAmount(String(minimum));
  }, [open, minimum]);

  const quota = Number.parseInt(amount, 10) || 0;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (quota < minimum) {
      notify.failure('app.personal.transfer_min_error', { amount: renderQuota(minimum, status) });
      return;
    }
    setBusy(true);
    try {
      const answer = await apiFetch('/api/user/aff_transfer', { method: 'POST', body: { quota } });
      const message = answer.message || translate('app.common.operation_success');
      notify.success(message, { _: message });
      onTransferred();
      onClose();
    } catch (error) {
      notify.error(error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog open={open} onClose={onClose} maxWidth="xs" fullWidth>
      <form onSubmit={submit} noValidate>
        <DialogTitle>{translate('app.personal.transfer_title')}</DialogTitle>
        <DialogContent>
          <Stack spacing={2} sx={{ pt: 1 }}>
            <Typography variant="body2">
              {translate('app.personal.transfer_available', { amount: renderQuota(affQuota, status) })}
            </Typography>
            <TextField
              label={translate('app.personal.transfer_amount')}
              type="number"
              value={amount}
              onChange={(event) => setAmount(event.target.value)}
              slotProps={{ htmlInput: { min: 0, step: 1 } }}
              helperText={translate('app.personal.transfer_minimum', {
                amount: renderQuota(quota, status),
                minimum: renderQuota(minimum, status),
              })}
              fullWidth
              autoFocus
            />
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose}>{translate('app.common.cancel')}</Button>
          <Button type="submit" variant="contained" disabled={busy}>
            {translate('app.personal.transfer')}
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
};
