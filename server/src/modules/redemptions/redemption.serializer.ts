import type { RedemptionEntity } from '#projections/read-models/redemptions/redemption.entity';

/** A redemption code as new-api's JSON has it (Go field order; `count` is request-only and always 0). */
export interface RedemptionJson {
  id: number;
  user_id: number;
  key: string;
  status: number;
  name: string;
  quota: number;
  created_time: number;
  redeemed_time: number;
  count: number;
  used_user_id: number;
  DeletedAt: string | null;
}

export function toRedemptionJson(row: RedemptionEntity): RedemptionJson {
  return {
    id: row.id,
    user_id: row.userId,
    key: row.key,
    status: row.status,
    name: row.name,
    quota: row.quota,
    created_time: row.createdTime,
    redeemed_time: row.redeemedTime,
    count: 0,
    used_user_id: row.usedUserId,
    DeletedAt: row.deletedAt ? row.deletedAt.toISOString() : null,
  };
}
