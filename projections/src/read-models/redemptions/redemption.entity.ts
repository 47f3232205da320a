import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintAsNumber } from '../bigint-as-number';

/** One row per redemption code: the fold of its `redemption-{id}` stream. Written only by the redemptions projection. */
@Entity({ name: 'redemptions' })
export class RedemptionEntity {
  @PrimaryColumn({ type: 'integer' })
  id!: number;

  /** The admin who created the code. */
  @Column({ type: 'integer', name: 'user_id', default: 0 })
  userId!: number;

  @Column({ type: 'char', length: 32 })
  key!: string;

  @Column({ type: 'smallint', default: 1 })
  status!: number;

  @Column({ type: 'text', default: '' })
  name!: string;

  @Column({ type: 'bigint', default: 100, transformer: bigintAsNumber })
  quota!: number;

  @Column({ type: 'bigint', name: 'created_time', default: 0, transformer: bigintAsNumber })
  createdTime!: number;

  @Column({ type: 'bigint', name: 'redeemed_time', default: 0, transformer: bigintAsNumber })
  redeemedTime!: number;

  @Column({ type: 'integer', name: 'used_user_id', default: 0 })
  usedUserId!: number;

  @Column({ type: 'timestamptz', name: 'deleted_at', nullable: true })
  deletedAt!: Date | null;

  /** Stream revision of the last event folded in (each event counts once even if replayed by hand). */
  @Column({ type: 'integer', default: 0 })
  revision!: number;
}
