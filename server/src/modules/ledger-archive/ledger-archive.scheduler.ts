import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { LEDGER_ARCHIVE_EVERY_MS, LEDGER_ARCHIVE_JOB, LEDGER_ARCHIVE_QUEUE, LEDGER_ARCHIVE_SCHEDULER } from './ledger-archive.queue';

/**
 * Installs the daily archive from worker processes when LEDGER_ARCHIVE_KEEP_MONTHS > 0 (one schedule in Redis shared
 * by every worker), and removes it when that is 0; the run itself holds an advisory lock, so two never overlap.
 */
@Injectable()
export class LedgerArchiveScheduler implements OnApplicationBootstrap {
  constructor(
    @Inject(APP_CONFIG) private readonly app: AppConfig,
    @InjectQueue(LEDGER_ARCHIVE_QUEUE) private readonly queue: Queue,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.app.roles.includes('worker')) return;
    if (this.app.LEDGER_ARCHIVE_KEEP_MONTHS <= 0) {
      await this.queue.removeJobScheduler(LEDGER_ARCHIVE_SCHEDULER);
      return;
    }
    await this.queue.upsertJobScheduler(
      LEDGER_ARCHIVE_SCHEDULER,
      { every: LEDGER_ARCHIVE_EVERY_MS },
      { name: LEDGER_ARCHIVE_JOB, data: {}, opts: { removeOnComplete: 30, removeOnFail: 30 } },
    );
  }
}
