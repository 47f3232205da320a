import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintAsNumber } from '../bigint-as-number';

/**
 * One row per channel that has channel events or relay charges: its status (1 enabled, 2 manually disabled,
 * 3 auto-disabled), last test, balance and used quota. Written only by the channel-status projection; a channel
 * without a row reads as enabled, untested, with nothing used.
 */
@Entity({ name: 'channel_status' })
export class ChannelStatusEntity {
  @PrimaryColumn({ type: 'integer', name: 'channel_id' })
  channelId!: number;

  @Column({ type: 'integer', default: 1 })
  status!: number;

  /** Milliseconds of the last test. */
  @Column({ type: 'integer', name: 'response_time', default: 0 })
  responseTime!: number;

  @Column({ type: 'bigint', name: 'test_time', default: 0, transformer: bigintAsNumber })
  testTime!: number;

  /** US dollars. */
  @Column({ type: 'double precision', default: 0 })
  balance!: number;

  @Column({ type: 'bigint', name: 'balance_updated_time', default: 0, transformer: bigintAsNumber })
  balanceUpdatedTime!: number;

  @Column({ type: 'bigint', name: 'used_quota', default: 0, transformer: bigintAsNumber })
  usedQuota!: number;

  @Column({ type: 'text', name: 'status_reason', nullable: true })
  statusReason!: string | null;

  @Column({ type: 'bigint', name: 'status_time', nullable: true, transformer: bigintAsNumber })
  statusTime!: number | null;

  /** Ledger position of the last event folded in (guards a hand-run replay). */
  @Column({ type: 'bigint', default: 0, transformer: bigintAsNumber })
  position!: number;
}
