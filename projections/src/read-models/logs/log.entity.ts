import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintAsNumber } from '../bigint-as-number';

/** new-api's log types (there is no error type); 0 is "all" in filters only. */
export const LogType = { TopUp: 1, Consume: 2, Manage: 3, System: 4 } as const;

/**
 * The log screen's rows (new-api's `logs` columns), a projection of ledger events: written only by the logs
 * projection, one row per event at most (`id` is the event's ledger position; the primary key is (id, created_at),
 * as the table is partitioned by month on created_at: 1732300009100-partition-logs-by-month, docs/logs.md).
 */
@Entity({ name: 'logs' })
export class LogEntity {
  /** The ledger position of the event the row was projected from (same live and after a rebuild). */
  @PrimaryColumn({ type: 'bigint', transformer: bigintAsNumber })
  id!: number;

  @Column({ type: 'integer', name: 'user_id', default: 0 })
  userId!: number;

  /** Unix seconds of the event (its ledger timestamp), not of the projection run. */
  @PrimaryColumn({ type: 'bigint', name: 'created_at', transformer: bigintAsNumber })
  createdAt!: number;

  @Column({ type: 'integer', default: 0 })
  type!: number;

  /** NULL on a consume row whose consume columns give it back exactly (consume-log-columns.ts). */
  @Column({ type: 'text', nullable: true })
  content!: string | null;

  /** Byte order (migration 1732300009980), as `model_name`. */
  @Column({ type: 'varchar', default: '', collation: 'C' })
  username!: string;

  @Column({ type: 'varchar', name: 'token_name', default: '' })
  tokenName!: string;

  @Column({ type: 'varchar', name: 'model_name', default: '', collation: 'C' })
  modelName!: string;

  @Column({ type: 'bigint', default: 0, transformer: bigintAsNumber })
  quota!: number;

  @Column({ type: 'integer', name: 'prompt_tokens', default: 0 })
  promptTokens!: number;

  @Column({ type: 'integer', name: 'completion_tokens', default: 0 })
  completionTokens!: number;

  @Column({ type: 'integer', name: 'use_time', default: 0 })
  useTime!: number;

  @Column({ type: 'boolean', name: 'is_stream', default: false })
  isStream!: boolean;

  @Column({ type: 'integer', name: 'channel_id', default: 0 })
  channelId!: number;

  @Column({ type: 'integer', name: 'token_id', default: 0 })
  tokenId!: number;

  @Column({ type: 'varchar', name: 'group', default: '' })
  group!: string;

  /** JSON text: ratios, price, frt and admin_info for a consume row (see consumeLogOther); NULL as `content`. */
  @Column({ type: 'text', nullable: true })
  other!: string | null;

  /** A consume row's facts (consume-log-columns.ts), NULL on other rows. */
  @Column({ type: 'float8', name: 'model_ratio', nullable: true })
  modelRatio!: number | null;

  @Column({ type: 'float8', name: 'completion_ratio', nullable: true })
  completionRatio!: number | null;

  @Column({ type: 'float8', name: 'group_ratio', nullable: true })
  groupRatio!: number | null;

  @Column({ type: 'float8', name: 'model_price', nullable: true })
  modelPrice!: number | null;

  @Column({ type: 'float8', nullable: true })
  frt!: number | null;

  @Column({ type: 'integer', name: 'cache_tokens', nullable: true })
  cacheTokens!: number | null;

  /** Codes of USAGE_SOURCE_CODES / END_REASON_CODES. */
  @Column({ type: 'smallint', name: 'usage_source', nullable: true })
  usageSource!: number | null;

  @Column({ type: 'smallint', name: 'end_reason', nullable: true })
  endReason!: number | null;
}
