import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { REDIS } from '../../infrastructure/redis/redis.constants';
import { RedisKeys } from '../../infrastructure/redis/redis-keys';
import { type MetadataInput, systemActor } from '../../ledger/event-envelope';
import { mjChannelMissingReason, SunoTaskLedger, type SunoUpstreamItem, TaskReader } from '../../modules/tasks';
import { RELAY_CHANNEL_ROUTER, type RelayChannelRouter } from '../relay-ports';
import { withPollLock } from '../task/poll-lock';
import { errorMessage } from './suno-http';

/** new-api's batch-call timeout. */
const BATCH_TIMEOUT_MS = 15_000;

export interface SunoPollReport {
  /** false: another run held the lock, this one did nothing. */
  ran: boolean;
  observed: number;
  failed: number;
  refunds: number;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const seconds = (value: unknown): number => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0);

/** A fetch answer's item as the task's decider reads it. */
export function sunoUpstreamItem(item: Record<string, unknown>): SunoUpstreamItem {
  return {
    status: text(item.status),
    failReason: text(item.fail_reason),
    submitTime: seconds(item.submit_time),
    startTime: seconds(item.start_time),
    finishTime: seconds(item.finish_time),
    data: item.data === undefined || item.data === null ? '' : JSON.stringify(item.data),
  };
}

/**
 * One run of new-api's Suno poller (relay-behaviour.md §7.2), driven by a BullMQ job scheduler on the worker role.
 * A Redis lock keeps runs from overlapping across processes; even so every move of a task is decided against its
 * stream's revision and every refund has an id derived from the task, so two runs at once (or a run redone after a
 * worker died mid-run) move each task once and refund it once.
 *
 * 1. unfinished tasks (at most 500) without an upstream id fail, and those of a channel that is gone fail with
 * new-api's reason; 2. the rest are asked of their channel in one `POST /suno/fetch {ids}` per channel (a channel
 * that does not answer is asked again next run); each
 * item goes through the task's decider; 3. a failed, charged task is refunded — also those a dead worker left failed
 * but unrefunded.
 */
@Injectable()
export class SunoPoller {
  private readonly logger = new Logger('SunoPoller');

  constructor(
    @Inject(RELAY_CHANNEL_ROUTER) private readonly router: RelayChannelRouter,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly reader: TaskReader,
    private readonly tasks: SunoTaskLedger,
  ) {}

  async run(): Promise<SunoPollReport> {
    const report: SunoPollReport = { ran: false, observed: 0, failed: 0, refunds: 0 };
    const ran = await withPollLock(this.redis, this.keys.key('suno-poller', 'lock'), async (owner) => {
      await this.poll(report);
      for (const owed of await this.reader.refundsOwed()) {
        await this.tasks.refund({ ...owed, taskId: owed.taskKey, upstreamTaskId: owed.taskId }, `suno-poll-${owner}`);
        report.refunds += 1;
      }
      return true;
    });
    report.ran = ran === true;
    return report;
  }

  private async poll(report: SunoPollReport): Promise<void> {
    const metadata: MetadataInput = { correlationId: `suno-poll-${randomUUID()}`, actor: systemActor(), reasonCode: 'suno_poll' };
    const byChannel = new Map<number, Awaited<ReturnType<TaskReader['unfinished']>>>();
    for (const task of await this.reader.unfinished()) {
      if (task.taskId === '') {
        await this.tasks.apply(task.taskKey, { type: 'FailSunoTask', reason: task.failReason }, metadata);
        report.failed += 1;
        continue;
      }
      byChannel.set(task.channelId, [...(byChannel.get(task.channelId) ?? []), task]);
    }
    for (const [channelId, tasks] of byChannel) {
      const channel = this.router.get(channelId);
      if (!channel) {
        for (const task of tasks) {
          await this.tasks.apply(task.taskKey, { type: 'FailSunoTask', reason: mjChannelMissingReason(channelId) }, metadata);
          report.failed += 1;
        }
        continue;
      }
      const items = await this.batch(channel.baseUrl, channel.key, [...new Set(tasks.map((task) => task.taskId))]);
      for (const item of items) {
        for (const task of tasks.filter((candidate) => candidate.taskId === item.task_id)) {
          await this.tasks.apply(task.taskKey, { type: 'ObserveSunoTask', upstream: sunoUpstreamItem(item) }, metadata);
          report.observed += 1;
        }
      }
    }
  }

  /** One fetch call; a channel that does not answer is asked again next run. */
  private async batch(baseUrl: string, key: string, ids: string[]): Promise<Array<Record<string, unknown> & { task_id: string }>> {
    try {
      const answer = await fetch(`${baseUrl.replace(/\/+$/, '')}/suno/fetch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ ids }),
        signal: AbortSignal.timeout(BATCH_TIMEOUT_MS),
      });
      if (answer.status !== 200) throw new Error(`status ${answer.status}`);
      const parsed = (await answer.json()) as { code?: unknown; data?: unknown };
      if (parsed.code !== 'success' || !Array.isArray(parsed.data)) throw new Error(`answer code ${String(parsed.code)}`);
      return parsed.data.filter(
        (item): item is Record<string, unknown> & { task_id: string } =>
          Boolean(item) && typeof item === 'object' && typeof (item as { task_id?: unknown }).task_id === 'string',
      );
    } catch (error) {
      this.logger.warn(`suno fetch at ${baseUrl} failed: ${errorMessage(error)}`);
      return [];
    }
  }
}
