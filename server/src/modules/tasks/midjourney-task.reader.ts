import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { type FindOptionsWhere, In, Not, type Repository } from 'typeorm';
import { MidjourneyTaskEntity } from '#projections/read-models/midjourney-tasks/midjourney-task.entity';

/** The console lists' filters (console-api-behaviour §13); times are milliseconds on submit_time. */
export interface MidjourneyTaskFilter {
  userId?: number;
  channelId?: number;
  mjId?: string;
  startTimestamp?: number;
  endTimestamp?: number;
}

/** Reads of the midjourney_tasks read model: the relay's user-scoped lookups, the poller's work list, the console lists. */
@Injectable()
export class MidjourneyTaskReader {
  constructor(@InjectRepository(MidjourneyTaskEntity) private readonly rows: Repository<MidjourneyTaskEntity>) {}

  /** The caller's task with this upstream id (the newest, should the upstream have reused one). */
  async findOwned(userId: number, mjId: string): Promise<MidjourneyTaskEntity | null> {
    if (mjId === '') return null;
    return this.rows.findOne({ where: { userId, mjId }, order: { id: 'DESC' } });
  }

  async findByMjId(mjId: string): Promise<MidjourneyTaskEntity | null> {
    if (mjId === '') return null;
    return this.rows.findOne({ where: { mjId }, order: { id: 'DESC' } });
  }

  /** The caller's tasks among these upstream ids, in id order (list-by-condition). */
  async listOwned(userId: number, mjIds: readonly string[]): Promise<MidjourneyTaskEntity[]> {
    if (mjIds.length === 0) return [];
    return this.rows.find({ where: { userId, mjId: In([...mjIds]) }, order: { id: 'ASC' } });
  }

  /** Every task not at 100 % (the poller's work). */
  unfinished(): Promise<MidjourneyTaskEntity[]> {
    return this.rows.find({ where: { progress: Not('100%') }, order: { id: 'ASC' } });
  }

  /** Failed, charged tasks whose refund is not in the ledger yet (a worker died between the two appends). */
  refundsOwed(): Promise<MidjourneyTaskEntity[]> {
    return this.rows
      .createQueryBuilder('t')
      .where(`t.progress = '100%' AND t.status = 'FAILURE' AND t.quota > 0 AND NOT t.refunded`)
      .orderBy('t.id', 'ASC')
      .getMany();
  }

  /** A page of the console list, newest first, and the total. */
  async list(
    filter: MidjourneyTaskFilter,
    page: { offset: number; limit: number },
  ): Promise<{ items: MidjourneyTaskEntity[]; total: number }> {
    const query = this.rows.createQueryBuilder('t');
    if (filter.userId !== undefined) query.andWhere('t.user_id = :userId', { userId: filter.userId });
    if (filter.channelId !== undefined) query.andWhere('t.channel_id = :channelId', { channelId: filter.channelId });
    if (filter.mjId) query.andWhere('t.mj_id = :mjId', { mjId: filter.mjId });
    if (filter.startTimestamp !== undefined) query.andWhere('t.submit_time >= :start', { start: filter.startTimestamp });
    if (filter.endTimestamp !== undefined) query.andWhere('t.submit_time <= :end', { end: filter.endTimestamp });
    const [items, total] = await query.orderBy('t.id', 'DESC').skip(page.offset).take(page.limit).getManyAndCount();
    return { items, total };
  }

  where(where: FindOptionsWhere<MidjourneyTaskEntity>): Promise<MidjourneyTaskEntity[]> {
    return this.rows.find({ where, order: { id: 'ASC' } });
  }
}
