/** A `logs` row as Postgres returns it (bigint columns arrive as strings). */
export interface LogRow {
  id: string | number;
  user_id: number;
  created_at: string | number;
  type: number;
  content: string;
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
  other: string;
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
  'id, user_id, created_at, type, content, username, token_name, model_name, quota, prompt_tokens, completion_tokens, use_time, is_stream, channel_id, token_id, "group", other';

export function toLogJson(row: LogRow): LogJson {
  return {
    id: Number(row.id),
    user_id: row.user_id,
    created_at: Number(row.created_at),
    type: row.type,
    content: row.content,
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
    other: row.other,
  };
}

/** Go's json.Marshal of a map: keys sorted at every level. */
function sortedJson(value: unknown): string {
  const sort = (item: unknown): unknown => {
    if (Array.isArray(item)) return item.map(sort);
    if (item && typeof item === 'object') {
      return Object.fromEntries(Object.keys(item as object).sort().map((key) => [key, sort((item as Record<string, unknown>)[key])]));
    }
    return item;
  };
  return JSON.stringify(sort(value));
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
  return { ...toLogJson(row), id: 0, other: otherForUser(row.other) };
}
