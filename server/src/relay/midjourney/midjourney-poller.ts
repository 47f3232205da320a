import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { REDIS } from '../../infrastructure/redis/redis.constants';
import { RedisKeys } from '../../infrastructure/redis/redis-keys';
import { type MetadataInput, systemActor } from '../../ledger/event-envelope';
import { MidjourneyTaskLedger, MidjourneyTaskReader, mjChannelMissingReason } from '../../modules/tasks';
import { RELAY_CHANNEL_ROUTER, type RelayChannelRouter } from '../relay-ports';
import { withPollLock } from '../task/poll-lock';
import { mjResultList } from './midjourney-http';
import { upstreamProgress } from './midjourney-upstream';

/** new-api's batch-call timeout. */
const BATCH_TIMEOUT_MS = 15_000;

export interface PollReport {
  /** false: another run held the lock, this one did nothing. */
  ran: boolean;
  observed: number;
  failed: number;
  refunds: number;
}

/**
 * One run of new-api's Midjourney poller (relay-behaviour.md §7.1), driven by a BullMQ job scheduler on the worker
 * role. A Redis lock keeps runs from overlapping across processes; even so every move of a task is decided against
 * its stream's revision and every refund has an id derived from the task, so two runs at once (or a run redone
 * after a worker died mid-run) move each task once and refund it once.
 *
 * 1. unfinished tasks without an upstream id fail; 2. tasks of a channel that is gone fail with new-api's reason;
 * 3. the rest are asked of their channel in one `list-by-condition` call per channel; each answer goes through the
 * task's decider (progress, the one-hour timeout, failure); 4. a failed, charged task is refunded — also the ones a
 * dead worker left failed but unrefunded.
 */
@Injectable()
export class MidjourneyPoller {
  private readonly logger = new Logger('MidjourneyPoller');

  constructor(
    @Inject(RELAY_CHANNEL_ROUTER) private readonly router: RelayChannelRouter,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly reader: MidjourneyTaskReader,
    private readonly tasks: MidjourneyTaskLedger,
  ) {}

  async run(now: () => number = Date.now): Promise<PollReport> {
    const report: PollReport = { ran: false, observed: 0, failed: 0, refunds: 0 };
    const ran = await withPollLock(this.redis, this.keys.key('mj-poller', 'lock'), async (owner) => {
      await this.poll(now, report);
      for (const owed of await this.reader.refundsOwed()) {
        await this.tasks.refund(owed, `mj-poll-${owner}`);
        report.refunds += 1;
      }
      return true;
    });
    report.ran = ran === true;
    return report;
  }

  private async poll(now: () => number, report: PollReport): Promise<void> {
    const metadata: MetadataInput = { correlationId: `mj-poll-${randomUUID()}`, actor: systemActor(), reasonCode: 'mj_poll' };
    const byChannel = new Map<number, Awaited<ReturnType<MidjourneyTaskReader['unfinished']>>>();
    for (const task of await this.reader.unfinished()) {
      if (task.mjId === '') {
        await this.tasks.apply(task.taskId, { type: 'FailMidjourneyTask', reason: task.failReason }, metadata);
        report.failed += 1;
        continue;
      }
      byChannel.set(task.channelId, [...(byChannel.get(task.channelId) ?? []), task]);
    }
    for (const [channelId, tasks] of byChannel) {
      const channel = this.router.get(channelId);
      if (!channel) {
        for (const task of tasks) {
          await this.tasks.apply(task.taskId, { type: 'FailMidjourneyTask', reason: mjChannelMissingReason(channelId) }, metadata);
          report.failed += 1;
        }
        continue;
      }
      const items = await this.batch(channel.baseUrl, channel.key, [...new Set(tasks.map((task) => task.mjId))]);
      for (const item of items) {
        for (const task of tasks.filter((candidate) => candidate.mjId === item.id)) {
          const upstream = upstreamProgress(item, task);
          await this.tasks.apply(task.taskId, { type: 'ObserveMidjourneyTask', upstream, now: now() }, metadata);
          report.observed += 1;
        }
      }
    }
  }

  /** One list-by-condition call; a channel that does not answer is asked again next run. */
  private async batch(baseUrl: string, secret: string, ids: string[]): Promise<Array<Record<string, unknown> & { id: string }>> {
    try {
      const answer = await fetch(`${baseUrl.replace(/\/+$/, '')}/mj/task/list-by-condition`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'mj-api-secret': secret },
        body: JSON.stringify({ ids }),
        signal: AbortSignal.timeout(BATCH_TIMEOUT_MS),
      });
      if (answer.status !== 200) throw new Error(`status ${answer.status}`);
      return mjResultList(await answer.text());
    } catch (error) {
      this.logger.warn(`list-by-condition at ${baseUrl} failed: ${(error as Error)?.message ?? String(error)}`);
      return [];
    }
  }
}
