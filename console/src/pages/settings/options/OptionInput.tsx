import { useState } from 'react';
import CancelIcon from '@mui/icons-material/Cancel';
import { Box, Button, Chip, FormControlLabel, FormHelperText, MenuItem, Stack, Switch, TextField, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import { splitList, type OptionField } from './optionFields';

export interface OptionInputProps {
  field: OptionField;
  value: string;
  onChange: (value: string) => void;
  onBlur?: () => void;
  /** Already translated. */
  error?: string;
  disabled?: boolean;
}

/** Fields that take a whole row of the card's grid. */
export const isWide = (field: OptionField): boolean =>
  field.type === 'json' || field.type === 'list' || (field.type === 'text' && (Boolean(field.rows) || Boolean(field.wide)));

/** One option's control: a switch, a text, number or choice field, a JSON editor or a chip list. */
export const OptionInput = ({ field, value, onChange, onBlur, error, disabled }: OptionInputProps) => {
  const translate = useTranslate();
  const label = translate(`app.options.fields.${field.key}`);
  const hasHelp = 'help' in field && field.help;
  const help = error || (hasHelp ? translate(`app.options.help.${field.key}`) : undefined);

  switch (field.type) {
    case 'switch':
      return (
        <FormControlLabel
          control={<Switch checked={value === 'true'} onChange={(event) => onChange(String(event.target.checked))} disabled={disabled} />}
          label={label}
        />
      );
    case 'list':
      return <ListInput label={label} value={value} onChange={onChange} disabled={disabled} />;
    case 'choice':
      return (
        <TextField
          select
          label={label}
          value={value}
          onChange={(event) => onChange(event.target.value)}
          disabled={disabled}
          fullWidth
          size="small"
        >
          {field.choices.map((choice) => (
            <MenuItem key={choice} value={choice}>
              {translate(`app.options.choices.${field.key}.${choice}`)}
            </MenuItem>
          ))}
        </TextField>
      );
    default: {
      const json = field.type === 'json';
      const rows = json ? 6 : field.type === 'text' ? field.rows : undefined;
      const secret = field.type === 'text' && field.secret;
      return (
        <TextField
          label={label}
          value={value}
          onChange={(event) => onChange(event.target.value)}
          onBlur={onBlur}
          error={Boolean(error)}
          helperText={help}
          placeholder={secret ? translate('app.options.secret_placeholder') : undefined}
          type={secret ? 'password' : 'text'}
          autoComplete={secret ? 'new-password' : 'off'}
          disabled={disabled}
          multiline={Boolean(rows)}
          minRows={rows}
          maxRows={json ? 14 : rows ? rows * 2 : undefined}
          fullWidth
          size="small"
          slotProps={{
            htmlInput: {
              inputMode: field.type === 'number' ? 'decimal' : undefined,
              spellCheck: json ? false : undefined,
              style: json ? { fontFamily: 'monospace', fontSize: 13 } : undefined,
            },
          }}
        />
      );
    }
  }
};

/** A comma list edited as removable chips plus an "add" field. */
const ListInput = ({
  label,
  value,
  onChange,
  disabled,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  disabled?: boolean;
}) => {
  const translate = useTranslate();
  const [entry, setEntry] = useState('');
  const items = splitList(value);
  const add = () => {
    const added = splitList(entry);
    if (added.length) onChange([...items, ...added.filter((item) => !items.includes(item))].join(','));
    setEntry('');
  };
  return (
    <Box role="group" aria-label={label}>
      <Typography variant="body2" color="text.secondary" gutterBottom>
        {label}
      </Typography>
      <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap', mb: 1 }}>
        {items.map((item) => (
          <Chip
            key={item}
            label={item}
            disabled={disabled}
            onDelete={() => onChange(items.filter((other) => other !== item).join(','))}
            deleteIcon={<CancelIcon role="button" aria-hidden={false} aria-label={translate('app.options.list_remove', { item })} />}
          />
        ))}
        {items.length === 0 ? <FormHelperText>{translate('app.options.list_empty')}</FormHelperText> : null}
      </Stack>
      <Stack direction="row" spacing={1}>
        <TextField
          label={translate('app.options.list_add_label')}
          value={entry}
          onChange={(event) => setEntry(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter') {
              event.preventDefault();
              add();
            }
          }}
          disabled={disabled}
          size="small"
          sx={{ flex: 1, minWidth: 0 }}
        />
        <Button variant="outlined" onClick={add} disabled={disabled || !entry.trim()}>
          {translate('app.options.list_add')}
        </Button>
      </Stack>
    </Box>
  );
};
