import { useState } from 'react';
import { Button, Card, CardContent, Stack, TextField, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import { useApiNotify } from '../../hooks/useApiNotify';
import { useCopy } from '../../hooks/useCopy';
import { copyToClipboard } from '../../lib/clipboard';
import type { User } from '../../lib/types';
import { apiRequest } from '../../providers/httpClient';
import { ChangePasswordDialog } from './ChangePasswordDialog';
import { DeleteAccountDialog } from './DeleteAccountDialog';

/** System access token, password change and account deletion. */
export const SecurityCard = ({ user }: { user?: User }) => {
  const translate = useTranslate();
  const notify = useApiNotify();
  const copy = useCopy();
  const [token, setToken] = useState('');
  const [passwordOpen, setPasswordOpen] = useState(false);
  const [deleteOpen, setDeleteOpen] = useState(false);

  const generateToken = async () => {
    try {
      const created = await apiRequest<string>('/api/user/token');
      setToken(created);
      await copyToClipboard(created);
      notify.success('app.personal.token_reset');
    } catch (error) {
      notify.error(error);
    }
  };

  return (
    <Card component="section" aria-label={translate('app.personal.actions_title')}>
      <CardContent>
        <Typography variant="subtitle1" component="h2" gutterBottom>
          {translate('app.personal.actions_title')}
        </Typography>
        <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap' }}>
          <Button variant="outlined" onClick={generateToken}>
            {translate('app.personal.generate_token')}
          </Button>
          <Button variant="outlined" onClick={() => setPasswordOpen(true)}>
            {translate('app.personal.change_password')}
          </Button>
          <Button variant="outlined" color="error" onClick={() => setDeleteOpen(true)}>
            {translate('app.personal.delete_account')}
          </Button>
        </Stack>
        {token ? (
          <TextField
            label={translate('app.personal.token_label')}
            value={token}
            onClick={() => copy(token, 'app.personal.token_copied')}
            slotProps={{ input: { readOnly: true } }}
            sx={{ mt: 2 }}
            fullWidth
          />
        ) : null}
      </CardContent>
      <ChangePasswordDialog open={passwordOpen} onClose={() => setPasswordOpen(false)} />
      <DeleteAccountDialog open={deleteOpen} username={user?.username ?? ''} onClose={() => setDeleteOpen(false)} />
    </Card>
  );
};
