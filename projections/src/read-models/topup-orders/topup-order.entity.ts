import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintAsNumber } from '../bigint-as-number';

/** One row per online top-up order: the fold of its `topup-order-{tradeNo}` stream. Written only by the topup-orders projection. */
@Entity({ name: 'topup_orders' })
export class TopUpOrderEntity {
  @PrimaryColumn({ type: 'text', name: 'trade_no' })
  tradeNo!: string;

  /** The ledger position of the order's TopUpOrdered, so a rebuild gives the same ids (newest first = id desc). */
  @Column({ type: 'bigint', transformer: bigintAsNumber })
  id!: number;

  @Column({ type: 'integer', name: 'user_id' })
  userId!: number;

  @Column({ type: 'text', default: '' })
  username!: string;

  @Column({ type: 'bigint', transformer: bigintAsNumber })
  amount!: number;

  @Column({ type: 'bigint', transformer: bigintAsNumber })
  quota!: number;

  @Column({ type: 'double precision' })
  money!: number;

  @Column({ type: 'text', name: 'payment_method' })
  paymentMethod!: string;

  @Column({ type: 'text', default: 'pending' })
  status!: string;

  @Column({ type: 'double precision', name: 'paid_money', default: 0 })
  paidMoney!: number;

  @Column({ type: 'text', name: 'gateway_trade_no', default: '' })
  gatewayTradeNo!: string;

  @Column({ type: 'bigint', name: 'create_time', transformer: bigintAsNumber })
  createTime!: number;

  @Column({ type: 'bigint', name: 'complete_time', default: 0, transformer: bigintAsNumber })
  completeTime!: number;

  /** Stream revision of the last event folded in. */
  @Column({ type: 'integer', default: 0 })
  revision!: number;
}
