import type { ReactNode } from 'react';
import { Alert, Autocomplete, Box, Checkbox, Chip, Divider, FormControlLabel, MenuItem, Stack, Switch, TextField } from '@mui/material';
import { useTranslate } from 'react-admin';
import { quotaPerUnit, renderQuota } from '../../lib/quota';
import { useStatus } from '../../providers/statusStore';
import { COUNT_PICKS, EXPIRY_PICKS, expiryAfter, QUOTA_PICKS, toInteger, type TokenFormValues } from './tokenForm';
import type { TokenChoices } from './useTokenChoices';

/** A row of small quick-pick buttons under a field. */
const Picks = ({ children }: { children: ReactNode }) => (
  <Stack direction="row" spacing={0.5} useFlexGap sx={{ flexWrap: 'wrap', mt: 1 }}>
    {children}
  </Stack>
);

interface FieldsProps {
  values: TokenFormValues;
  onChange: (values: TokenFormValues) => void;
  choices: TokenChoices;
  /** Creation shows the batch count. */
  creating: boolean;
  /** The group the token has now, kept as a choice even when users may no longer pick it. */
  currentGroup?: string;
  errors: { expiry?: string; count?: string };
}

const ExpiryField = ({ values, onChange, error }: Pick<FieldsProps, 'values' | 'onChange'> & { error?: string }) => {
  const translate = useTranslate();
  return (
    <Box>
      <TextField
        label={translate('app.tokens.drawer.expired_time')}
        type="datetime-local"
        value={values.expiry}
        onChange={(event) => onChange({ ...values, expiry: event.target.value })}
        error={Boolean(error)}
        helperText={error ?? (values.expiry ? undefined : translate('app.tokens.drawer.expiry_never_hint'))}
        slotProps={{ inputLabel: { shrink: true }, htmlInput: { step: 1 } }}
        // The browser's own picker (icon and pop-up) follows the console's light or dark theme.
        sx={(theme) => ({ '& input': { colorScheme: theme.palette.mode } })}
        fullWidth
      />
      <Picks>
        {EXPIRY_PICKS.map(({ key, seconds }) => (
          <Chip
            key={key}
            size="small"
            label={translate(`app.tokens.drawer.${key}`)}
            onClick={() => onChange({ ...values, expiry: expiryAfter(seconds) })}
          />
        ))}
      </Picks>
    </Box>
  );
};

const QuotaFields = ({ values, onChange }: Pick<FieldsProps, 'values' | 'onChange'>) => {
  const translate = useTranslate();
  const status = useStatus();
  const unit = quotaPerUnit(status);
  return (
    <Stack spacing={1}>
      <Alert severity="warning">{translate('app.tokens.drawer.quota_note')}</Alert>
      <FormControlLabel
        control={
          <Switch checked={values.unlimitedQuota} onChange={(event) => onChange({ ...values, unlimitedQuota: event.target.checked })} />
        }
        label={translate('app.tokens.drawer.unlimited_quota')}
      />
      {values.unlimitedQuota ? null : (
        <Box>
          <TextField
            label={translate('app.tokens.drawer.remain_quota')}
            type="number"
            value={values.remainQuota}
            onChange={(event) => onChange({ ...values, remainQuota: event.target.value })}
            helperText={translate('app.tokens.drawer.quota_equivalent', { amount: renderQuota(toInteger(values.remainQuota), status) })}
            slotProps={{ htmlInput: { step: 1, min: 0 } }}
            fullWidth
          />
          <Picks>
            {QUOTA_PICKS.map((amount) => (
              <Chip
                key={amount}
                size="small"
                label={`${amount}$`}
                onClick={() => onChange({ ...values, remainQuota: String(amount * unit) })}
              />
            ))}
          </Picks>
        </Box>
      )}
    </Stack>
  );
};

const CountField = ({ values, onChange, error }: Pick<FieldsProps, 'values' | 'onChange'> & { error?: string }) => {
  const translate = useTranslate();
  return (
    <Box>
      <TextField
        label={translate('app.tokens.drawer.count')}
        type="number"
        value={values.count}
        onChange={(event) => onChange({ ...values, count: event.target.value })}
        error={Boolean(error)}
        helperText={error ?? translate('app.tokens.drawer.count_hint')}
        slotProps={{ htmlInput: { step: 1, min: 1 } }}
        fullWidth
      />
      <Picks>
        {COUNT_PICKS.map((count) => (
          <Chip
            key={count}
            size="small"
            label={translate('app.tokens.drawer.count_preset', { count })}
            onClick={() => onChange({ ...values, count: String(count) })}
          />
        ))}
      </Picks>
    </Box>
  );
};

const ModelLimitFields = ({
  values,
  onChange,
  models,
  loading,
}: Pick<FieldsProps, 'values' | 'onChange'> & { models: string[]; loading: boolean }) => {
  const translate = useTranslate();
  // Models chosen earlier stay listed even if the group no longer serves them, so an edit does not drop them.
  const options = [...new Set([...models, ...values.modelLimits])];
  return (
    <Box>
      <FormControlLabel
        control={
          <Checkbox
            checked={values.modelLimitsEnabled}
            onChange={(event) => onChange({ ...values, modelLimitsEnabled: event.target.checked })}
          />
        }
        label={translate('app.tokens.drawer.model_limits_enabled')}
      />
      <Autocomplete
        multiple
        disableCloseOnSelect
        options={options}
        value={values.modelLimits}
        onChange={(_event, selected) => onChange({ ...values, modelLimits: selected })}
        disabled={!values.modelLimitsEnabled}
        loading={loading}
        loadingText={translate('app.common.loading')}
        noOptionsText={translate('app.tokens.drawer.no_models')}
        renderInput={(params) => (
          <TextField
            {...params}
            label={translate('app.tokens.drawer.model_limits')}
            placeholder={values.modelLimits.length ? undefined : translate('app.tokens.drawer.model_limits_placeholder')}
          />
        )}
      />
    </Box>
  );
};

const GroupField = ({
  values,
  onChange,
  groups,
  currentGroup,
}: Pick<FieldsProps, 'values' | 'onChange' | 'currentGroup'> & { groups: TokenChoices['groups'] }) => {
  const translate = useTranslate();
  const options = [...groups];
  if (currentGroup && !options.some((group) => group.name === currentGroup)) options.push({ name: currentGroup, description: '' });
  return (
    <TextField
      select
      label={translate('app.tokens.drawer.group')}
      value={values.group}
      onChange={(event) => onChange({ ...values, group: event.target.value })}
      disabled={options.length === 0}
      helperText={options.length === 0 ? translate('app.tokens.drawer.no_groups') : undefined}
      fullWidth
    >
      <MenuItem value="">{translate('app.tokens.drawer.group_default')}</MenuItem>
      {options.map((group) => (
        <MenuItem key={group.name} value={group.name}>
          {group.description && group.description !== group.name ? `${group.name} · ${group.description}` : group.name}
        </MenuItem>
      ))}
    </TextField>
  );
};

/** Every field of a token: name, expiry, quota, batch count (creation), allowed IPs, model limits, group. */
export const TokenFormFields = ({ values, onChange, choices, creating, currentGroup, errors }: FieldsProps) => {
  const translate = useTranslate();
  return (
    <Stack spacing={2}>
      <TextField
        label={translate('app.tokens.drawer.name')}
        placeholder={translate('app.tokens.drawer.name_placeholder')}
        value={values.name}
        onChange={(event) => onChange({ ...values, name: event.target.value })}
        autoComplete="off"
        required={creating}
        fullWidth
      />
      <ExpiryField values={values} onChange={onChange} error={errors.expiry} />
      <Divider />
      <QuotaFields values={values} onChange={onChange} />
      {creating ? <CountField values={values} onChange={onChange} error={errors.count} /> : null}
      <Divider />
      <TextField
        label={translate('app.tokens.drawer.allow_ips')}
        placeholder={translate('app.tokens.drawer.allow_ips_placeholder')}
        value={values.allowIps}
        onChange={(event) => onChange({ ...values, allowIps: event.target.value })}
        multiline
        minRows={2}
        slotProps={{ htmlInput: { style: { fontFamily: 'monospace' } } }}
        fullWidth
      />
      <ModelLimitFields values={values} onChange={onChange} models={choices.models} loading={choices.loading} />
      <GroupField values={values} onChange={onChange} groups={choices.groups} currentGroup={currentGroup} />
    </Stack>
  );
};
