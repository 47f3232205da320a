import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { Box, Button, Chip, Drawer, Stack, TextField, Typography } from '@mui/material';
import { useCreate, useGetOne, useTranslate, useUpdate } from 'react-admin';
import { useApiNotify } from '../../hooks/useApiNotify';
import { quotaPerUnit, renderQuota } from '../../lib/quota';
import type { Redemption, RedemptionBatch } from '../../lib/types';
import { ApiError } from '../../providers/httpClient';
import { useStatus } from '../../providers/statusStore';

/** Quick picks for the quota, in currency units (1$ = quota_per_unit). */
const QUICK_PICKS = [1, 10, 50, 100, 500, 1000];
/** A new code's quota and count before the admin changes them. */
const DEFAULT_QUOTA = 100000;
const DEFAULT_COUNT = 1;

interface FormValues {
  name: string;
  quota: string;
  count: string;
}

/** Integers as new-api parses them (parseInt): junk reads as 0. */
const toInteger = (value: string): number => {
  const parsed = Number.parseInt(value, 10);
  return Number.isFinite(parsed) ? parsed : 0;
};

/** The keys a failed creation answered in `data` (the server's envelope is the error's body). */
const keysMadeBeforeFailure = (error: unknown): string[] => {
  const data = error instanceof ApiError ? (error.body as { data?: unknown } | undefined)?.data : undefined;
  return Array.isArray(data) ? data.filter((key): key is string => typeof key === 'string') : [];
};

const RedemptionFields = ({
  values,
  onChange,
  withCount,
}: {
  values: FormValues;
  onChange: (values: FormValues) => void;
  withCount: boolean;
}) => {
  const translate = useTranslate();
  const status = useStatus();
  const unit = quotaPerUnit(status);
  const set = (field: keyof FormValues) => (event: { target: { value: string } }) => onChange({ ...values, [field]: event.target.value });
  return (
    <Stack spacing={2}>
      <TextField
        label={translate('resources.redemption.fields.name')}
        value={values.name}
        onChange={set('name')}
        autoComplete="off"
        required
        fullWidth
      />
      <Box>
        <TextField
          label={translate('resources.redemption.fields.quota')}
          type="number"
          value={values.quota}
          onChange={set('quota')}
          slotProps={{ htmlInput: { step: 1, min: 0 } }}
          helperText={translate('app.redemptions.quota_equivalent', { amount: renderQuota(toInteger(values.quota), status) })}
          fullWidth
        />
        <Stack direction="row" spacing={0.5} useFlexGap sx={{ flexWrap: 'wrap', mt: 1 }}>
          {QUICK_PICKS.map((amount) => (
            <Chip key={amount} size="small" label={`${amount}$`} onClick={() => onChange({ ...values, quota: String(amount * unit) })} />
          ))}
        </Stack>
      </Box>
      {withCount ? (
        <TextField
          label={translate('resources.redemption.fields.count')}
          type="number"
          value={values.count}
          onChange={set('count')}
          slotProps={{ htmlInput: { step: 1, min: 1 } }}
          fullWidth
        />
      ) : null}
    </Stack>
  );
};

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
    <Box component="form" onSubmit={submit} sx={{ width: { xs: '100vw', sm: 420 }, p: 2 }}>
      <Typography variant="h6" sx={{ mb: 2 }}>
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

const CreateRedemptions = ({ onCreated, onCancel }: { onCreated: (batch: RedemptionBatch) => void; onCancel: () => void }) => {
  const translate = useTranslate();
  const notify = useApiNotify();
  const [create, { isPending }] = useCreate();
  const [values, setValues] = useState<FormValues>({ name: '', quota: String(DEFAULT_QUOTA), count: String(DEFAULT_COUNT) });
  const submit = () => {
    // As new-api: without a name, creating does nothing.
    if (!values.name) return;
    const data = { name: values.name, quota: toInteger(values.quota), count: toInteger(values.count) };
    void create(
      'redemption',
      { data },
      {
        onSuccess: (batch) => {
          notify.success('app.redemptions.created');
          onCreated(batch as unknown as RedemptionBatch);
        },
        onError: (error) => {
          notify.error(error);
          // A batch that stopped part-way still answers the keys it made: offer those too.
          const keys = keysMadeBeforeFailure(error);
          if (keys.length > 0) onCreated({ id: `batch:${keys[0]}`, name: data.name, quota: data.quota, keys });
        },
      },
    );
  };
  return (
    <DrawerForm title={translate('app.redemptions.create_title')} busy={isPending} onSubmit={submit} onCancel={onCancel}>
      <RedemptionFields values={values} onChange={setValues} withCount />
    </DrawerForm>
  );
};

const EditRedemption = ({ id, onSaved, onCancel }: { id: number; onSaved: () => void; onCancel: () => void }) => {
  const translate = useTranslate();
  const notify = useApiNotify();
  const { data: record } = useGetOne<Redemption>('redemption', { id });
  const [update, { isPending }] = useUpdate<Redemption>();
  const [values, setValues] = useState<FormValues | null>(null);
  // Fill the form once, from the loaded record; later refetches must not overwrite what the admin typed.
  useEffect(() => {
    if (record && values === null) setValues({ name: record.name, quota: String(record.quota), count: '' });
  }, [record, values]);
  const submit = () => {
    if (!record || !values) return;
    void update(
      'redemption',
      { id, data: { name: values.name, quota: toInteger(values.quota) }, previousData: record },
      {
        mutationMode: 'pessimistic',
        onSuccess: () => {
          notify.success('app.redemptions.updated');
          onSaved();
        },
        onError: (error) => notify.error(error),
      },
    );
  };
  return (
    <DrawerForm title={translate('app.redemptions.edit_title')} busy={isPending || !values} onSubmit={submit} onCancel={onCancel}>
      {values ? <RedemptionFields values={values} onChange={setValues} withCount={false} /> : null}
    </DrawerForm>
  );
};

/** What the drawer shows: nothing, the creation form, or the edit form of one code. */
export type DrawerTarget = { mode: 'create' } | { mode: 'edit'; id: number } | null;

/** The side drawer that creates codes (name, quota with quick picks, count) or edits one (name, quota). */
export const RedemptionDrawer = ({
  target,
  onClose,
  onCreated,
  onSaved,
}: {
  target: DrawerTarget;
  onClose: () => void;
  onCreated: (batch: RedemptionBatch) => void;
  onSaved: () => void;
}) => (
  <Drawer anchor="right" open={target !== null} onClose={onClose}>
    {target?.mode === 'create' ? <CreateRedemptions onCreated={onCreated} onCancel={onClose} /> : null}
    {target?.mode === 'edit' ? <EditRedemption key={target.id} id={target.id} onSaved={onSaved} onCancel={onClose} /> : null}
  </Drawer>
);
