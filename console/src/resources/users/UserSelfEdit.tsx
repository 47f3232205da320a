import { useEffect, useState, type FormEvent } from 'react';
import { Box, Button, Card, CardContent, Stack, TextField } from '@mui/material';
import { Authenticated, Title, useTranslate } from 'react-admin';
import { useNavigate } from 'react-router-dom';
import { useApiNotify } from '../../hooks/useApiNotify';
import type { User } from '../../lib/types';
import { apiRequest } from '../../providers/httpClient';

/** /user/edit without an id: the signed-in user edits their own name and password (PUT /api/user/self). */
export const UserSelfEdit = () => {
  const translate = useTranslate();
  const navigate = useNavigate();
  const notify = useApiNotify();
  const [form, setForm] = useState({ username: '', display_name: '', password: '' });
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    apiRequest<User>('/api/user/self')
      .then((user) => setForm({ username: user.username, display_name: user.display_name ?? '', password: '' }))
      .catch(notify.error);
  }, [notify]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    try {
      await apiRequest('/api/user/self', { method: 'PUT', body: form });
      notify.success('app.users.updated');
      navigate('/setting?tab=personal');
    } catch (error) {
      notify.error(error);
    } finally {
      setBusy(false);
    }
  };

  const change = (field: keyof typeof form) => (event: { target: { value: string } }) =>
    setForm((current) => ({ ...current, [field]: event.target.value }));

  return (
    <Authenticated>
      <Box sx={{ p: { xs: 1, sm: 2 } }}>
        <Title title={translate('app.users.edit_title')} />
        <Card sx={{ maxWidth: 560 }}>
          <CardContent>
            <Stack component="form" spacing={2} onSubmit={submit}>
              <TextField label={translate('resources.user.fields.username')} value={form.username} onChange={change('username')} />
              <TextField
                label={translate('resources.user.fields.display_name')}
                value={form.display_name}
                onChange={change('display_name')}
              />
              <TextField
                label={translate('resources.user.fields.password')}
                placeholder={translate('app.users.password_edit_placeholder')}
                type="password"
                autoComplete="new-password"
                value={form.password}
                onChange={change('password')}
              />
              <Button type="submit" variant="contained" disabled={busy}>
                {translate('ra.action.save')}
              </Button>
            </Stack>
          </CardContent>
        </Card>
      </Box>
    </Authenticated>
  );
};
