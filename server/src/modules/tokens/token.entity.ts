import { Column, DeleteDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** Postgres bigint arrives as a string; times and quota stay far below 2^53, so a number is exact. */
const bigintAsNumber = {
  to: (value: number | undefined) => value,
  from: (value: string | number | null) => (value === null ? 0 : Number(value)),
};

/**
 * Configuration of an API token (new-api's `tokens` row), written only by the tokens command handlers.
 * Its money is not here: remain_quota and used_quota are the token-balances projection's (`token_balances`),
 * folded from TokenQuotaAllotted and the relay's QuotaConsumed events.
 */
@Entity({ name: 'tokens' })
export class TokenEntity {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'integer', name: 'user_id' })
  userId!: number;

  /** 48 characters of [0-9a-zA-Z], stored without the `sk-` the console shows in front of it. */
  @Column({ type: 'char', length: 48 })
  key!: string;

  /** 1 enabled, 2 disabled, 3 expired, 4 exhausted (TokenStatus). */
  @Column({ type: 'integer', default: 1 })
  status!: number;

  @Column({ type: 'varchar', default: '' })
  name!: string;

  /** Unix seconds. */
  @Column({ type: 'bigint', name: 'created_time', transformer: bigintAsNumber })
  createdTime!: number;

  /** Unix seconds; set at creation. The last use comes from the ledger (token_balances.accessed_time). */
  @Column({ type: 'bigint', name: 'accessed_time', transformer: bigintAsNumber })
  accessedTime!: number;

  /** Unix seconds, or -1 for never. */
  @Column({ type: 'bigint', name: 'expired_time', default: -1, transformer: bigintAsNumber })
  expiredTime!: number;

  @Column({ type: 'boolean', name: 'unlimited_quota', default: false })
  unlimitedQuota!: boolean;

  @Column({ type: 'boolean', name: 'model_limits_enabled', default: false })
  modelLimitsEnabled!: boolean;

  /** Comma list of model names the token may call when model_limits_enabled. */
  @Column({ type: 'varchar', name: 'model_limits', length: 1024, default: '' })
  modelLimits!: string;

  /** One IP (or, as an improvement, CIDR range) per line; null or '' means any address. */
  @Column({ type: 'text', name: 'allow_ips', nullable: true, default: '' })
  allowIps!: string | null;

  /** '' means the owner's group. */
  @Column({ type: 'varchar', name: 'group', length: 64, default: '' })
  group!: string;

  @DeleteDateColumn({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt!: Date | null;
}
