import { useEffect, useState } from 'react';
import { Autocomplete, Box, Button, Chip, Stack, TextField } from '@mui/material';
import { useTranslate } from 'react-admin';
import { useApiNotify } from '../../hooks/useApiNotify';
import { apiRequest } from '../../providers/httpClient';
import { fetchUpstreamModels, modelsByType } from '../../providers/endpoints/channelEndpoints';
import { addCustomModels } from './channelForm';
import { channelTypeInfo } from './channelTypes';

interface Props {
  type: number;
  models: string[];
  onChange: (models: string[]) => void;
  /** What the upstream fetch needs: a saved channel's id, or the typed key and base URL. */
  fetchSource: { id?: number; key: string; baseUrl: string };
}

/** Each type's built-in list (`/api/models`) and every built-in model (`/api/channel/models`), read once. */
const useCatalogue = () => {
  const [byType, setByType] = useState<Record<string, string[]>>({});
  const [all, setAll] = useState<string[]>([]);
  useEffect(() => {
    let active = true;
    modelsByType()
      .then((lists) => active && setByType(lists))
      .catch(() => undefined);
    apiRequest<Array<{ id: string }> | null>('/api/channel/models')
      .then((models) => active && setAll([...new Set((models ?? []).map((model) => model.id))]))
      .catch(() => undefined);
    return () => {
      active = false;
    };
  }, []);
  return { byType, all };
};

/** The channel's models: picked from the lists, filled from the type or from everything, fetched from the upstream, or typed. */
export const ModelsField = ({ type, models, onChange, fetchSource }: Props) => {
  const translate = useTranslate();
  const notify = useApiNotify();
  const { byType, all } = useCatalogue();
  const [custom, setCustom] = useState('');
  const [fetching, setFetching] = useState(false);
  const typeModels = byType[String(type)] ?? [];
  const options = [...new Set([...typeModels, ...all])];

  const fetchModels = async () => {
    if (!channelTypeInfo(type)?.fetchModels) {
      notify.failure('app.channels.errors.fetch_openai_only');
      return;
    }
    if (fetchSource.id === undefined && !fetchSource.key.trim()) {
      notify.failure('app.channels.errors.key_required_to_fetch');
      return;
    }
    setFetching(true);
    try {
      const fetched =
        fetchSource.id !== undefined && !fetchSource.key.trim()
          ? await fetchUpstreamModels({ id: fetchSource.id })
          : await fetchUpstreamModels({
              type,
              base_url: fetchSource.baseUrl.trim().replace(/\/+$/, ''),
              key: fetchSource.key.split('\n')[0].trim(),
            });
      onChange([...new Set(fetched)]);
      notify.success('app.channels.models_fetched', { count: fetched.length });
    } catch (error) {
      notify.error(error);
    } finally {
      setFetching(false);
    }
  };

  const addCustom = () => {
    if (!custom.trim()) return;
    const { models: next, existing } = addCustomModels(models, custom);
    if (existing.length > 0) notify.failure('app.channels.errors.models_exist', { models: existing.join(', ') });
    onChange(next);
    setCustom('');
  };

  return (
    <Box>
      <Autocomplete
        multiple
        freeSolo
        options={options}
        value={models}
        onChange={(_, value) => onChange([...new Set(value.map((item) => String(item).trim()).filter(Boolean))])}
        renderValue={(value, getItemProps) =>
          value.map((option, index) => {
            const { key, ...itemProps } = getItemProps({ index });
            return <Chip key={key} size="small" label={option} {...itemProps} />;
          })
        }
        renderInput={(params) => (
          <TextField
            {...params}
            label={translate('app.channels.fields.models')}
            placeholder={translate('app.channels.models_placeholder')}
            required
          />
        )}
      />
      <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap', mt: 1 }}>
        <Button size="small" variant="outlined" onClick={() => onChange([...new Set([...models, ...typeModels])])}>
          {translate('app.channels.fill_type_models')}
        </Button>
        <Button size="small" variant="outlined" onClick={() => onChange([...new Set([...models, ...all])])}>
          {translate('app.channels.fill_all_models')}
        </Button>
        <Button size="small" variant="outlined" disabled={fetching} onClick={() => void fetchModels()}>
          {fetching ? translate('app.channels.working') : translate('app.channels.fetch_models')}
        </Button>
        <Button size="small" color="warning" onClick={() => onChange([])}>
          {translate('app.channels.clear_models')}
        </Button>
      </Stack>
      <Stack direction="row" spacing={1} sx={{ mt: 1 }}>
        <TextField
          size="small"
          fullWidth
          label={translate('app.channels.custom_models')}
          placeholder={translate('app.channels.custom_models_placeholder')}
          value={custom}
          onChange={(event) => setCustom(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter') {
              event.preventDefault();
              addCustom();
            }
          }}
        />
        <Button variant="outlined" onClick={addCustom}>
          {translate('app.channels.add_custom')}
        </Button>
      </Stack>
    </Box>
  );
};
