import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintAsNumber } from '../bigint-as-number';

/**
 * One row per token with quota events: the fold of its TokenQuotaAllotted events and of the QuotaConsumed
 * account events carrying its id. Written only by the token-balances projection.
 */
@Entity({ name: 'token_balances' })
export class TokenBalanceEntity {
  @PrimaryColumn({ type: 'integer', name: 'token_id' })
  tokenId!: number;

  @Column({ type: 'integer', name: 'user_id', default: 0 })
  userId!: number;

  @Column({ type: 'bigint', name: 'remain_quota', default: 0, transformer: bigintAsNumber })
  remainQuota!: number;

  @Column({ type: 'bigint', name: 'used_quota', default: 0, transformer: bigintAsNumber })
  usedQuota!: number;

  @Column({ type: 'bigint', name: 'accessed_time', default: 0, transformer: bigintAsNumber })
  accessedTime!: number;

  /** Global ledger position of the last event folded in (each event counts once even if replayed by hand). */
  @Column({ type: 'bigint', default: 0, transformer: bigintAsNumber })
  position!: number;
}
