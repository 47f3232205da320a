import { Column, Entity, PrimaryColumn } from 'typeorm';
import { ChargedTaskColumns } from '../charged-task-columns';

/** One row per Midjourney task: the fold of its `mjtask-{taskId}` stream. Written only by the midjourney-tasks projection. */
@Entity({ name: 'midjourney_tasks' })
export class MidjourneyTaskEntity extends ChargedTaskColumns {
  @PrimaryColumn({ type: 'text', name: 'task_id' })
  taskId!: string;

  @Column({ type: 'integer' })
  code!: number;

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

  @Column({ type: 'text', name: 'image_url' })
  imageUrl!: string;

  @Column({ type: 'varchar', length: 30 })
  progress!: string;

  @Column({ type: 'text' })
  buttons!: string;

  @Column({ type: 'text' })
  properties!: string;
}
