import type { Channel } from '../../providers/endpoints/channelEndpoints';
import { channelTypeInfo } from './channelTypes';

/** The editor's values: the wire's comma strings as lists. */
export interface ChannelFormValues {
  id?: number;
  type: number;
  name: string;
  key: string;
  base_url: string;
  other: string;
  openai_organization: string;
  models: string[];
  groups: string[];
  model_mapping: string;
  status_code_mapping: string;
  test_model: string;
  auto_ban: boolean;
  priority: number;
  weight: number;
  status?: number;
}

export const NEW_CHANNEL: ChannelFormValues = {
  type: 1,
  name: '',
  key: '',
  base_url: '',
  other: '',
  openai_organization: '',
  models: [],
  groups: ['default'],
  model_mapping: '',
  status_code_mapping: '',
  test_model: '',
  auto_ban: true,
  priority: 0,
  weight: 0,
};

/** Splits a comma list, trimming and dropping blanks and repeats. */
export const splitList = (text: string | null | undefined): string[] => [
  ...new Set(
    (text ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean),
  ),
];

export const toFormValues = (channel: Channel): ChannelFormValues => ({
  id: channel.id,
  type: channel.type,
  name: channel.name,
  key: '',
  base_url: channel.base_url ?? '',
  other: channel.other ?? '',
  openai_organization: channel.openai_organization ?? '',
  models: splitList(channel.models),
  groups: splitList(channel.group),
  model_mapping: channel.model_mapping ?? '',
  status_code_mapping: channel.status_code_mapping ?? '',
  test_model: channel.test_model ?? '',
  auto_ban: channel.auto_ban !== 0,
  priority: channel.priority ?? 0,
  weight: channel.weight ?? 0,
  status: channel.status,
});

/** JSON text the server can read: blank, or a JSON object. */
export const isJsonObjectText = (text: string): boolean => {
  if (!text.trim()) return true;
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed);
  } catch {
    return false;
  }
};

/** The first broken client rule (spec 1 section 5) as an i18n key, or null when the form can be sent. */
export const formProblem = (values: ChannelFormValues, creating: boolean): string | null => {
  if (creating && (!values.name.trim() || !values.key.trim())) return 'app.channels.errors.name_and_key';
  if (!creating && !values.name.trim()) return 'app.channels.errors.name_and_key';
  if (values.models.length === 0) return 'app.channels.errors.models_required';
  if (!isJsonObjectText(values.model_mapping)) return 'app.channels.errors.model_mapping_json';
  if (!isJsonObjectText(values.status_code_mapping)) return 'app.channels.errors.status_code_mapping_json';
  const info = channelTypeInfo(values.type);
  if (info?.baseUrlRequired && !values.base_url.trim()) return 'app.channels.errors.base_url_required';
  if (values.type === 41) {
    if (!values.other.trim()) return 'app.channels.errors.vertex_region';
    if (values.other.trim().startsWith('{')) {
      try {
        const regions = JSON.parse(values.other) as Record<string, unknown>;
        if (!('default' in regions)) return 'app.channels.errors.vertex_region_default';
      } catch {
        return 'app.channels.errors.vertex_region_json';
      }
    }
  }
  return null;
};

/** Priority at least -999; weight at least 0 (negatives become 0). */
export const clampPriority = (value: number): number => (Number.isFinite(value) ? Math.max(-999, Math.trunc(value)) : 0);
export const clampWeight = (value: number): number => (Number.isFinite(value) ? Math.max(0, Math.trunc(value)) : 0);

/** The body of POST or PUT /api/channel/: trailing slash off the base URL, type defaults for `other`, lists as comma strings. */
export const toChannelBody = (values: ChannelFormValues): Record<string, unknown> => {
  let other = values.other.trim();
  if (values.type === 3 && !other) other = '2023-06-01-preview';
  if (values.type === 18 && !other) other = 'v2.1';
  const body: Record<string, unknown> = {
    type: values.type,
    name: values.name.trim(),
    key: values.key.trim(),
    base_url: values.base_url.trim().replace(/\/+$/, ''),
    other,
    openai_organization: values.type === 1 ? values.openai_organization.trim() : '',
    models: values.models.join(','),
    group: values.groups.join(','),
    model_mapping: values.model_mapping.trim(),
    status_code_mapping: values.status_code_mapping.trim(),
    test_model: values.test_model.trim(),
    auto_ban: values.auto_ban ? 1 : 0,
    priority: clampPriority(Number(values.priority)),
    weight: clampWeight(Number(values.weight)),
  };
  if (values.id !== undefined) body.id = values.id;
  return body;
};

/** How many channels a create makes: one per non-empty key line, except for a type whose key is one JSON credential. */
export const keyLineCount = (values: Pick<ChannelFormValues, 'type' | 'key'>): number => {
  if (channelTypeInfo(values.type)?.keyWhole) return values.key.trim() ? 1 : 0;
  return values.key.split('\n').filter((line) => line.trim()).length;
};

/** Adds custom model names; answers the list and the names that were already there. */
export const addCustomModels = (current: string[], typed: string): { models: string[]; existing: string[] } => {
  const names = splitList(typed.replace(/\n/g, ','));
  const existing = names.filter((name) => current.includes(name));
  return { models: [...current, ...names.filter((name) => !current.includes(name))], existing };
};
