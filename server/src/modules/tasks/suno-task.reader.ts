import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Not, type Repository } from 'typeorm';
import { TaskEntity } from '#projections/read-models/tasks/task.entity';

/** new-api's poller takes at most this many unfinished tasks a run. */
const UNFINISHED_LIMIT = 500;

/** The console lists' filters (console-api-behaviour §13); times are seconds on submit_time. */
export interface TaskFilter {
  userId?: number;
  channelId?: number;
  taskId?: string;
  status?: string;
  action?: string;
  platform?: string;
  startTimestamp?: number;
  endTimestamp?: number;
}

/** Reads of the tasks read model: the relay's user-scoped fetches, the poller's work list, the console lists. */
@Injectable()
export class TaskReader {
  constructor(@InjectRepository(TaskEntity) private readonly rows: Repository<TaskEntity>) {}

  /** The caller's task with this upstream id (the newest, should the upstream have reused one). */
  async findOwned(userId: number, taskId: string): Promise<TaskEntity | null> {
    if (taskId === '') return null;
    return this.rows.findOne({ where: { userId, taskId }, order: { id: 'DESC' } });
  }

  /** The caller's tasks among these upstream ids, in id order. */
  async listOwned(userId: number, taskIds: readonly string[]): Promise<TaskEntity[]> {
    if (taskIds.length === 0) return [];
    return this.rows.find({ where: { userId, taskId: In([...taskIds]) }, order: { id: 'ASC' } });
  }

  /** Up to 500 tasks not at 100 % (the poller's work), oldest first. */
  unfinished(): Promise<TaskEntity[]> {
    return this.rows.find({ where: { progress: Not('100%') }, order: { id: 'ASC' }, take: UNFINISHED_LIMIT });
  }

  /** Failed, charged tasks whose refund is not in the ledger yet (a worker died between the two appends). */
  refundsOwed(): Promise<TaskEntity[]> {
    return this.rows
      .createQueryBuilder('t')
      .where(`t.progress = '100%' AND t.status = 'FAILURE' AND t.quota > 0 AND NOT t.refunded`)
      .orderBy('t.id', 'ASC')
      .getMany();
  }

  /** A page of the console list, newest first, and the total. */
  async list(filter: TaskFilter, page: { offset: number; limit: number }): Promise<{ items: TaskEntity[]; total: number }> {
    const query = this.rows.createQueryBuilder('t');
    if (filter.userId !== undefined) query.andWhere('t.user_id = :userId', { userId: filter.userId });
    if (filter.channelId !== undefined) query.andWhere('t.channel_id = :channelId', { channelId: filter.channelId });
    if (filter.taskId) query.andWhere('t.task_id = :taskId', { taskId: filter.taskId });
    if (filter.status) query.andWhere('t.status = :status', { status: filter.status });
    if (filter.action) query.andWhere('t.action = :action', { action: filter.action });
    if (filter.platform) query.andWhere('t.platform = :platform', { platform: filter.platform });
    if (filter.startTimestamp !== undefined) query.andWhere('t.submit_time >= :start', { start: filter.startTimestamp });
    if (filter.endTimestamp !== undefined) query.andWhere('t.submit_time <= :end', { end: filter.endTimestamp });
    const [items, total] = await query.orderBy('t.id', 'DESC').skip(page.offset).take(page.limit).getManyAndCount();
    return { items, total };
  }
}
