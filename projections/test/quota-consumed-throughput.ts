import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { DataSource, type EntityManager } from 'typeorm';
import { diffSnapshots, snapshotTables, type TableComparison } from '../../test/support/compare-tables';
import { dataSourceOptions } from '../../server/src/infrastructure/database/data-source';
import { type QuotaConsumedData, quotaConsumedEvent } from '../../server/src/modules/accounts';
import type { RecordedEvent } from '../../server/src/ledger/event-store.port';
import { PostgresEventStore } from '../../server/src/ledger/postgres/postgres-event-store';
import { accountStream } from '../../server/src/ledger/streams';
import type { OptionsService } from '../../server/src/modules/options/options.service';
import { QuotaReminderProjection } from '../../server/src/modules/quota-reminder/quota-reminder.projection';
import { AccountBalancesProjection } from '../src/read-models/account-balances/account-balances.projection';
import { ChannelStatusProjection } from '../src/read-models/channel-status/channel-status.projection';
import { LogsProjection } from '../src/read-models/logs/logs.projection';
import { QuotaDataProjection } from '../src/read-models/quota-data/quota-data.projection';
import { StatementProjection } from '../src/read-models/statement/statement.projection';
import { TokenBalancesProjection } from '../src/read-models/token-balances/token-balances.projection';
import { CheckpointStore } from '../src/runner/checkpoint-store';
import type { Projection } from '../src/runner/projection';
import { countingStatements } from './counting-statements';
import { consumed } from './mixed-ledger';

/**
 * What batching the QuotaConsumed folds buys: the same ledger of relay charges projected by every projection that
 * folds them (account and token balances, channel status, logs, the dashboard's quota_data, the statement and the
 * low-quota reminder; PROJECTIONS below, checked against the registry by quota-consumed-throughput.int.spec.ts), through the runner's batch transaction (CheckpointStore.applyBatch, batches of 500 as live),
 * once with `apply` per event (applyBatch hidden) and once with `applyBatch`, on a migrated database of its own.
 * Used by quota-consumed-throughput.int.spec.ts (CI) and quota-consumed-throughput.bench.ts (the figures: plain
 * node, as the projector runs, whereas jest's module sandbox slows the projector's JavaScript several times).
 */

export interface Measurement {
  mode: 'apply per event' | 'applyBatch';
  events: number;
  batches: number;
  /** Statements the projections issued (the runner's own two per batch, lock and checkpoint, not counted). */
  statements: number;
  wallMs: number;
  /** CPU of this process (the projector) while projecting. */
  projectorCpuMs: number;
  /** CPU of the Postgres backend that ran the batches, when /proc shows it (same host), else null. */
  postgresCpuMs: number | null;
}

export interface ThroughputResult {
  perEvent: Measurement;
  batched: Measurement;
  /** The tables both modes left, compared row for row. */
  comparison: TableComparison;
}

const BATCH = 500;
const USERS = 4;
/** The low-quota reminder's threshold: charges take the balances (0 before them) straight into "exhausted". */
const REMIND_THRESHOLD = 1000;
const TABLES = [
  'account_balances',
  'token_balances',
  'channel_status',
  'logs',
  'log_purges',
  'quota_data',
  'statement_lines',
  'quota_reminder_balances',
  'quota_reminders',
  'quota_reminder_mails',
  'quota_reminder_cursor',
];
/** quota_reminders.updated_at is the wall clock of the write (no other table compared has the column). */
const SNAPSHOT = { ignoreColumns: ['updated_at'] };

/**
 * Every projection that folds QuotaConsumed. Neither apply nor applyBatch uses the admission service, the data
 * source or the reminder's mailer (afterCommit does; not called here); the reminder reads only its threshold.
 */
export function quotaConsumedProjections(): Projection[] {
  const options = { getNumber: (key: string) => (key === 'QuotaRemindThreshold' ? REMIND_THRESHOLD : 0) } as unknown as OptionsService;
  return [
    new AccountBalancesProjection(null as never, null as never),
    new TokenBalancesProjection(null as never, null as never),
    new ChannelStatusProjection(),
    new LogsProjection(),
    new QuotaDataProjection(),
    new StatementProjection(),
    new QuotaReminderProjection(options, null as never),
  ];
}

/** CPU time (ms) of a process so far, from /proc (utime + stime, in USER_HZ = 100 ticks); null if unreadable. */
function processCpuMs(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/** Appends `events` charges to the (migrated, empty) database at `databaseUrl` and projects them both ways. */
export async function measureQuotaConsumedThroughput(databaseUrl: string, events: number): Promise<ThroughputResult> {
  const store = await PostgresEventStore.connect({ connectionString: databaseUrl, pollIntervalMs: 1000 });
  // One connection: every batch runs on the backend whose CPU is read.
  const dataSource = await new DataSource({ ...dataSourceOptions(databaseUrl), extra: { max: 1 } }).initialize();
  try {
    const checkpoints = new CheckpointStore(dataSource);
    const batches = await appendCharges(store, events);

    let statements = 0;
    // Counted on the batch's connection, so the named batch statements (prepared-query.ts) count as well.
    const counting = async <T>(manager: EntityManager, run: () => Promise<T>): Promise<T> => {
      const counter = await countingStatements(manager);
      try {
        return await run();
      } finally {
        counter.stop();
        statements += counter.statements();
      }
    };
    const real = quotaConsumedProjections();
    const wrap = (projection: Projection, batched: boolean): Projection => ({
      name: projection.name,
      tables: projection.tables,
      handles: projection.handles,
      apply: (event, manager) => counting(manager, () => projection.apply(event, manager)),
      ...(batched && projection.applyBatch
        ? { applyBatch: (events, manager) => counting(manager, () => projection.applyBatch!(events, manager)) }
        : {}),
    });

    const project = async (mode: Measurement['mode'], of: RecordedEvent[][]): Promise<Measurement> => {
      const projections = real.map((projection) => wrap(projection, mode === 'applyBatch'));
      await dataSource.query(`TRUNCATE ${TABLES.filter((table) => table !== 'quota_reminder_cursor').join(', ')}`);
      await dataSource.query('UPDATE quota_reminder_cursor SET position = 0');
      await dataSource.query('DELETE FROM projection_checkpoints');
      const current = await checkpoints.ensure(projections.map((projection) => projection.name));
      const [{ pid }]: Array<{ pid: number }> = await dataSource.query('SELECT pg_backend_pid() AS pid');
      statements = 0;
      const postgresBefore = processCpuMs(pid);
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      for (const batch of of) await checkpoints.applyBatch(projections, current, batch);
      const wallMs = performance.now() - started;
      const cpu = process.cpuUsage(cpuBefore);
      const postgresAfter = processCpuMs(pid);
      const [{ pid: samePid }]: Array<{ pid: number }> = await dataSource.query('SELECT pg_backend_pid() AS pid');
      return {
        mode,
        events: of.reduce((sum, batch) => sum + batch.length, 0),
        batches: of.length,
        statements,
        wallMs,
        projectorCpuMs: (cpu.user + cpu.system) / 1000,
        postgresCpuMs: postgresBefore !== null && postgresAfter !== null && samePid === pid ? postgresAfter - postgresBefore : null,
      };
    };

    // Warm up both paths (JIT, plans, caches) so neither pays for it in the measurement: the batched one over the
    // whole ledger (it is quick), the per-event one over a batch.
    await project('applyBatch', batches);
    await project('apply per event', batches.slice(0, 1));
    const perEvent = await project('apply per event', batches);
    const perEventTables = await snapshotTables(dataSource, TABLES, SNAPSHOT);
    const batched = await project('applyBatch', batches);
    const comparison = diffSnapshots(perEventTables, await snapshotTables(dataSource, TABLES, SNAPSHOT), TABLES);
    return { perEvent, batched, comparison };
  } finally {
    await store.close();
    await dataSource.destroy();
  }
}

/**
 * As the relay appends them: one QuotaConsumed per request (any revision), users taking turns, two tokens per user
 * (the second unlimited), three channels, one charge in ten with consume logging off. Returns the ledger in runner
 * batches.
 */
async function appendCharges(store: PostgresEventStore, count: number): Promise<RecordedEvent[][]> {
  const requests = Array.from({ length: count }, (_, i) => {
    const userId = 1 + (i % USERS);
    const second = Math.floor(i / USERS) % 2 === 1;
    const data = consumed(userId, i, {
      tokenId: 100 + 10 * userId + (second ? 1 : 0),
      tokenUnlimited: second,
      channelId: 1 + (i % 3),
      logConsume: i % 10 !== 0,
    });
    return {
      streamId: accountStream(userId),
      expectedRevision: 'any' as const,
      // Stored as the relay stores charges (the codec's current compact shape), so the folds pay its decoding.
      events: [
        quotaConsumedEvent({ ...data, requestId: randomUUID() } as unknown as QuotaConsumedData, { userRole: 1, clientIp: '127.0.0.1' })
          .event,
      ],
    };
  });
  for (let i = 0; i < requests.length; i += 250) await store.appendMany(requests.slice(i, i + 250));
  const batches: RecordedEvent[][] = [];
  for (let after = 0; ; ) {
    const batch = await store.readAll({ after, maxCount: BATCH });
    if (batch.length === 0) return batches;
    batches.push(batch);
    after = batch[batch.length - 1].position;
  }
}

/** One line per mode, per event figures. */
export function describeMeasurement(m: Measurement): string {
  const perEvent = (ms: number) => `${((ms * 1000) / m.events).toFixed(1)} µs/event`;
  return [
    m.mode.padEnd(16),
    `${m.statements} statements (${(m.statements / m.batches).toFixed(0)}/batch)`.padEnd(31),
    `wall ${m.wallMs.toFixed(0)} ms`.padEnd(14),
    `${Math.round((m.events / m.wallMs) * 1000)} events/s`.padEnd(17),
    `projector CPU ${perEvent(m.projectorCpuMs)}`.padEnd(33),
    m.postgresCpuMs === null ? 'Postgres CPU n/a' : `Postgres CPU ${perEvent(m.postgresCpuMs)}`,
  ].join('  ');
}
