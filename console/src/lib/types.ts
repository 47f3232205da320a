/** Wire shapes of the console API (new-api v0.3.0.0's JSON, field names as on the wire). */

export interface ApiEnvelope<T = unknown> {
  success?: boolean;
  message?: string;
  data?: T;
  [extra: string]: unknown;
}

export const ROLE_COMMON = 1;
export const ROLE_ADMIN = 10;
export const ROLE_ROOT = 100;

export const USER_STATUS_ENABLED = 1;
export const USER_STATUS_DISABLED = 2;

/** What the login answer carries; stored as JSON under localStorage `user`. */
export interface SessionUser {
  id: number;
  username: string;
  display_name?: string;
  role: number;
  status: number;
  group?: string;
}

export interface User extends SessionUser {
  /** Always blank on the wire; only sent when setting a new one. */
  password?: string;
  email: string;
  github_id: string;
  wechat_id: string;
  telegram_id: string;
  quota: number;
  used_quota: number;
  request_count: number;
  aff_code: string;
  aff_count: number;
  aff_quota: number;
  aff_history_quota: number;
  inviter_id: number;
  access_token?: string | null;
  DeletedAt: string | null;
}

export type UserManageAction = 'promote' | 'demote' | 'disable' | 'enable' | 'delete';

/** `GET /api/status` data; every key is optional because older or partial servers may omit some. */
export interface PublicStatus {
  version?: string;
  start_time?: number;
  system_name?: string;
  logo?: string;
  footer_html?: string;
  server_address?: string;
  quota_per_unit?: number;
  display_in_currency?: boolean;
  enable_drawing?: boolean;
  enable_task?: boolean;
  enable_data_export?: boolean;
  data_export_default_time?: string;
  default_collapse_sidebar?: boolean;
  mj_notify_enabled?: boolean;
  chat_link?: string;
  chat_link2?: string;
  email_verification?: boolean;
  turnstile_check?: boolean;
  turnstile_site_key?: string;
  github_oauth?: boolean;
  github_client_id?: string;
  wechat_login?: boolean;
  wechat_qrcode?: string;
  telegram_oauth?: boolean;
  telegram_bot_name?: string;
  top_up_link?: string;
  price?: number;
  min_topup?: number;
  enable_online_topup?: boolean;
}

/** Redemption code statuses: 1 unused, 2 disabled, 3 used. */
export const REDEMPTION_STATUS_UNUSED = 1;
export const REDEMPTION_STATUS_DISABLED = 2;
export const REDEMPTION_STATUS_USED = 3;

/** A redemption code as GET /api/redemption/ answers it (`created_time` in seconds; `used_user_id` 0 when unused). */
export interface Redemption {
  id: number;
  user_id: number;
  key: string;
  status: number;
  name: string;
  quota: number;
  created_time: number;
  redeemed_time: number;
  used_user_id: number;
}

/** What creating a batch of codes gives back: the new keys, under the batch's name. */
export interface RedemptionBatch {
  id: string;
  name: string;
  quota: number;
  keys: string[];
}
