import { InjectQueue } from '@nestjs/bullmq';
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { InjectRepository } from '@nestjs/typeorm';
import type { Queue } from 'bullmq';
import type { Repository } from 'typeorm';
import { DomainError } from '#server/common/http/errors';
import { requireRedis, StoreNotReadyError } from '#server/common/http/storage-unavailable';
import { queueClient } from '#server/infrastructure/redis/queue-client';
import { EVENT_STORE, type EventStore } from '#server/ledger/event-store.port';
import { channelStream } from '#server/ledger/streams';
import { fold } from '#server/modules/channels/channel.decider';
import { toChannelEvent } from '#server/modules/channels/channel-event-codec';
import { ChannelStatus } from '#server/modules/channels/channel.events';
import { ChannelEntity } from '#server/modules/channels/channel.entity';
import { BALANCE_CHANNEL_TYPES } from '../../balance/fetch-channel-balance';
import { CHANNEL_HEALTH_CONFIG, type ChannelHealthConfig } from '../../config/channel-health.config';
import {
  BALANCE_ONE_JOB,
  CHANNEL_BALANCES_QUEUE,
  CHANNEL_TESTS_QUEUE,
  type ChannelBalanceJobData,
  type ChannelTestJobData,
  TEST_ONE_JOB,
} from '../../runs/channel-run-queues';
import { StartChannelRunsCommand, type StartChannelRunsResult } from './start-channel-runs.command';

export class ChannelTestRunningError extends DomainError {
  constructor() {
    super('测试已在运行中', 'channel_test_running');
  }
}

/** BullMQ refuses custom ids containing ':'. */
const jobId = (runId: string, channelId: number) => `${runId.replace(/:/g, '_')}_${channelId}`;

const PENDING_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children'] as const;

/** Failed jobs stay visible (BullMQ's failed set) after their retries; finished ones are kept briefly. */
const JOB_OPTIONS = {
  attempts: 2,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: { age: 3600, count: 1000 },
  removeOnFail: false,
};

@CommandHandler(StartChannelRunsCommand)
export class StartChannelRunsHandler implements ICommandHandler<StartChannelRunsCommand> {
  constructor(
    @InjectRepository(ChannelEntity) private readonly channels: Repository<ChannelEntity>,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @InjectQueue(CHANNEL_TESTS_QUEUE) private readonly tests: Queue<ChannelTestJobData>,
    @InjectQueue(CHANNEL_BALANCES_QUEUE) private readonly balances: Queue<ChannelBalanceJobData>,
    @Inject(CHANNEL_HEALTH_CONFIG) private readonly config: ChannelHealthConfig,
  ) {}

  /**
   * With the queue's Redis away, 503 at once (StoreNotReadyError), nothing queued; one that drops while the jobs are
   * being added, 503 after a second. The request used to wait for as long as Redis was gone.
   */
  async execute({ input }: StartChannelRunsCommand): Promise<StartChannelRunsResult> {
    const client = await queueClient(input.kind === 'test' ? this.tests : this.balances);
    if (!client) throw new StoreNotReadyError('Redis');
    return requireRedis(client, () => this.start(input));
  }

  private async start(input: StartChannelRunsCommand['input']): Promise<StartChannelRunsResult> {
    const spacingMs = this.config.POLLING_INTERVAL * 1000;
    if (input.kind === 'test') {
      const pending = await this.tests.getJobs([...PENDING_STATES]);
      if (pending.some((job) => job?.name === TEST_ONE_JOB)) throw new ChannelTestRunningError();
      const ids = (await this.channels.find({ select: { id: true }, order: { id: 'ASC' } })).map((channel) => channel.id);
      await this.tests.addBulk(
        ids.map((channelId, index) => ({
          name: TEST_ONE_JOB,
          data: { channelId, runId: input.runId },
          opts: { ...JOB_OPTIONS, jobId: jobId(input.runId, channelId), delay: index * spacingMs },
        })),
      );
      return { queued: ids.length };
    }
    const candidates = await this.channels.find({ select: { id: true, type: true }, order: { id: 'ASC' } });
    const ids: number[] = [];
    for (const channel of candidates) {
      if (!BALANCE_CHANNEL_TYPES.has(channel.type)) continue;
      const state = fold((await this.store.readStream(channelStream(channel.id))).map(toChannelEvent));
      if (state.status === ChannelStatus.Enabled) ids.push(channel.id);
    }
    await this.balances.addBulk(
      ids.map((channelId, index) => ({
        name: BALANCE_ONE_JOB,
        data: { channelId, runId: input.runId },
        opts: { ...JOB_OPTIONS, jobId: jobId(input.runId, channelId), delay: index * spacingMs },
      })),
    );
    return { queued: ids.length };
  }
}
