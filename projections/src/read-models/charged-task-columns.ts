import { Column } from 'typeorm';
import { bigintAsNumber } from './bigint-as-number';

/**
 * The columns every asynchronous task's read model has (a Midjourney task in `midjourney_tasks`, a Suno task in
 * `tasks`): who submitted it with which token on which channel, what it cost and whether that came back, its
 * timeline and outcome, and the stream revision the row folds. Each entity adds its own key and fields.
 */
export abstract class ChargedTaskColumns {
  /** The ledger position of the task's submit event: the same ids after a rebuild. */
  @Column({ type: 'bigint', transformer: bigintAsNumber })
  id!: number;

  @Column({ type: 'integer', name: 'user_id' })
  userId!: number;

  @Column({ type: 'text' })
  username!: string;

  @Column({ type: 'integer', name: 'token_id' })
  tokenId!: number;

  @Column({ type: 'boolean', name: 'token_unlimited' })
  tokenUnlimited!: boolean;

  @Column({ type: 'integer', name: 'channel_id' })
  channelId!: number;

  @Column({ type: 'bigint', transformer: bigintAsNumber })
  quota!: number;

  @Column({ type: 'varchar', length: 40 })
  action!: string;

  @Column({ type: 'varchar', length: 20 })
  status!: string;

  @Column({ type: 'text', name: 'fail_reason' })
  failReason!: string;

  @Column({ type: 'bigint', name: 'submit_time', transformer: bigintAsNumber })
  submitTime!: number;

  @Column({ type: 'bigint', name: 'start_time', transformer: bigintAsNumber })
  startTime!: number;

  @Column({ type: 'bigint', name: 'finish_time', transformer: bigintAsNumber })
  finishTime!: number;

  /** The task's QuotaRefunded is in the ledger. */
  @Column({ type: 'boolean' })
  refunded!: boolean;

  @Column({ type: 'integer' })
  revision!: number;
}
