/** A token row joined with its balance, as the read side loads it (TokenReader). */
export interface TokenView {
  id: number;
  userId: number;
  key: string;
  status: number;
  name: string;
  createdTime: number;
  accessedTime: number;
  expiredTime: number;
  unlimitedQuota: boolean;
  modelLimitsEnabled: boolean;
  modelLimits: string;
  allowIps: string | null;
  group: string;
  deletedAt: Date | null;
  /** From token_balances (0 when the token has no quota events yet). */
  remainQuota: number;
  usedQuota: number;
  /** Unix seconds of the last charge (token_balances), 0 if never charged. */
  lastUsedTime: number;
}

/**
 * new-api's token JSON (Go struct field order; the soft-delete column is `DeletedAt`, capitalised, as Go has no json
 * tag for it). The key is returned as stored, without `sk-`: the console adds the prefix when it shows or copies a key.
 */
export function toTokenJson(token: TokenView) {
  return {
    id: token.id,
    user_id: token.userId,
    key: token.key,
    status: token.status,
    name: token.name,
    created_time: token.createdTime,
    accessed_time: Math.max(token.accessedTime, token.lastUsedTime),
    expired_time: token.expiredTime,
    remain_quota: token.remainQuota,
    unlimited_quota: token.unlimitedQuota,
    model_limits_enabled: token.modelLimitsEnabled,
    model_limits: token.modelLimits,
    allow_ips: token.allowIps,
    used_quota: token.usedQuota,
    group: token.group,
    DeletedAt: token.deletedAt ? token.deletedAt.toISOString() : null,
  };
}

export type TokenJson = ReturnType<typeof toTokenJson>;
