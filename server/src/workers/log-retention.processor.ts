import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { Job } from 'bullmq';
import { LOG_RETENTION_QUEUE, type LogRetentionJobData } from '../modules/logs/retention/log-retention.queue';
import {
  ApplyLogRetentionCommand,
  type LogRetentionOutcome,
} from '../modules/logs/usecases/apply-log-retention/apply-log-retention.command';

/** The log retention job (worker role): daily, and once after each LogRetentionDays change; one run at a time here. */
@Processor(LOG_RETENTION_QUEUE, { concurrency: 1 })
export class LogRetentionProcessor extends WorkerHost {
  private readonly logger = new Logger('LogRetention');

  constructor(private readonly commandBus: CommandBus) {
    super();
  }

  async process(job: Job<LogRetentionJobData>): Promise<LogRetentionOutcome> {
    const outcome = await this.commandBus.execute(new ApplyLogRetentionCommand(Math.floor(Date.now() / 1000)));
    if (outcome.appended) {
      this.logger.log(
        `${job.data.trigger ?? 'daily'} run: ${outcome.deleted} log row(s) before ${outcome.before} purged (LogRetentionDays ${outcome.retentionDays})`,
      );
    }
    return outcome;
  }

  @OnWorkerEvent('failed')
  onFailed(job: Job<LogRetentionJobData> | undefined, error: Error): void {
    this.logger.warn(`log retention job ${job?.id ?? ''} failed: ${error.message}`);
  }
}
