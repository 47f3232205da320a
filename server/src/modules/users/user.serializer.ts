import type { UserEntity } from './user.entity';

/** The money of a user as the account-balances projection shows it (zeros for an account without events). */
export interface BalanceFigures {
  quota: number;
  usedQuota: number;
  requestCount: number;
  affCount: number;
  affQuota: number;
  affHistoryQuota: number;
}

/**
 * The User JSON of new-api v0.3.0.0, keys in new-api's order.
 * `password` and `verification_code` are always present and always "". Soft delete is `DeletedAt` (capitalised).
 */
export interface UserJson {
  id: number;
  username: string;
  password: '';
  display_name: string;
  role: number;
  status: number;
  email: string;
  github_id: string;
  wechat_id: string;
  telegram_id: string;
  verification_code: '';
  access_token: string | null;
  quota: number;
  used_quota: number;
  request_count: number;
  group: string;
  aff_code: string;
  aff_count: number;
  aff_quota: number;
  aff_history_quota: number;
  inviter_id: number;
  DeletedAt: string | null;
  /**
   * Admin reads only (GET /api/user/:id): the account stream revision the quota figures were read at. The edit
   * form sends it back with PUT /api/user/ so a quota edit is decided against exactly the balance shown.
   */
  account_revision?: number;
  /** GET /api/user/self for role 100 only: true while the password is still the seeded default "123456". */
  password_is_default?: boolean;
}

export const NO_BALANCE: BalanceFigures = Object.freeze({
  quota: 0,
  usedQuota: 0,
  requestCount: 0,
  affCount: 0,
  affQuota: 0,
  affHistoryQuota: 0,
});

const ZERO_USER: UserJson = Object.freeze({
  id: 0,
  username: '',
  password: '',
  display_name: '',
  role: 0,
  status: 0,
  email: '',
  github_id: '',
  wechat_id: '',
  telegram_id: '',
  verification_code: '',
  access_token: null,
  quota: 0,
  used_quota: 0,
  request_count: 0,
  group: '',
  aff_code: '',
  aff_count: 0,
  aff_quota: 0,
  aff_history_quota: 0,
  inviter_id: 0,
  DeletedAt: null,
}) as UserJson;

/** access_token is char(32): Postgres pads a 28-character token with spaces, which are not part of it. */
function accessToken(value: string | null): string | null {
  return value === null || value === undefined ? null : value.trimEnd();
}

export interface SerializeOptions {
  accountRevision?: number;
  passwordIsDefault?: boolean;
  /**
   * Only the owner's own read (GET /api/user/self) carries the system access token. Every other answer (list,
   * search, get, edit, login) leaves it null: an admin who could read root's token could call root-only routes
   * with it.
   */
  withAccessToken?: boolean;
}

/** The full user: configuration from `users`, money from `account_balances`. */
export function toUserJson(user: UserEntity, balance: BalanceFigures | null = null, options: SerializeOptions = {}): UserJson {
  const money = balance ?? NO_BALANCE;
  const json: UserJson = {
    id: user.id,
    username: user.username,
    password: '',
    display_name: user.displayName,
    role: user.role,
    status: user.status,
    email: user.email,
    github_id: user.githubId,
    wechat_id: user.wechatId,
    telegram_id: user.telegramId,
    verification_code: '',
    access_token: options.withAccessToken ? accessToken(user.accessToken) : null,
    quota: money.quota,
    used_quota: money.usedQuota,
    request_count: money.requestCount,
    group: user.group,
    aff_code: user.affCode ?? '',
    aff_count: money.affCount,
    aff_quota: money.affQuota,
    aff_history_quota: money.affHistoryQuota,
    inviter_id: user.inviterId,
    DeletedAt: user.deletedAt ? user.deletedAt.toISOString() : null,
  };
  if (options.accountRevision !== undefined) json.account_revision = options.accountRevision;
  if (options.passwordIsDefault !== undefined) json.password_is_default = options.passwordIsDefault;
  return json;
}

/**
 * What a login answers, as in new-api: only id, username, display_name, role, status and group are filled,
 * every other field is its zero value. The console stores it in localStorage.
 */
export function toLoginUser(user: Pick<UserEntity, 'id' | 'username' | 'displayName' | 'role' | 'status' | 'group'>): UserJson {
  return {
    ...ZERO_USER,
    id: user.id,
    username: user.username,
    display_name: user.displayName,
    role: user.role,
    status: user.status,
    group: user.group,
  };
}

/** POST /api/user/manage answers `{role, status}` serialised as a User whose other fields are zero (as new-api). */
export function toRoleStatusUser(user: Pick<UserEntity, 'role' | 'status'>): UserJson {
  return { ...ZERO_USER, role: user.role, status: user.status };
}
