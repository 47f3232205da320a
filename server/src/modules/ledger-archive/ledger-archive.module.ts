import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { LEDGER_ARCHIVE_QUEUE } from './ledger-archive.queue';
import { LedgerArchiveJob } from './ledger-archive.job';
import { LedgerArchiveScheduler } from './ledger-archive.scheduler';

/**
 * Ledger archival (docs/ledger.md, "Archival and snapshots"): the archive run (`ledger-archiver.ts`, also behind
 * `npm run ledger:archive`) and its optional daily schedule in the worker role (LEDGER_ARCHIVE_KEEP_MONTHS).
 */
@Module({
  imports: [BullModule.registerQueue({ name: LEDGER_ARCHIVE_QUEUE })],
  providers: [LedgerArchiveJob, LedgerArchiveScheduler],
  exports: [LedgerArchiveJob],
})
export class LedgerArchiveModule {}
