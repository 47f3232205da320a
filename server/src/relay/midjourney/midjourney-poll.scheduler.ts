import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { MJ_POLL_EVERY_MS, MJ_POLL_JOB, MJ_POLL_QUEUE, MJ_POLL_SCHEDULER } from './midjourney-poll.queue';

/**
 * Installs the poller's job scheduler from worker processes. It lives in Redis, so several workers share one
 * schedule; the processor (workers/midjourney-poll.processor.ts) runs one job at a time, and the poller's own lock
 * keeps runs of different workers from overlapping.
 */
@Injectable()
export class MidjourneyPollScheduler implements OnApplicationBootstrap {
  constructor(
    @Inject(APP_CONFIG) private readonly app: AppConfig,
    @InjectQueue(MJ_POLL_QUEUE) private readonly queue: Queue,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.app.roles.includes('worker')) return;
    await this.queue.upsertJobScheduler(
      MJ_POLL_SCHEDULER,
      { every: MJ_POLL_EVERY_MS },
      { name: MJ_POLL_JOB, data: {}, opts: { removeOnComplete: 100, removeOnFail: 100 } },
    );
  }
}
