import { z } from 'zod';
import { InvalidParamsError } from '../../common/http/errors';
import { ChannelType } from '../../upstreams/channel-types';
import { decodeBody, jsonInteger, jsonText } from '../users/user-input';
import { ChannelStatus } from './channel.events';
import { ChannelInputError, type ChannelMessageCode } from './channel.errors';

/**
 * The channel form as the console sends it: `models` and `group` are comma strings,
 * JSON settings are texts. Unknown keys (the form's `groups` list, `max_input_tokens`) are ignored like
 * new-api's binding does; null counts as absent.
 */
export const channelBody = z.object({
  id: jsonInteger,
  type: jsonInteger,
  key: jsonText,
  openai_organization: jsonText,
  test_model: jsonText,
  status: jsonInteger,
  name: jsonText,
  weight: jsonInteger,
  base_url: jsonText,
  other: jsonText,
  models: jsonText,
  group: jsonText,
  model_mapping: jsonText,
  status_code_mapping: jsonText,
  priority: jsonInteger,
  auto_ban: jsonInteger,
  tag: jsonText,
  setting: jsonText,
  param_override: jsonText,
  header_override: jsonText,
});

export type ChannelBody = z.infer<typeof channelBody>;

export function decodeChannelBody(body: unknown): ChannelBody {
  return decodeBody(channelBody, body);
}

/** The configuration of one channel after the form's rules, ready to store. */
export interface ChannelFields {
  type: number;
  name: string;
  key: string;
  openaiOrganization: string | null;
  testModel: string | null;
  weight: number;
  baseUrl: string;
  other: string;
  models: string[];
  groups: string[];
  modelMapping: string;
  statusCodeMapping: string;
  priority: number;
  autoBan: number;
  tag: string | null;
  setting: string;
  paramOverride: string;
  headerOverride: string;
}

export const DEFAULT_GROUP = 'default';
export const AZURE_DEFAULT_API_VERSION = '2023-06-01-preview';
export const SPARK_DEFAULT_VERSION = 'v2.1';
/** The console form's bounds: priority at least -999, weight at least 0 (negatives become 0). */
export const MIN_PRIORITY = -999;
/** Columns: weight is a Postgres integer; priority a bigint kept within exact doubles. */
const MAX_WEIGHT = 2_147_483_647;
const MAX_PRIORITY = Number.MAX_SAFE_INTEGER;
/** The abilities table's key columns. */
const MAX_GROUP_LENGTH = 64;
const MAX_MODEL_LENGTH = 255;

const KNOWN_TYPES = new Set<number>(Object.values(ChannelType));

/**
 * A comma list as new-api stores `models` and `group`, read the way the form means it: names trimmed,
 * empty entries and repeats dropped (new-api keeps " b" from "a, b" as a model named " b").
 */
export function parseList(text: string): string[] {
  const seen = new Set<string>();
  for (const part of text.split(',')) {
    const name = part.trim();
    if (name) seen.add(name);
  }
  return [...seen];
}

/** Trailing slashes (and surrounding blanks) removed from a base URL, as the console form does. */
export function normalizeBaseUrl(text: string): string {
  return text.trim().replace(/\/+$/, '');
}

/** '' or a JSON object whose values pass `value`. */
function isJsonObjectText(text: string, value: (entry: unknown) => boolean = () => true): boolean {
  if (text.trim() === '') return true;
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) && Object.values(parsed).every(value);
  } catch {
    return false;
  }
}

const isString = (entry: unknown) => typeof entry === 'string';
const isStatusCode = (entry: unknown) => (typeof entry === 'string' || typeof entry === 'number') && /^\d{3}$/.test(String(entry));

/** The type's `other` default when the form leaves it empty: Azure's api-version, Spark's version. */
export function defaultOther(type: number, other: string): string {
  if (other !== '') return other;
  if (type === ChannelType.Azure) return AZURE_DEFAULT_API_VERSION;
  if (type === ChannelType.Xunfei) return SPARK_DEFAULT_VERSION;
  return other;
}

function check(condition: boolean, code: ChannelMessageCode): void {
  if (!condition) throw new ChannelInputError(code);
}

/**
 * Every rule a stored channel satisfies, in the order the form reports them. Bounds are clamped as the form's
 * number inputs clamp them; values no column can hold are "无效的参数".
 */
export function validateChannel(fields: ChannelFields): ChannelFields {
  if (!KNOWN_TYPES.has(fields.type)) throw new InvalidParamsError();
  check(fields.name.trim() !== '' && fields.key.trim() !== '', 'name_and_key_required');
  check(fields.models.length > 0, 'models_required');
  check(isJsonObjectText(fields.modelMapping, isString), 'model_mapping_invalid');
  check(isJsonObjectText(fields.statusCodeMapping, isStatusCode), 'status_code_mapping_invalid');
  check(isJsonObjectText(fields.setting), 'setting_invalid');
  check(isJsonObjectText(fields.paramOverride), 'param_override_invalid');
  check(isJsonObjectText(fields.headerOverride, isString), 'header_override_invalid');
  if (fields.type === ChannelType.VertexAI) {
    check(fields.other.trim() !== '', 'vertex_region_required');
    if (fields.other.trim().startsWith('{')) {
      let regions: unknown = null;
      try {
        regions = JSON.parse(fields.other);
      } catch {
        regions = null;
      }
      check(regions !== null && typeof regions === 'object' && 'default' in regions, 'vertex_region_default');
    }
  }
  if (fields.models.some((model) => model.length > MAX_MODEL_LENGTH)) throw new InvalidParamsError();
  if (fields.groups.some((group) => group.length > MAX_GROUP_LENGTH)) throw new InvalidParamsError();
  if (fields.weight > MAX_WEIGHT || fields.priority > MAX_PRIORITY) throw new InvalidParamsError();
  if (fields.autoBan !== 0 && fields.autoBan !== 1) throw new InvalidParamsError();
  return {
    ...fields,
    name: fields.name.trim(),
    baseUrl: normalizeBaseUrl(fields.baseUrl),
    other: defaultOther(fields.type, fields.other),
    weight: Math.max(0, fields.weight),
    priority: Math.max(MIN_PRIORITY, fields.priority),
    groups: fields.groups.length ? fields.groups : [DEFAULT_GROUP],
  };
}

/**
 * A status an admin may set: 1 enabled or 2 disabled; 3 belongs to the automatic rules. The channel's own status
 * sent back unchanged is no change, whatever it is: the console's edit form saves the whole channel it loaded, so
 * fixing the key of an auto-disabled channel sends `status: 3` (and must neither fail nor enable it).
 */
function adminStatus(status: number | undefined, currentStatus?: number): number | undefined {
  if (status === undefined || status === 0) return undefined;
  if (currentStatus !== undefined && status === currentStatus && status === ChannelStatus.AutoDisabled) return undefined;
  if (status !== ChannelStatus.Enabled && status !== ChannelStatus.ManuallyDisabled) throw new InvalidParamsError();
  return status;
}

/**
 * Type 21 (AI Proxy knowledge base) has no adapter (new-api's is commented out): a channel of it would fail every
 * request with `invalid api type`. It is refused when created or when an edit moves a channel to it.
 */
function refuseTypeWithoutAdapter(type: number): void {
  check(type !== ChannelType.AIProxyLibrary, 'type_without_adapter');
}

export interface NewChannels {
  /** One channel per key (batch add); the fields shared by all, `key` set per channel. */
  channels: ChannelFields[];
  /** The status the new channels start in (1 unless the form says 2). */
  status: number;
}

/**
 * POST /api/channel/: one channel per non-empty line of `key` (Vertex AI keeps its JSON credential whole), with
 * GORM's "zero means default" for the defaulted columns (auto_ban 1, group 'default', weight and priority 0).
 */
export function newChannelsFrom(body: ChannelBody): NewChannels {
  const status = adminStatus(body.status) ?? ChannelStatus.Enabled;
  refuseTypeWithoutAdapter(body.type ?? 0);
  const base = validateChannel({
    type: body.type ?? 0,
    name: body.name ?? '',
    key: body.key ?? '',
    openaiOrganization: body.openai_organization ?? null,
    testModel: body.test_model ?? null,
    weight: body.weight ?? 0,
    baseUrl: body.base_url ?? '',
    other: body.other ?? '',
    models: parseList(body.models ?? ''),
    groups: parseList(body.group ?? ''),
    modelMapping: body.model_mapping ?? '',
    statusCodeMapping: body.status_code_mapping ?? '',
    priority: body.priority ?? 0,
    autoBan: body.auto_ban ?? 1,
    tag: body.tag ?? null,
    setting: body.setting ?? '',
    paramOverride: body.param_override ?? '',
    headerOverride: body.header_override ?? '',
  });
  const keys =
    base.type === ChannelType.VertexAI
      ? [base.key.trim()]
      : base.key
          .split('\n')
          .map((line) => line.trim())
          .filter((line) => line !== '');
  return { channels: keys.map((key) => ({ ...base, key })), status };
}

export interface ChannelUpdate {
  fields: ChannelFields;
  /** The status to move to, when the body names one. */
  status: number | undefined;
}

/**
 * PUT /api/channel/ as new-api's GORM `Updates`: plain fields change only when non-zero (an empty key keeps
 * the stored key), nullable ones (weight, priority, auto_ban, base_url, mappings, organization, test model) whenever
 * present. The merged channel must pass every rule again.
 */
export function channelUpdateFrom(body: ChannelBody, current: ChannelFields, currentStatus?: number): ChannelUpdate {
  const nonZeroText = (value: string | undefined, fallback: string) => (value ? value : fallback);
  // A channel stored with that type before (an imported database) may still be edited or disabled.
  if (body.type && body.type !== current.type) refuseTypeWithoutAdapter(body.type);
  const fields = validateChannel({
    type: body.type || current.type,
    name: nonZeroText(body.name, current.name),
    key: body.key?.trim() ? body.key.trim() : current.key,
    openaiOrganization: body.openai_organization ?? current.openaiOrganization,
    testModel: body.test_model ?? current.testModel,
    weight: body.weight ?? current.weight,
    baseUrl: body.base_url ?? current.baseUrl,
    other: nonZeroText(body.other, current.other),
    models: body.models ? parseList(body.models) : current.models,
    groups: body.group ? parseList(body.group) : current.groups,
    modelMapping: body.model_mapping ?? current.modelMapping,
    statusCodeMapping: body.status_code_mapping ?? current.statusCodeMapping,
    priority: body.priority ?? current.priority,
    autoBan: body.auto_ban ?? current.autoBan,
    tag: body.tag ?? current.tag,
    setting: body.setting ?? current.setting,
    paramOverride: body.param_override ?? current.paramOverride,
    headerOverride: body.header_override ?? current.headerOverride,
  });
  return { fields, status: adminStatus(body.status, currentStatus) };
}
