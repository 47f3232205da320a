import { useEffect, useState, type FormEvent } from 'react';
import { Alert, Button, Dialog, DialogActions, DialogContent, DialogTitle, Stack, TextField } from '@mui/material';
import { useLogout, useTranslate } from 'react-admin';
import { useApiNotify } from '../../hooks/useApiNotify';
import { apiRequest } from '../../providers/httpClient';

export interface DeleteAccountDialogProps {
  open: boolean;
  username: string;
  onClose: () => void;
}

/** Deleting one's own account needs the username typed back; then the session ends. */
export const DeleteAccountDialog = ({ open, username, onClose }: DeleteAccountDialogProps) => {
  const translate = useTranslate();
  const notify = useApiNotify();
  const logout = useLogout();
  const [confirmation, setConfirmation] = useState('');
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (open) setConfirmation('');
  }, [open]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!username || confirmation !== username) return notify.failure('app.personal.delete_confirm_error');
    setBusy(true);
    try {
      await apiRequest('/api/user/self', { method: 'DELETE' });
      onClose();
      await logout(undefined, '/login', false);
      notify.success('app.personal.account_deleted');
    } catch (error) {
      notify.error(error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog open={open} onClose={onClose} maxWidth="xs" fullWidth>
      <form onSubmit={submit} noValidate>
        <DialogTitle>{translate('app.personal.delete_account')}</DialogTitle>
        <DialogContent>
          <Stack spacing={2} sx={{ pt: 1 }}>
            <Alert severity="error">{translate('app.personal.delete_warning')}</Alert>
            <TextField
              label={translate('app.personal.delete_confirm_label', { username })}
              value={confirmation}
              onChange={(event) => setConfirmation(event.target.value)}
              autoComplete="off"
              fullWidth
              autoFocus
            />
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose}>{translate('app.common.cancel')}</Button>
          <Button type="submit" variant="contained" color="error" disabled={busy}>
            {translate('app.personal.delete_account')}
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
};
