import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { SUNO_POLL_EVERY_MS, SUNO_POLL_JOB, SUNO_POLL_QUEUE, SUNO_POLL_SCHEDULER } from './suno-poll.queue';

/**
 * Installs the Suno poller's job scheduler from worker processes (one schedule in Redis shared by all workers); the
 * processor (workers/suno-poll.processor.ts) runs one job at a time and the poller's lock keeps runs from overlapping.
 */
@Injectable()
export class SunoPollScheduler implements OnApplicationBootstrap {
  constructor(
    @Inject(APP_CONFIG) private readonly app: AppConfig,
    @InjectQueue(SUNO_POLL_QUEUE) private readonly queue: Queue,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.app.roles.includes('worker')) return;
    await this.queue.upsertJobScheduler(
      SUNO_POLL_SCHEDULER,
      { every: SUNO_POLL_EVERY_MS },
      { name: SUNO_POLL_JOB, data: {}, opts: { removeOnComplete: 100, removeOnFail: 100 } },
    );
  }
}
