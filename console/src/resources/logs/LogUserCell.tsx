import { useCallback, useEffect, useState } from 'react';
import {
  Avatar,
  Box,
  Button,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  IconButton,
  Stack,
  Typography,
} from '@mui/material';
import { useTranslate } from 'react-admin';
import { useApiNotify } from '../../hooks/useApiNotify';
import { renderNumber, renderQuota } from '../../lib/quota';
import type { User } from '../../lib/types';
import { apiRequest } from '../../providers/httpClient';
import { useStatus } from '../../providers/statusStore';

const UserInfoDialog = ({ userId, onClose }: { userId: number; onClose: () => void }) => {
  const translate = useTranslate();
  const notify = useApiNotify();
  const status = useStatus();
  const [user, setUser] = useState<User | null>(null);
  useEffect(() => {
    let active = true;
    apiRequest<User>(`/api/user/${userId}`)
      .then((answer) => active && setUser(answer))
      .catch((error) => {
        if (!active) return;
        notify.error(error);
        onClose();
      });
    return () => {
      active = false;
    };
  }, [userId, notify, onClose]);
  return (
    <Dialog open onClose={onClose} fullWidth maxWidth="xs">
      <DialogTitle>{translate('app.logs.user_info')}</DialogTitle>
      <DialogContent>
        {user ? (
          <Stack spacing={1} data-testid="log-user-info">
            <Typography>{translate('app.logs.user_username', { value: user.username })}</Typography>
            <Typography>{translate('app.logs.user_balance', { value: renderQuota(user.quota, status) })}</Typography>
            <Typography>{translate('app.logs.user_used', { value: renderQuota(user.used_quota, status) })}</Typography>
            <Typography>{translate('app.logs.user_requests', { value: renderNumber(user.request_count) })}</Typography>
          </Stack>
        ) : (
          <Box sx={{ display: 'flex', justifyContent: 'center', p: 2 }}>
            <CircularProgress size={24} aria-label={translate('app.common.loading')} />
          </Box>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{translate('app.common.ok')}</Button>
      </DialogActions>
    </Dialog>
  );
};

/** The user column (admins): the avatar opens a dialog with the user's name, balance, used quota and request count. */
export const LogUserCell = ({ userId, username }: { userId: number; username: string }) => {
  const translate = useTranslate();
  const [open, setOpen] = useState(false);
  const close = useCallback(() => setOpen(false), []);
  if (!username && !userId) return null;
  return (
    <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
      <IconButton size="small" onClick={() => setOpen(true)} aria-label={translate('app.logs.user_info_open', { username })} sx={{ p: 0 }}>
        <Avatar sx={{ width: 28, height: 28, fontSize: 14, bgcolor: 'primary.main' }}>{(username || '?').slice(0, 1).toUpperCase()}</Avatar>
      </IconButton>
      <Typography variant="body2" noWrap>
        {username}
      </Typography>
      {open && <UserInfoDialog userId={userId} onClose={close} />}
    </Stack>
  );
};
