import { InjectQueue } from '@nestjs/bullmq';
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { Job, Queue } from 'bullmq';
import type Redis from 'ioredis';
import { REDIS } from '#server/infrastructure/redis/redis.constants';
import { RedisKeys } from '#server/infrastructure/redis/redis-keys';
import { CHANNEL_TESTS_QUEUE, type ChannelTestJobData, TEST_ONE_JOB } from '../../runs/channel-run-queues';
import { HealthNotifier } from '../../notify/health-notifier';
import { FinishChannelTestRunCommand, type FinishChannelTestRunResult } from './finish-channel-test-run.command';

/** Job states in which a job of the run still has work to do (a job waiting for a retry is `delayed`). */
const PENDING_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children'] as const;
/** Jobs read per state and page while looking for one of the run's. */
const PAGE = 200;
/** How long the "mailed" mark of a run is kept: far longer than any run lasts. */
const MAILED_MARK_SECONDS = 7 * 24 * 3600;

export const isScheduledRun = (runId: string) => runId.startsWith('periodic-');

@CommandHandler(FinishChannelTestRunCommand)
export class FinishChannelTestRunHandler implements ICommandHandler<FinishChannelTestRunCommand> {
  constructor(
    @InjectQueue(CHANNEL_TESTS_QUEUE) private readonly tests: Queue<ChannelTestJobData>,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly notifier: HealthNotifier,
  ) {}

  async execute({ input }: FinishChannelTestRunCommand): Promise<FinishChannelTestRunResult> {
    if (isScheduledRun(input.runId)) return { mailed: false };
    if (await this.hasPendingJob(input.runId)) return { mailed: false };
    // The workers that ended the last jobs may all get here: the first to claim the run mails.
    const claimed = await this.redis.set(this.keys.key('channel-tests', 'finished', input.runId), '1', 'EX', MAILED_MARK_SECONDS, 'NX');
    if (claimed !== 'OK') return { mailed: false };
    await this.notifier.testRunFinished();
    return { mailed: true };
  }

  /** Pages through the pending jobs; during a run the first page nearly always holds one of its jobs. */
  private async hasPendingJob(runId: string): Promise<boolean> {
    const ofRun = (job: Job<ChannelTestJobData> | undefined) => job?.name === TEST_ONE_JOB && job.data?.runId === runId;
    for (let start = 0; ; start += PAGE) {
      const jobs = await this.tests.getJobs([...PENDING_STATES], start, start + PAGE - 1, true);
      if (jobs.some(ofRun)) return true;
      if (jobs.length === 0) return false;
    }
  }
}
