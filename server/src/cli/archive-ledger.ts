import 'reflect-metadata';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { ProjectionRegistry } from '#projections/runner/projection-registry';
import { AppModule } from '../app.module';
import { loadRuntimeConfig } from '../bootstrap-config';
import { APP_CONFIG, type AppConfig, parseConfig } from '../config/app-config';
import { dataSourceOptions } from '../infrastructure/database/data-source';
import { resolvePostgres } from '../infrastructure/resolve-postgres';
import { eventStoreKind } from '../ledger/create-event-store';
import { ledgerArchiveStore } from '../ledger/postgres/archive-segments';
import { ArchiveUnsoundError, formatVerification, verifyArchive } from '../modules/ledger-archive/archive-verifier';
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
  const directory = ledgerArchiveStore(config);
  print(`archiving ledger events created before ${options.before} into ${directory.location}`);
  try {
    const report = await archiveLedger(
      { dataSource: app.get(DataSource, { strict: false }), projections: registry.all(), directory },
      options,
    );
    for (const line of formatArchiveReport(report)) print(line);
    if (!options.stopBeforeDelete) {
      // The run read back every segment it wrote: what is left to check is cheap (the manifest against the table, the
      // positions joining the hot table, the snapshot, every older segment's size), so no segment is read again.
      const verified = await verifyArchive(app.get(DataSource, { strict: false }), directory, { contents: false });
      for (const line of formatVerification(verified)) print(line);
    }
    return report;
  } finally {
    directory.close();
  }
}

/** `--verify`: the archive as a whole, read only (a read-only connection; not even a migration is run). */
async function verifyMain(print: (line: string) => void): Promise<void> {
  const env = parseConfig(process.env);
  if (eventStoreKind(env.EVENTSTORE_URL) !== 'postgres') {
    throw new ArchiveInputError('ledger:archive --verify checks the Postgres ledger archive; EVENTSTORE_URL points at EventStoreDB');
  }
  // DATABASE_URL as given (resolvePostgres would create a missing database); else the installation's own server.
  const postgres = env.DATABASE_URL
    ? { url: env.DATABASE_URL, stop: undefined }
    : await resolvePostgres({ dataDir: env.DATA_DIR, embeddedPort: env.EMBEDDED_PG_PORT });
  const dataSource = new DataSource({
    ...dataSourceOptions(postgres.url),
    extra: { max: 2, options: '-c default_transaction_read_only=on' },
  });
  try {
    await dataSource.initialize();
    const directory = ledgerArchiveStore({ ...env, DATABASE_URL: postgres.url });
    print(`verifying the ledger archive in ${directory.location}`);
    try {
      for (const line of formatVerification(await verifyArchive(dataSource, directory))) print(line);
    } finally {
      directory.close();
    }
  } finally {
    if (dataSource.isInitialized) await dataSource.destroy();
    await postgres.stop?.();
  }
}

/** `--verify` alone, or `--before YYYY-MM`: never both. */
function parseMode(argv: string[]): { verify: true } | { verify: false; before: string } {
  if (!argv.includes('--verify')) return { verify: false, ...parseArchiveArguments(argv) };
  const others = argv.filter((argument) => argument !== '--verify');
  if (others.length)
    throw new ArchiveInputError(`--verify takes no other argument (got ${others.join(' ')}): verify, or archive with --before`);
  return { verify: true };
}

/**
 * `npm run ledger:archive -- --verify`: checks the archive (archive-verifier.ts), exit 3 at the first problem.
 * `npm run ledger:archive -- --before YYYY-MM`: snapshots the projections, moves the events created before that
 * month to gzip monthly segments under LEDGER_ARCHIVE_DIR (default DATA_DIR/archive)/<database>, verifies them and
 * only then removes them from the events table. Safe to run while the gateway runs; safe to run again after a crash.
 */
async function main(): Promise<void> {
  const print = (line: string) => process.stdout.write(`${line}\n`);
  const mode = parseMode(process.argv.slice(2));
  if (mode.verify) return verifyMain(print);
  const { before } = mode;
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
      process.exit(error instanceof ArchiveInputError ? 2 : error instanceof ArchiveUnsoundError ? 3 : 1);
    },
  );
}
