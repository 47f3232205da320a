import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Job } from 'bullmq';
import { SUNO_POLL_QUEUE } from '../relay/suno/suno-poll.queue';
import { SunoPoller, type SunoPollReport } from '../relay/suno/suno-poller';

/** The Suno poller's repeatable job (worker role), one at a time in this process. */
@Processor(SUNO_POLL_QUEUE, { concurrency: 1 })
export class SunoPollProcessor extends WorkerHost {
  private readonly logger = new Logger(SunoPollProcessor.name);

  constructor(private readonly moduleRef: ModuleRef) {
    super();
  }

  /** The poller is the relay's (it calls the channels); looked up across modules, as WorkersModule imports none. */
  process(): Promise<SunoPollReport> {
    return this.moduleRef.get(SunoPoller, { strict: false }).run();
  }

  @OnWorkerEvent('failed')
  onFailed(job: Job | undefined, error: Error): void {
    this.logger.warn(`Suno poll ${job?.id ?? ''} failed: ${error.message}`);
  }
}
