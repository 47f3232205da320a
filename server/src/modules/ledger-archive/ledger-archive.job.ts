import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ProjectionRegistry } from '#projections/runner/projection-registry';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { eventStoreKind } from '../../ledger/create-event-store';
import { ledgerArchiveStore } from '../../ledger/postgres/archive-segments';
import { ArchiveInputError, type ArchiveReport, archiveLedger } from './ledger-archiver';

/** `YYYY-MM` of the month `keep` months before `now`'s (UTC): with keep = 3 in 2026-11, `2026-08`. */
export function monthToArchiveBefore(now: Date, keep: number): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - keep, 1)).toISOString().slice(0, 7);
}

/**
 * The scheduled archive (worker role, LEDGER_ARCHIVE_KEEP_MONTHS > 0): the same run as `npm run ledger:archive --
 * --before <this month minus the months kept>`. Nothing to archive is the usual answer on most days, not a failure.
 */
@Injectable()
export class LedgerArchiveJob {
  private readonly logger = new Logger('LedgerArchive');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly registry: ProjectionRegistry,
  ) {}

  async run(now: Date = new Date()): Promise<ArchiveReport | null> {
    const keep = this.config.LEDGER_ARCHIVE_KEEP_MONTHS;
    if (keep <= 0 || eventStoreKind(this.config.EVENTSTORE_URL) !== 'postgres') return null;
    const before = monthToArchiveBefore(now, keep);
    const directory = ledgerArchiveStore(this.config);
    try {
      const report = await archiveLedger({ dataSource: this.dataSource, projections: this.registry.all(), directory }, { before, now });
      this.logger.log(`archived ${report.eventsArchived} event(s) created before ${before}, through position ${report.archivedThrough}`);
      return report;
    } catch (error) {
      if (error instanceof ArchiveInputError && /^nothing to archive/.test(error.message)) return null;
      throw error;
    } finally {
      directory.close();
    }
  }
}
