import 'reflect-metadata';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ProjectionRunner } from '#projections/runner/projection-runner';
import type { RebuildReport } from '#projections/runner/projection-rebuild';
import { AppModule } from '../app.module';
import { loadRuntimeConfig } from '../bootstrap-config';
import { parseConfig } from '../config/app-config';
import { type ProgressOutput, ProgressPrinter } from './rebuild-progress';

export interface RebuildCommandOptions {
  /** Only these projections (default all). */
  projections?: string[];
  /** Seconds to wait for a running projector to let go of the leadership. */
  waitSeconds: number;
  /** `--from-archive`: replay the whole ledger, archived segments included, instead of starting from the latest snapshot. */
  fromArchive?: boolean;
}

export function parseRebuildArguments(argv: string[]): RebuildCommandOptions {
  const value = (flag: string) => {
    const inline = argv.find((argument) => argument.startsWith(`${flag}=`));
    if (inline) return inline.slice(flag.length + 1);
    const index = argv.indexOf(flag);
    return index >= 0 ? argv[index + 1] : undefined;
  };
  const only = value('--only');
  const wait = Number(value('--wait') ?? 15);
  if (!Number.isFinite(wait) || wait < 0) throw new Error('--wait takes a number of seconds');
  return {
    projections: only
      ? only
          .split(',')
          .map((name) => name.trim())
          .filter(Boolean)
      : undefined,
    waitSeconds: wait,
    ...(argv.includes('--from-archive') ? { fromArchive: true } : {}),
  };
}

export function formatRebuildReport(report: RebuildReport): string[] {
  const lines = [
    `rebuilt ${report.projections.length} projection(s): replayed ${report.eventsReplayed} event(s) up to position ${report.position} in ${(report.durationMs / 1000).toFixed(2)} s`,
  ];
  for (const projection of report.projections) {
    const rows = Object.entries(projection.rows)
      .map(([table, count]) => `${table}=${count}`)
      .join(', ');
    lines.push(`  ${projection.name}: ${projection.eventsApplied} event(s) applied${projection.bulk ? ' (bulk load)' : ''}; rows: ${rows}`);
  }
  if (report.snapshot) {
    lines.push(
      `  started from ledger snapshot ${report.snapshot.id} (position ${report.snapshot.position}; restored: ${report.snapshot.restored.join(', ') || 'none'})`,
    );
  }
  return lines;
}

/** The rebuild itself, against any application context that has ProjectionsModule (tests pass their own). */
export async function rebuildProjectionsIn(
  app: INestApplicationContext,
  options: RebuildCommandOptions,
  print: (line: string) => void,
  progress?: ProgressOutput,
): Promise<RebuildReport> {
  let runner: ProjectionRunner;
  try {
    runner = app.get(ProjectionRunner, { strict: false });
  } catch {
    throw new Error('the application does not import ProjectionsModule.forRoot(…): nothing to rebuild');
  }
  print(
    `rebuilding ${options.projections?.join(', ') ?? 'all projections'} (waiting up to ${options.waitSeconds} s for the projector leadership)`,
  );
  const printer = progress ? new ProgressPrinter(progress) : null;
  let report: RebuildReport;
  try {
    report = await runner.rebuild({
      projections: options.projections,
      waitMs: options.waitSeconds * 1000,
      from: options.fromArchive ? 'archive' : 'snapshot',
      onProgress: printer ? (step) => printer.update(step) : undefined,
    });
  } finally {
    printer?.finish();
  }
  for (const line of formatRebuildReport(report)) print(line);
  return report;
}

/**
 * `npm run projections:rebuild [-- --only balances,usage_logs] [--wait 30] [--from-archive]`: empties projection tables
 * and replays the ledger (from the latest ledger snapshot when there is one; `--from-archive`: all of it), showing a
 * progress bar (events done of the head at the start, rate, time left). Stop running projectors first (or pass --wait long enough for them to stop): the rebuild
 * takes the projector leadership so nothing else writes the tables meanwhile.
 */
async function main(): Promise<void> {
  const print = (line: string) => process.stdout.write(`${line}\n`);
  const options = parseRebuildArguments(process.argv.slice(2));
  // No role: this process neither serves HTTP, nor consumes queues, nor starts the live projector.
  // The CLI's entry point: the one read of the environment, as in main.ts.
  const { config, stop } = await loadRuntimeConfig(parseConfig(process.env), [], print);
  const app = await NestFactory.createApplicationContext(AppModule.forRoot(config), { logger: ['error', 'warn'] });
  try {
    // A progress bar redrawn in place on a terminal, a line every 5 s in a log.
    await rebuildProjectionsIn(app, options, print, { isTTY: process.stdout.isTTY, write: (text) => process.stdout.write(text) });
  } finally {
    await app.close();
    await stop();
  }
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`projections:rebuild failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
