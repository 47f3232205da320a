import 'reflect-metadata';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { ProjectionRegistry } from '#projections/runner/projection-registry';
import { AppModule } from '../app.module';
import { loadRuntimeConfig } from '../bootstrap-config';
import { APP_CONFIG, type AppConfig, parseConfig } from '../config/app-config';
import { eventStoreKind } from '../ledger/create-event-store';
import { ledgerArchiveDirectory } from '../ledger/postgres/archive-segments';
import {
  ArchiveInputError,
  type ArchiveOptions,
  type ArchiveReport,
  archiveCutoff,
  archiveLedger,
  formatArchiveReport,
  parseArchiveArguments,
} from '../modules/ledger-archive/ledger-archiver';

/** The archive itself, against any application context that has the projections (tests pass their own). */
export async function archiveLedgerIn(
  app: INestApplicationContext,
  options: ArchiveOptions,
  print: (line: string) => void,
): Promise<ArchiveReport> {
  const config = app.get<AppConfig>(APP_CONFIG, { strict: false });
  if (eventStoreKind(config.EVENTSTORE_URL) !== 'postgres') {
    throw new ArchiveInputError(
      "ledger:archive archives the Postgres events table; with EVENTSTORE_URL set, use the EventStoreDB server's own archiving",
    );
  }
  const registry = app.get(ProjectionRegistry, { strict: false });
  const directory = ledgerArchiveDirectory(config);
  print(`archiving ledger events created before ${options.before} into ${directory}`);
  const report = await archiveLedger(
    { dataSource: app.get(DataSource, { strict: false }), projections: registry.all(), directory },
    options,
  );
  for (const line of formatArchiveReport(report)) print(line);
  return report;
}

/**
 * `npm run ledger:archive -- --before YYYY-MM`: snapshots the projections, moves the events created before that
 * month to gzip monthly segments under LEDGER_ARCHIVE_DIR (default DATA_DIR/archive)/<database>, verifies them and
 * only then removes them from the events table. Safe to run while the gateway runs; safe to run again after a crash.
 */
async function main(): Promise<void> {
  const print = (line: string) => process.stdout.write(`${line}\n`);
  const argv = process.argv.slice(2);
  const { before } = parseArchiveArguments(argv);
  archiveCutoff(before, new Date()); // a malformed or future month stops here, before any connection is made
  // No role: this process neither serves HTTP, nor consumes queues, nor starts the live projector.
  const { config, stop } = await loadRuntimeConfig(parseConfig(process.env), [], print);
  const app = await NestFactory.createApplicationContext(AppModule.forRoot(config), { logger: ['error', 'warn'] });
  try {
    await archiveLedgerIn(app, { before }, print);
  } finally {
    await app.close();
    await stop();
  }
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`ledger:archive failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(error instanceof ArchiveInputError ? 2 : 1);
    },
  );
}
