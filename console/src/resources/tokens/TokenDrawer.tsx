import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { Box, Button, CircularProgress, Drawer, Stack, Typography } from '@mui/material';
import { useGetOne, useNotify, useTranslate, useUpdate } from 'react-admin';
import { useApiNotify } from '../../hooks/useApiNotify';
import { createToken, type Token } from '../../providers/endpoints/tokenEndpoints';
import { errorMessage } from '../../providers/httpClient';
import { batchNames, emptyForm, fieldsOf, formOf, type TokenFormValues } from './tokenForm';
import { TokenFormFields } from './TokenFormFields';
import { useTokenChoices } from './useTokenChoices';

type FormErrors = { expiry?: string; count?: string };

const DrawerForm = ({
  title,
  busy,
  onSubmit,
  onCancel,
  children,
}: {
  title: string;
  busy: boolean;
  onSubmit: () => void;
  onCancel: () => void;
  children: ReactNode;
}) => {
  const translate = useTranslate();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit();
  };
  return (
    <Box component="form" onSubmit={submit} noValidate sx={{ width: { xs: '100vw', sm: 520 }, maxWidth: '100vw', p: 2 }}>
      <Typography variant="h6" component="h2" sx={{ mb: 2 }}>
        {title}
      </Typography>
      {children}
      <Stack direction="row" spacing={1} sx={{ mt: 3, justifyContent: 'flex-end' }}>
        <Button onClick={onCancel}>{translate('app.common.cancel')}</Button>
        <Button type="submit" variant="contained" disabled={busy}>
          {translate('app.common.submit')}
        </Button>
      </Stack>
    </Box>
  );
};

/** A positive whole number, or null. */
const countOf = (text: string): number | null => (/^\s*\d+\s*$/.test(text) && Number(text) >= 1 ? Number(text) : null);

/** Creates one token, or a batch: the first keeps the name, the others get a random suffix; it stops at the first refusal. */
const CreateTokens = ({ onCreated, onCancel }: { onCreated: () => void; onCancel: () => void }) => {
  const translate = useTranslate();
  const notify = useApiNotify();
  const rawNotify = useNotify();
  const choices = useTokenChoices();
  const [values, setValues] = useState<TokenFormValues>(emptyForm);
  const [errors, setErrors] = useState<FormErrors>({});
  const [busy, setBusy] = useState(false);

  const submit = async () => {
    const fields = fieldsOf(values);
    const count = countOf(values.count);
    const found: FormErrors = {
      expiry: fields ? undefined : translate('app.tokens.drawer.expiry_invalid'),
      count: count === null ? translate('app.tokens.drawer.count_invalid') : undefined,
    };
    setErrors(found);
    if (!fields || count === null) return;
    setBusy(true);
    let created = 0;
    try {
      for (const name of batchNames(fields.name, count)) {
        await createToken({ ...fields, name });
        created++;
      }
      notify.success('app.tokens.drawer.created');
      onCreated();
    } catch (error) {
      if (created === 0) notify.error(error);
      else {
        const message = translate('app.tokens.drawer.created_partly', { created, count, message: errorMessage(error) });
        rawNotify(message, { type: 'warning', messageArgs: { _: message } });
        onCreated();
      }
    } finally {
      setBusy(false);
    }
  };

  return (
    <DrawerForm title={translate('app.tokens.drawer.create_title')} busy={busy} onSubmit={() => void submit()} onCancel={onCancel}>
      <TokenFormFields values={values} onChange={setValues} choices={choices} creating errors={errors} />
    </DrawerForm>
  );
};

const EditToken = ({ id, onSaved, onCancel }: { id: number; onSaved: () => void; onCancel: () => void }) => {
  const translate = useTranslate();
  const notify = useApiNotify();
  const choices = useTokenChoices();
  const { data: record, error } = useGetOne<Token>('token', { id });
  const [update, { isPending }] = useUpdate<Token>();
  const [values, setValues] = useState<TokenFormValues | null>(null);
  const [errors, setErrors] = useState<FormErrors>({});
  // Fill the form once, from the loaded record; later refetches must not overwrite what the user typed.
  useEffect(() => {
    if (record && values === null) setValues(formOf(record));
  }, [record, values]);
  useEffect(() => {
    if (error) notify.error(error);
  }, [error, notify]);

  const submit = () => {
    if (!record || !values) return;
    const fields = fieldsOf(values);
    setErrors({ expiry: fields ? undefined : translate('app.tokens.drawer.expiry_invalid') });
    if (!fields) return;
    void update(
      'token',
      { id, data: fields, previousData: record },
      {
        mutationMode: 'pessimistic',
        onSuccess: () => {
          notify.success('app.tokens.drawer.updated');
          onSaved();
        },
        onError: (cause) => notify.error(cause),
      },
    );
  };

  return (
    <DrawerForm title={translate('app.tokens.drawer.edit_title')} busy={isPending || !values} onSubmit={submit} onCancel={onCancel}>
      {values ? (
        <TokenFormFields
          values={values}
          onChange={setValues}
          choices={choices}
          creating={false}
          currentGroup={record?.group}
          errors={errors}
        />
      ) : (
        <Box sx={{ display: 'flex', justifyContent: 'center', py: 4 }}>
          <CircularProgress aria-label={translate('app.common.loading')} />
        </Box>
      )}
    </DrawerForm>
  );
};

/** What the drawer shows: nothing, the creation form, or the edit form of one token. */
export type DrawerTarget = { mode: 'create' } | { mode: 'edit'; id: number } | null;

/** The side drawer that creates tokens (with a batch count) or edits one. */
export const TokenDrawer = ({
  target,
  onClose,
  onDone,
}: {
  target: DrawerTarget;
  onClose: () => void;
  /** After a creation or a save: close and reload the list. */
  onDone: () => void;
}) => (
  <Drawer anchor="right" open={target !== null} onClose={onClose}>
    {target?.mode === 'create' ? <CreateTokens onCreated={onDone} onCancel={onClose} /> : null}
    {target?.mode === 'edit' ? <EditToken key={target.id} id={target.id} onSaved={onDone} onCancel={onClose} /> : null}
  </Drawer>
);
