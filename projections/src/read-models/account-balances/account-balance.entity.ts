import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintAsNumber } from '../bigint-as-number';

/** Postgres bigint arrives as a string; quota figures stay far below 2^53, so a number is exact. */
/**
 * One row per account stream that has events: the fold of `account-{userId}`. Written only by the
 * account-balances projection; users without any account event have no row and read as zeros.
 */
@Entity({ name: 'account_balances' })
export class AccountBalanceEntity {
  @PrimaryColumn({ type: 'integer', name: 'user_id' })
  userId!: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintAsNumber })
  quota!: number;

  @Column({ type: 'bigint', name: 'used_quota', default: 0, transformer: bigintAsNumber })
  usedQuota!: number;

  @Column({ type: 'bigint', name: 'request_count', default: 0, transformer: bigintAsNumber })
  requestCount!: number;

  @Column({ type: 'integer', name: 'aff_count', default: 0 })
  affCount!: number;

  @Column({ type: 'bigint', name: 'aff_quota', default: 0, transformer: bigintAsNumber })
  affQuota!: number;

  @Column({ type: 'bigint', name: 'aff_history_quota', default: 0, transformer: bigintAsNumber })
  affHistoryQuota!: number;

  /**
   * Revision of the last account event folded in. The admin edit form carries it back (`account_revision`) so
   * a quota edit is appended against exactly the balance the admin saw.
   */
  @Column({ type: 'bigint', default: -1, transformer: bigintAsNumber })
  revision!: number;
}
