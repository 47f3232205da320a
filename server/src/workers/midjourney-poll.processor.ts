import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Job } from 'bullmq';
import { MJ_POLL_QUEUE } from '../relay/midjourney/midjourney-poll.queue';
import { MidjourneyPoller, type PollReport } from '../relay/midjourney/midjourney-poller';

/** The Midjourney poller's repeatable job (worker role), one at a time in this process. */
@Processor(MJ_POLL_QUEUE, { concurrency: 1 })
export class MidjourneyPollProcessor extends WorkerHost {
  private readonly logger = new Logger(MidjourneyPollProcessor.name);

  constructor(private readonly moduleRef: ModuleRef) {
    super();
  }

  /** The poller is the relay's (it calls the channels); looked up across modules, as WorkersModule imports none. */
  process(): Promise<PollReport> {
    return this.moduleRef.get(MidjourneyPoller, { strict: false }).run();
  }

  @OnWorkerEvent('failed')
  onFailed(job: Job | undefined, error: Error): void {
    this.logger.warn(`Midjourney poll ${job?.id ?? ''} failed: ${error.message}`);
  }
}
