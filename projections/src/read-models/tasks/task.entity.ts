import { Column, Entity, PrimaryColumn } from 'typeorm';

const bigintAsNumber = {
  to: (value: number | undefined) => value,
  from: (value: string | number | null) => (value === null ? 0 : Number(value)),
};

/** One row per Suno task: the fold of its `sunotask-{taskKey}` stream. Written only by the tasks projection. */
@Entity({ name: 'tasks' })
export class TaskEntity {
  /** This server's id of the task (the submit's request id). */
  @PrimaryColumn({ type: 'text', name: 'task_key' })
  taskKey!: string;

  /** The ledger position of the task's SunoTaskSubmitted: the same ids after a rebuild. */
  @Column({ type: 'bigint', transformer: bigintAsNumber })
  id!: number;

  /** Seconds (the submit's, the last change's). */
  @Column({ type: 'bigint', name: 'created_at', transformer: bigintAsNumber })
  createdAt!: number;

  @Column({ type: 'bigint', name: 'updated_at', transformer: bigintAsNumber })
  updatedAt!: number;

  /** The upstream's id. */
  @Column({ type: 'varchar', length: 50, name: 'task_id' })
  taskId!: string;

  @Column({ type: 'varchar', length: 30 })
  platform!: string;

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

  @Column({ type: 'varchar', length: 20 })
  progress!: string;

  /** JSON text `{"input": …}`. */
  @Column({ type: 'text' })
  properties!: string;

  /** JSON text of the upstream's data ('' when none). */
  @Column({ type: 'text' })
  data!: string;

  /** The task's QuotaRefunded is in the ledger. */
  @Column({ type: 'boolean' })
  refunded!: boolean;

  @Column({ type: 'integer' })
  revision!: number;
}
