import { otherInfoOf } from '#projections/read-models/channel-status/channel-status-fold';

/** A channel row joined with its projected status, as the queries read it. */
export interface ChannelViewRow {
  id: number;
  type: number;
  key: string;
  openai_organization: string | null;
  test_model: string | null;
  name: string;
  weight: number;
  created_time: string | number;
  base_url: string;
  other: string;
  models: string;
  group: string;
  model_mapping: string;
  status_code_mapping: string;
  priority: string | number;
  auto_ban: number;
  tag: string | null;
  setting: string;
  param_override: string;
  header_override: string;
  status: number | null;
  response_time: number | null;
  test_time: string | number | null;
  balance: number | null;
  balance_updated_time: string | number | null;
  used_quota: string | number | null;
  status_reason: string | null;
  status_time: string | number | null;
}

/** The SELECT list and join every channel query uses (alias c for channels, s for channel_status). */
export const CHANNEL_VIEW_SELECT = `
  SELECT c.id, c.type, c.key, c.openai_organization, c.test_model, c.name, c.weight, c.created_time, c.base_url, c.other,
         c.models, c."group", c.model_mapping, c.status_code_mapping, c.priority, c.auto_ban, c.tag, c.setting,
         c.param_override, c.header_override, s.status, s.response_time, s.test_time, s.balance, s.balance_updated_time,
         s.used_quota, s.status_reason, s.status_time
    FROM channels c LEFT JOIN channel_status s ON s.channel_id = c.id`;

export interface ChannelJson {
  id: number;
  type: number;
  key: string;
  openai_organization: string | null;
  test_model: string | null;
  status: number;
  name: string;
  weight: number;
  created_time: number;
  test_time: number;
  response_time: number;
  base_url: string;
  other: string;
  balance: number;
  balance_updated_time: number;
  models: string;
  group: string;
  used_quota: number;
  model_mapping: string;
  status_code_mapping: string;
  priority: number;
  auto_ban: number;
  other_info: string;
  tag: string | null;
  setting: string;
  param_override: string;
  header_override: string;
}

/**
 * new-api's channel JSON. The key is never answered once saved (`""` keeps the field; the editor leaves it blank
 * to keep the stored key). Status, test, balance and usage come from the projection; a channel it has not seen yet
 * is enabled, untested, unused.
 */
export function toChannelJson(row: ChannelViewRow): ChannelJson {
  return {
    id: row.id,
    type: row.type,
    key: '',
    openai_organization: row.openai_organization,
    test_model: row.test_model,
    status: row.status ?? 1,
    name: row.name,
    weight: row.weight,
    created_time: Number(row.created_time),
    test_time: Number(row.test_time ?? 0),
    response_time: row.response_time ?? 0,
    base_url: row.base_url,
    other: row.other,
    balance: Number(row.balance ?? 0),
    balance_updated_time: Number(row.balance_updated_time ?? 0),
    models: row.models,
    group: row.group,
    used_quota: Number(row.used_quota ?? 0),
    model_mapping: row.model_mapping,
    status_code_mapping: row.status_code_mapping,
    priority: Number(row.priority),
    auto_ban: row.auto_ban,
    other_info: otherInfoOf({ statusReason: row.status_reason, statusTime: row.status_time === null ? null : Number(row.status_time) }),
    tag: row.tag,
    setting: row.setting,
    param_override: row.param_override,
    header_override: row.header_override,
  };
}
