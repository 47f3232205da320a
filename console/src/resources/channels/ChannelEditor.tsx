import { useEffect, useState } from 'react';
import { Alert, Box, Button, Card, CardContent, CircularProgress, Stack } from '@mui/material';
import { Title, useDataProvider, useRedirect, useTranslate } from 'react-admin';
import { useParams } from 'react-router-dom';
import { useApiNotify } from '../../hooks/useApiNotify';
import type { Channel } from '../../providers/endpoints/channelEndpoints';
import { RequireAdmin } from '../users/RequireAdmin';
import { ChannelFormFields } from './ChannelFormFields';
import { formProblem, keyLineCount, NEW_CHANNEL, toChannelBody, toFormValues, type ChannelFormValues } from './channelForm';

/** /channel/add and /channel/edit/:id: one form for every channel type, checked by the client rules before it is sent. */
export const ChannelEditor = () => {
  const { id } = useParams();
  const creating = id === undefined;
  const translate = useTranslate();
  const notify = useApiNotify();
  const redirect = useRedirect();
  const dataProvider = useDataProvider();
  const [values, setValues] = useState<ChannelFormValues | null>(creating ? NEW_CHANNEL : null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    if (creating) {
      setValues(NEW_CHANNEL);
      return;
    }
    let active = true;
    dataProvider
      .getOne<Channel>('channel', { id: Number(id) })
      .then(({ data }) => active && setValues(toFormValues(data)))
      .catch((error: unknown) => active && setLoadError(error instanceof Error ? error.message : String(error)));
    return () => {
      active = false;
    };
  }, [creating, id, dataProvider]);

  const submit = async () => {
    if (!values) return;
    const problem = formProblem(values, creating);
    if (problem) {
      notify.failure(problem);
      return;
    }
    setSaving(true);
    try {
      const body = toChannelBody(values);
      if (creating) {
        await dataProvider.create('channel', { data: body });
        notify.success('app.channels.created', { count: keyLineCount(values) });
      } else {
        await dataProvider.update('channel', { id: Number(id), data: body, previousData: { id: Number(id) } });
        notify.success('app.channels.updated');
      }
      redirect('/channel');
    } catch (error) {
      notify.error(error);
    } finally {
      setSaving(false);
    }
  };

  const title = translate(creating ? 'app.channels.create_title' : 'app.channels.edit_title');
  return (
    <RequireAdmin>
      <Title title={title} />
      <Card sx={{ maxWidth: 760, mt: 1 }}>
        <CardContent>
          {loadError && <Alert severity="error">{loadError}</Alert>}
          {!values && !loadError && (
            <Box sx={{ display: 'flex', justifyContent: 'center', p: 4 }} aria-label={translate('app.common.loading')}>
              <CircularProgress />
            </Box>
          )}
          {values && (
            <Box
              component="form"
              onSubmit={(event) => {
                event.preventDefault();
                void submit();
              }}
              noValidate
            >
              <ChannelFormFields
                values={values}
                creating={creating}
                onChange={(change) => setValues((current) => (current ? { ...current, ...change } : current))}
              />
              <Stack direction="row" spacing={1} sx={{ mt: 3 }}>
                <Button type="submit" variant="contained" disabled={saving}>
                  {saving ? translate('app.channels.working') : translate('app.common.submit')}
                </Button>
                <Button onClick={() => redirect('/channel')}>{translate('app.common.cancel')}</Button>
              </Stack>
            </Box>
          )}
        </CardContent>
      </Card>
    </RequireAdmin>
  );
};
