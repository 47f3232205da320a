import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { EventsHandler, type IEventHandler } from '@nestjs/cqrs';
import type { Queue } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '#server/config/app-config';
import { OptionUpdatedEvent } from '#server/modules/options/index';
import {
  LOG_RETENTION_EVERY_MS,
  LOG_RETENTION_JOB,
  LOG_RETENTION_QUEUE,
  LOG_RETENTION_SCHEDULER,
  type LogRetentionJobData,
} from './log-retention.queue';

const JOB_OPTIONS = { removeOnComplete: 100, removeOnFail: 100 };

/**
 * Installs the daily log retention job from worker processes (one schedule in Redis shared by every worker; the
 * processor is workers/log-retention.processor.ts). The job reads LogRetentionDays when it runs, so the schedule
 * never changes with the option.
 */
@Injectable()
export class LogRetentionScheduler implements OnApplicationBootstrap {
  constructor(
    @Inject(APP_CONFIG) private readonly app: AppConfig,
    @InjectQueue(LOG_RETENTION_QUEUE) private readonly queue: Queue<LogRetentionJobData>,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.app.roles.includes('worker')) return;
    await this.queue.upsertJobScheduler(
      LOG_RETENTION_SCHEDULER,
      { every: LOG_RETENTION_EVERY_MS },
      { name: LOG_RETENTION_JOB, data: { trigger: 'daily' }, opts: JOB_OPTIONS },
    );
  }
}

/** A saved LogRetentionDays (any process that serves the options API) queues one run right away, for a worker. */
@EventsHandler(OptionUpdatedEvent)
export class LogRetentionOnOptionChange implements IEventHandler<OptionUpdatedEvent> {
  constructor(@InjectQueue(LOG_RETENTION_QUEUE) private readonly queue: Queue<LogRetentionJobData>) {}

  async handle(event: OptionUpdatedEvent): Promise<void> {
    if (event.key !== 'LogRetentionDays') return;
    await this.queue.add(LOG_RETENTION_JOB, { trigger: 'option' }, JOB_OPTIONS);
  }
}
