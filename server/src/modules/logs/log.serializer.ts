import { type ConsumeFacts, derivedConsumeContent, derivedConsumeOther } from '#projections/read-models/logs/consume-log-columns';
import { sortedJson } from '../../common/json/sorted-json';

/**
 * A `logs` row as Postgres returns it (bigint columns arrive as strings). `content` and `other` are NULL on a consume
 * row whose consume columns (model_ratio … end_reason) give them back exactly (consume-log-columns.ts).
 */
export interface LogRow {
  id: string | number;
  user_id: number;
  created_at: string | number;
  type: number;
  content: string | null;
  username: string;
  token_name: string;
  model_name: string;
  quota: string | number;
  prompt_tokens: number;
  completion_tokens: number;
  use_time: number;
  is_stream: boolean;
  channel_id: number;
  token_id: number;
  group: string;
  other: string | null;
  model_ratio: number | null;
  completion_ratio: number | null;
  group_ratio: number | null;
  model_price: number | null;
  frt: number | null;
  cache_tokens: number | null;
  usage_source: number | null;
  end_reason: number | null;
}

/** new-api's Log JSON: the channel id is called `channel`; `group` as later versions add it. */
export interface LogJson {
  id: number;
  user_id: number;
  created_at: number;
  type: number;
  content: string;
  username: string;
  token_name: string;
  model_name: string;
  quota: number;
  prompt_tokens: number;
  completion_tokens: number;
  use_time: number;
  is_stream: boolean;
  channel: number;
  token_id: number;
  group: string;
  other: string;
}

/** The columns the serializer needs, for SELECTs. */
export const LOG_COLUMNS =
  'id, user_id, created_at, type, content, username, token_name, model_name, quota, prompt_tokens, completion_tokens, use_time, is_stream, channel_id, token_id, "group", other, model_ratio, completion_ratio, group_ratio, model_price, frt, cache_tokens, usage_source, end_reason';

function factsOf(row: LogRow): ConsumeFacts {
  return {
    modelRatio: row.model_ratio,
    completionRatio: row.completion_ratio,
    groupRatio: row.group_ratio,
    modelPrice: row.model_price,
    frt: row.frt,
    cacheTokens: row.cache_tokens,
    usageSource: row.usage_source,
    endReason: row.end_reason,
  };
}

/** The row's wording: stored, or derived from its consume columns. */
export function logContent(row: LogRow): string {
  return row.content ?? derivedConsumeContent(factsOf(row), row.prompt_tokens, row.completion_tokens) ?? '';
}

/** The row's `other` JSON text: stored, or derived from its consume columns. */
export function logOther(row: LogRow): string {
  return row.other ?? derivedConsumeOther(factsOf(row), row.channel_id) ?? '';
}

export function toLogJson(row: LogRow): LogJson {
  return {
    id: Number(row.id),
    user_id: row.user_id,
    created_at: Number(row.created_at),
    type: row.type,
    content: logContent(row),
    username: row.username,
    token_name: row.token_name,
    model_name: row.model_name,
    quota: Number(row.quota),
    prompt_tokens: row.prompt_tokens,
    completion_tokens: row.completion_tokens,
    use_time: row.use_time,
    is_stream: row.is_stream,
    channel: row.channel_id,
    token_id: row.token_id,
    group: row.group,
    other: logOther(row),
  };
}

/**
 * `other` as a user may see it: `admin_info` (the channels tried) removed; text that is not a JSON object
 * (the empty `other` of admin and system rows) becomes "null", as new-api's StrToMap/MapToJsonStr do.
 */
export function otherForUser(other: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(other);
  } catch {
    return 'null';
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return 'null';
  const { admin_info: _hidden, ...rest } = parsed as Record<string, unknown>;
  return sortedJson(rest);
}

/** A row of the caller's own logs: no id (new-api omits it, so it reads 0) and no admin_info. */
export function toSelfLogJson(row: LogRow): LogJson {
  const json = toLogJson(row);
  return { ...json, id: 0, other: otherForUser(json.other) };
}
