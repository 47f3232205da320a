import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintAsNumber } from '../bigint-as-number';
import { ChargedTaskColumns } from '../charged-task-columns';

/** One row per Suno task: the fold of its `sunotask-{taskKey}` stream. Written only by the tasks projection. */
@Entity({ name: 'tasks' })
export class TaskEntity extends ChargedTaskColumns {
  /** This server's id of the task (the submit's request id). */
  @PrimaryColumn({ type: 'text', name: 'task_key' })
  taskKey!: string;

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

  @Column({ type: 'varchar', length: 20 })
  progress!: string;

  /** JSON text `{"input": …}`. */
  @Column({ type: 'text' })
  properties!: string;

  /** JSON text of the upstream's data ('' when none). */
  @Column({ type: 'text' })
  data!: string;
}
