import { Autocomplete, Box, Card, CardContent, MenuItem, Slider, Stack, TextField, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import type { PlaygroundSettings } from './usePlaygroundChat';

export interface GroupOption {
  value: string;
  label: string;
}

interface PlaygroundSettingsPanelProps {
  settings: PlaygroundSettings;
  onChange: (change: Partial<PlaygroundSettings>) => void;
  groups: GroupOption[];
  models: string[];
  loading: boolean;
}

/** The left panel: group, model, temperature (0.1 to 1, step 0.1), max tokens and the system prompt. */
export const PlaygroundSettingsPanel = ({ settings, onChange, groups, models, loading }: PlaygroundSettingsPanelProps) => {
  const translate = useTranslate();
  return (
    <Card component="section" aria-label={translate('pages.playground.settings')} sx={{ width: { xs: '100%', md: 300 }, flexShrink: 0 }}>
      <CardContent>
        <Stack spacing={2}>
          <TextField
            select
            label={translate('pages.playground.group')}
            value={groups.some((group) => group.value === settings.group) ? settings.group : ''}
            onChange={(event) => onChange({ group: event.target.value })}
            size="small"
            fullWidth
          >
            {groups.map((group) => (
              <MenuItem key={group.value} value={group.value}>
                {group.label}
              </MenuItem>
            ))}
          </TextField>
          <Autocomplete
            freeSolo
            options={models}
            value={settings.model}
            loading={loading}
            onChange={(_event, value) => onChange({ model: value ?? '' })}
            onInputChange={(_event, value, reason) => reason === 'input' && onChange({ model: value })}
            renderInput={(params) => (
              <TextField
                {...params}
                label={translate('pages.playground.model')}
                size="small"
                helperText={!loading && models.length === 0 ? translate('pages.playground.no_models') : undefined}
              />
            )}
          />
          <Box>
            <Typography id="playground-temperature" variant="body2" gutterBottom>
              {translate('pages.playground.temperature')}: {settings.temperature}
            </Typography>
            <Slider
              aria-labelledby="playground-temperature"
              step={0.1}
              min={0.1}
              max={1}
              value={settings.temperature}
              onChange={(_event, value) => onChange({ temperature: Math.round((value as number) * 10) / 10 })}
              valueLabelDisplay="auto"
              sx={{ mx: 1, width: 'calc(100% - 16px)' }}
            />
          </Box>
          <TextField
            label={translate('pages.playground.max_tokens')}
            value={settings.maxTokens}
            onChange={(event) => onChange({ maxTokens: event.target.value.replace(/[^0-9]/g, '') })}
            slotProps={{ htmlInput: { inputMode: 'numeric' } }}
            size="small"
            fullWidth
          />
          <TextField
            label={translate('pages.playground.system')}
            value={settings.systemPrompt}
            onChange={(event) => onChange({ systemPrompt: event.target.value })}
            multiline
            minRows={3}
            maxRows={10}
            size="small"
            fullWidth
          />
        </Stack>
      </CardContent>
    </Card>
  );
};
