import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '#server/config/app-config';
import { CHANNEL_HEALTH_CONFIG, type ChannelHealthConfig } from '../config/channel-health.config';
import { BALANCE_ALL_JOB, CHANNEL_BALANCES_QUEUE, CHANNEL_TESTS_QUEUE, TEST_ALL_JOB } from './channel-run-queues';

const TEST_SCHEDULER = 'periodic-channel-tests';
const BALANCE_SCHEDULER = 'periodic-channel-balances';

/**
 * new-api's CHANNEL_TEST_FREQUENCY / CHANNEL_UPDATE_FREQUENCY (minutes; off by default) as BullMQ job
 * schedulers, installed by worker processes. A scheduler lives in Redis, so several workers share one schedule,
 * and turning the variable off removes it.
 */
@Injectable()
export class PeriodicChannelRuns implements OnApplicationBootstrap {
  private readonly logger = new Logger('ChannelHealth');

  constructor(
    @Inject(APP_CONFIG) private readonly app: AppConfig,
    @Inject(CHANNEL_HEALTH_CONFIG) private readonly config: ChannelHealthConfig,
    @InjectQueue(CHANNEL_TESTS_QUEUE) private readonly tests: Queue,
    @InjectQueue(CHANNEL_BALANCES_QUEUE) private readonly balances: Queue,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.app.roles.includes('worker')) return;
    await this.schedule(this.tests, TEST_SCHEDULER, TEST_ALL_JOB, this.config.CHANNEL_TEST_FREQUENCY);
    await this.schedule(this.balances, BALANCE_SCHEDULER, BALANCE_ALL_JOB, this.config.CHANNEL_UPDATE_FREQUENCY);
  }

  private async schedule(queue: Queue, scheduler: string, job: string, minutes: number): Promise<void> {
    if (minutes > 0) {
      await queue.upsertJobScheduler(
        scheduler,
        { every: Math.round(minutes * 60_000) },
        { name: job, data: {}, opts: { removeOnComplete: 100, removeOnFail: 100 } },
      );
      this.logger.log(`${job} every ${minutes} minute(s)`);
    } else {
      await queue.removeJobScheduler(scheduler);
    }
  }
}
