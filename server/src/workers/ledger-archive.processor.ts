import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Job } from 'bullmq';
import { LedgerArchiveJob } from '../modules/ledger-archive/ledger-archive.job';
import { LEDGER_ARCHIVE_QUEUE } from '../modules/ledger-archive/ledger-archive.queue';

/** The daily ledger archive (worker role, LEDGER_ARCHIVE_KEEP_MONTHS > 0), one at a time in this process. */
@Processor(LEDGER_ARCHIVE_QUEUE, { concurrency: 1 })
export class LedgerArchiveProcessor extends WorkerHost {
  private readonly logger = new Logger(LedgerArchiveProcessor.name);

  constructor(private readonly moduleRef: ModuleRef) {
    super();
  }

  async process(): Promise<{ archivedThrough: number | null }> {
    const report = await this.moduleRef.get(LedgerArchiveJob, { strict: false }).run();
    return { archivedThrough: report?.archivedThrough ?? null };
  }

  @OnWorkerEvent('failed')
  onFailed(job: Job | undefined, error: Error): void {
    this.logger.warn(`ledger archive ${job?.id ?? ''} failed: ${error.message}`);
  }
}
