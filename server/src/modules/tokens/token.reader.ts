import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { TokenView } from './token.serializer';

interface TokenRow {
  id: number;
  user_id: number;
  key: string;
  status: number;
  name: string;
  created_time: string;
  accessed_time: string;
  expired_time: string;
  unlimited_quota: boolean;
  model_limits_enabled: boolean;
  model_limits: string;
  allow_ips: string | null;
  group: string;
  deleted_at: Date | null;
  remain_quota: string | null;
  used_quota: string | null;
  last_used_time: string | null;
}

const SELECT = `
  SELECT t.id, t.user_id, t.key, t.status, t.name, t.created_time, t.accessed_time, t.expired_time, t.unlimited_quota,
         t.model_limits_enabled, t.model_limits, t.allow_ips, t."group", t.deleted_at,
         b.remain_quota, b.used_quota, b.accessed_time AS last_used_time
    FROM tokens t LEFT JOIN token_balances b ON b.token_id = t.id`;

function toView(row: TokenRow): TokenView {
  return {
    id: row.id,
    userId: row.user_id,
    key: row.key,
    status: row.status,
    name: row.name,
    createdTime: Number(row.created_time),
    accessedTime: Number(row.accessed_time),
    expiredTime: Number(row.expired_time),
    unlimitedQuota: row.unlimited_quota,
    modelLimitsEnabled: row.model_limits_enabled,
    modelLimits: row.model_limits,
    allowIps: row.allow_ips,
    group: row.group,
    deletedAt: row.deleted_at,
    remainQuota: Number(row.remain_quota ?? 0),
    usedQuota: Number(row.used_quota ?? 0),
    lastUsedTime: Number(row.last_used_time ?? 0),
  };
}

/** `%` and `_` typed into a search box are characters to find, not wildcards. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}

/**
 * Reads tokens joined with their projected balances: the configuration table and the projection table are
 * written by different writers and met only here.
 */
@Injectable()
export class TokenReader {
  constructor(private readonly dataSource: DataSource) {}

  async listOwned(userId: number, page: number, size: number): Promise<TokenView[]> {
    const rows: TokenRow[] = await this.dataSource.query(
      `${SELECT} WHERE t.user_id = $1 AND t.deleted_at IS NULL ORDER BY t.id DESC LIMIT $2 OFFSET $3`,
      [userId, size, page * size],
    );
    return rows.map(toView);
  }

  /** name LIKE %keyword% AND key LIKE %token%, as new-api searches, newest first, no paging. */
  async searchOwned(userId: number, keyword: string, keyPart: string): Promise<TokenView[]> {
    const rows: TokenRow[] = await this.dataSource.query(
      `${SELECT} WHERE t.user_id = $1 AND t.deleted_at IS NULL AND t.name LIKE $2 AND t.key LIKE $3 ORDER BY t.id DESC`,
      [userId, `%${escapeLike(keyword)}%`, `%${escapeLike(keyPart)}%`],
    );
    return rows.map(toView);
  }

  /** One of the caller's own live tokens, or null (someone else's token reads exactly like a missing one). */
  async findOwned(userId: number, id: number, manager: EntityManager = this.dataSource.manager): Promise<TokenView | null> {
    const rows: TokenRow[] = await manager.query(`${SELECT} WHERE t.id = $1 AND t.user_id = $2 AND t.deleted_at IS NULL`, [id, userId]);
    return rows[0] ? toView(rows[0]) : null;
  }
}
