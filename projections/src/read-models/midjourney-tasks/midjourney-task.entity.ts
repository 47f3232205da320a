import { Column, Entity, PrimaryColumn } from 'typeorm';

const bigintAsNumber = {
  to: (value: number | undefined) => value,
  from: (value: string | number | null) => (value === null ? 0 : Number(value)),
};

/** One row per Midjourney task: the fold of its `mjtask-{taskId}` stream. Written only by the midjourney-tasks projection. */
@Entity({ name: 'midjourney_tasks' })
export class MidjourneyTaskEntity {
  @PrimaryColumn({ type: 'text', name: 'task_id' })
  taskId!: string;

  /** The ledger position of the task's MidjourneyTaskSubmitted: the same ids after a rebuild. */
  @Column({ type: 'bigint', transformer: bigintAsNumber })
  id!: number;

  @Column({ type: 'integer' })
  code!: number;

  @Column({ type: 'integer', name: 'user_id' })
  userId!: number;

  @Column({ type: 'text' })
  username!: string;

  @Column({ type: 'integer', name: 'token_id' })
  tokenId!: number;

  @Column({ type: 'boolean', name: 'token_unlimited' })
  tokenUnlimited!: boolean;

  @Column({ type: 'varchar', length: 40 })
  action!: string;

  @Column({ type: 'text', name: 'mj_id' })
  mjId!: string;

  @Column({ type: 'text' })
  prompt!: string;

  @Column({ type: 'text', name: 'prompt_en' })
  promptEn!: string;

  @Column({ type: 'text' })
  description!: string;

  @Column({ type: 'text' })
  state!: string;

  @Column({ type: 'bigint', name: 'submit_time', transformer: bigintAsNumber })
  submitTime!: number;

  @Column({ type: 'bigint', name: 'start_time', transformer: bigintAsNumber })
  startTime!: number;

  @Column({ type: 'bigint', name: 'finish_time', transformer: bigintAsNumber })
  finishTime!: number;

  @Column({ type: 'text', name: 'image_url' })
  imageUrl!: string;

  @Column({ type: 'varchar', length: 20 })
  status!: string;

  @Column({ type: 'varchar', length: 30 })
  progress!: string;

  @Column({ type: 'text', name: 'fail_reason' })
  failReason!: string;

  @Column({ type: 'integer', name: 'channel_id' })
  channelId!: number;

  @Column({ type: 'bigint', transformer: bigintAsNumber })
  quota!: number;

  @Column({ type: 'text' })
  buttons!: string;

  @Column({ type: 'text' })
  properties!: string;

  /** The task's QuotaRefunded is in the ledger. */
  @Column({ type: 'boolean' })
  refunded!: boolean;

  @Column({ type: 'integer' })
  revision!: number;
}
