import { useState } from 'react';
import { Alert, Autocomplete, Button, Chip, FormControlLabel, MenuItem, Stack, Switch, TextField } from '@mui/material';
import { useTranslate } from 'react-admin';
import { useGroupChoices } from '../users/useGroupChoices';
import { type ChannelFormValues, clampPriority, clampWeight, isJsonObjectText, keyLineCount } from './channelForm';
import { CHANNEL_TYPES, channelTypeInfo } from './channelTypes';
import { ModelsField } from './ModelsField';

interface Props {
  values: ChannelFormValues;
  creating: boolean;
  onChange: (change: Partial<ChannelFormValues>) => void;
}

const MODEL_MAPPING_TEMPLATE = JSON.stringify(
  { 'gpt-3.5-turbo-0301': 'gpt-3.5-turbo', 'gpt-4-0314': 'gpt-4', 'gpt-4-32k-0314': 'gpt-4-32k' },
  null,
  2,
);
const STATUS_CODE_MAPPING_TEMPLATE = JSON.stringify({ 400: '500' }, null, 2);
const VERTEX_REGION_TEMPLATE = JSON.stringify({ default: 'us-central1', 'claude-3-5-sonnet-20240620': 'europe-west1' }, null, 2);

/** A JSON text field checked when it is left: it must be blank or a JSON object. */
const JsonField = (props: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  error: string;
  placeholder: string;
  template: string;
}) => {
  const translate = useTranslate();
  const [touched, setTouched] = useState(false);
  const invalid = touched && !isJsonObjectText(props.value);
  return (
    <Stack spacing={0.5}>
      <TextField
        label={props.label}
        value={props.value}
        onChange={(event) => props.onChange(event.target.value)}
        onBlur={() => setTouched(true)}
        error={invalid}
        helperText={invalid ? translate(props.error) : undefined}
        placeholder={props.placeholder}
        multiline
        minRows={3}
        fullWidth
        slotProps={{ htmlInput: { style: { fontFamily: 'monospace' } } }}
      />
      <Button size="small" sx={{ alignSelf: 'flex-start' }} onClick={() => props.onChange(props.template)}>
        {translate('app.channels.fill_template')}
      </Button>
    </Stack>
  );
};

/** Every field of the channel form, the type-specific ones according to the selected type. */
export const ChannelFormFields = ({ values, creating, onChange }: Props) => {
  const translate = useTranslate();
  const groups = useGroupChoices().map((group) => group.id);
  const info = channelTypeInfo(values.type);
  const keyLines = keyLineCount(values);
  const keyHint = info?.keyHint ?? 'app.channels.key_hints.default';
  // The type's key format (when it has one), then how many channels the lines make, or that blank keeps the key.
  const keyHelp = [
    keyHint === 'app.channels.key_hints.default' ? '' : translate(keyHint),
    creating ? (info?.keyWhole ? '' : translate('app.channels.key_batch_hint', { count: keyLines })) : translate('app.channels.key_keep'),
  ]
    .filter(Boolean)
    .join(' ');

  return (
    <Stack spacing={2}>
      <TextField
        select
        label={translate('app.channels.fields.type')}
        value={values.type}
        onChange={(event) => {
          const type = Number(event.target.value);
          onChange({ type, other: channelTypeInfo(type)?.other?.defaultValue ?? '' });
        }}
        fullWidth
      >
        {CHANNEL_TYPES.map((type) => (
          <MenuItem key={type.value} value={type.value} disabled={type.noAdapter && values.type !== type.value}>
            {type.nameKey ? translate(type.nameKey) : type.name}
          </MenuItem>
        ))}
      </TextField>
      {info?.notice && <Alert severity="info">{translate(info.notice)}</Alert>}
      <TextField
        label={translate('app.channels.fields.name')}
        placeholder={translate('app.channels.name_placeholder')}
        value={values.name}
        onChange={(event) => onChange({ name: event.target.value })}
        required
        fullWidth
      />
      <TextField
        label={translate('app.channels.fields.base_url')}
        placeholder={translate(info?.baseUrlHint ?? 'app.channels.base_url_hints.default')}
        helperText={translate(info?.baseUrlHint ?? 'app.channels.base_url_hints.default')}
        value={values.base_url}
        onChange={(event) => onChange({ base_url: event.target.value })}
        required={info?.baseUrlRequired}
        fullWidth
      />
      {info?.other && (
        <Stack spacing={0.5}>
          <TextField
            label={translate(info.other.label)}
            placeholder={translate(info.other.placeholder)}
            value={values.other}
            onChange={(event) => onChange({ other: event.target.value })}
            multiline={info.other.multiline}
            minRows={info.other.multiline ? 3 : undefined}
            required={values.type === 41}
            fullWidth
          />
          {values.type === 41 && (
            <Button size="small" sx={{ alignSelf: 'flex-start' }} onClick={() => onChange({ other: VERTEX_REGION_TEMPLATE })}>
              {translate('app.channels.fill_template')}
            </Button>
          )}
        </Stack>
      )}
      {info?.organization && (
        <TextField
          label={translate('app.channels.fields.openai_organization')}
          placeholder={translate('app.channels.organization_placeholder')}
          value={values.openai_organization}
          onChange={(event) => onChange({ openai_organization: event.target.value })}
          fullWidth
        />
      )}
      <TextField
        label={translate('app.channels.fields.key')}
        placeholder={creating ? translate(keyHint) : translate('app.channels.key_keep')}
        helperText={keyHelp}
        value={values.key}
        onChange={(event) => onChange({ key: event.target.value })}
        multiline={creating || info?.keyWhole}
        minRows={creating || info?.keyWhole ? 2 : undefined}
        required={creating}
        autoComplete="off"
        fullWidth
      />
      <Autocomplete
        multiple
        options={groups}
        value={values.groups}
        onChange={(_, value) => onChange({ groups: value })}
        renderValue={(value, getItemProps) =>
          value.map((option, index) => {
            const { key, ...itemProps } = getItemProps({ index });
            return <Chip key={key} size="small" label={option} {...itemProps} />;
          })
        }
        renderInput={(params) => <TextField {...params} label={translate('app.channels.fields.group')} />}
      />
      <ModelsField
        type={values.type}
        models={values.models}
        onChange={(models) => onChange({ models })}
        fetchSource={{ id: values.id, key: values.key, baseUrl: values.base_url }}
      />
      <JsonField
        label={translate('app.channels.fields.model_mapping')}
        value={values.model_mapping}
        onChange={(model_mapping) => onChange({ model_mapping })}
        error="app.channels.errors.model_mapping_json"
        placeholder={translate('app.channels.model_mapping_placeholder')}
        template={MODEL_MAPPING_TEMPLATE}
      />
      <JsonField
        label={translate('app.channels.fields.status_code_mapping')}
        value={values.status_code_mapping}
        onChange={(status_code_mapping) => onChange({ status_code_mapping })}
        error="app.channels.errors.status_code_mapping_json"
        placeholder={translate('app.channels.status_code_mapping_placeholder')}
        template={STATUS_CODE_MAPPING_TEMPLATE}
      />
      <TextField
        label={translate('app.channels.fields.test_model')}
        placeholder={translate('app.channels.test_model_placeholder')}
        value={values.test_model}
        onChange={(event) => onChange({ test_model: event.target.value })}
        fullWidth
      />
      <FormControlLabel
        control={<Switch checked={values.auto_ban} onChange={(event) => onChange({ auto_ban: event.target.checked })} />}
        label={translate('app.channels.fields.auto_ban')}
      />
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
        <TextField
          type="number"
          label={translate('app.channels.fields.priority')}
          value={values.priority}
          onChange={(event) => onChange({ priority: Number(event.target.value) })}
          onBlur={() => onChange({ priority: clampPriority(Number(values.priority)) })}
          slotProps={{ htmlInput: { min: -999, step: 1 } }}
          fullWidth
        />
        <TextField
          type="number"
          label={translate('app.channels.fields.weight')}
          value={values.weight}
          onChange={(event) => onChange({ weight: Number(event.target.value) })}
          onBlur={() => onChange({ weight: clampWeight(Number(values.weight)) })}
          slotProps={{ htmlInput: { min: 0, step: 1 } }}
          fullWidth
        />
      </Stack>
    </Stack>
  );
};
