/**
 * `npm run bench -- --rebuild [--events 1000000]`: how fast `npm run projections:rebuild` replays a realistic
 * ledger, and whether the rebuilt read models equal what the live projector built (docs/benchmark.md, "Rebuild").
 *
 *   1. a fresh database (BENCH_REBUILD_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/tollgate_rebuild_bench),
 *      migrated, and N events written into its ledger in big multi-row inserts (ledger-generator.ts: the product's
 *      deciders and event builders);
 *   2. the live projector (`node dist/server/src/main.js --role projector`) catches up from 0; every table but the
 *      ledger's is hashed (rows in a stable order);
 *   3. the rebuild CLI (`npm run projections:rebuild`'s command) as a child process, timed, its progress passed through;
 *   4. the tables hashed again and compared: PASS when equal and at least 50,000 events/s, MISS otherwise.
 *
 * Options: --events N (default 1,000,000), --reuse (keep the database a previous --keep-db run left, skip 1 and 2, and
 * compare with the tables as that run left them), --only a,b (rebuild only these projections: the CLI's --only),
 * --keep-db, --no-live (skip the live projector and the comparison), --no-build (use dist/ as it is),
 * --profile (the CLI under `node --cpu-prof`, profile in test/bench/.work/rebuild-profile). Environment:
 * BENCH_REBUILD_DATABASE_URL, BENCH_REDIS_URL, BENCH_REBUILD_CLI (another build's rebuild-projections.js, to compare),
 * BENCH_REBUILD_NODE_ARGS (extra node flags for the CLI).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { runMigrations } from '#server/infrastructure/database/data-source';
import { generateLedger, type LedgerRow } from './ledger-generator';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const TARGET_EVENTS_PER_SECOND = 50_000;
/** Tables that are not read models: the ledger itself and the checkpoints (their updated_at is the wall clock). */
const NOT_READ_MODELS = new Set(['events', 'migrations', 'projection_checkpoints']);
/** Wall-clock columns of read-model rows (the reminder's bookkeeping), left out of the comparison. */
const WALL_CLOCK_COLUMNS = ['updated_at', 'queued_at'];

const log = (line = '') => process.stdout.write(`${line}\n`);

function flag(name: string): boolean {
  return process.argv.includes(`--${name}`);
}
function option(name: string): string | undefined {
  const args = process.argv;
  const inline = args.find((arg) => arg.startsWith(`--${name}=`));
  if (inline) return inline.slice(name.length + 3);
  const index = args.indexOf(`--${name}`);
  return index >= 0 ? args[index + 1] : undefined;
}

function databaseUrls(): { url: string; name: string; admin: string } {
  const url = new URL(process.env.BENCH_REBUILD_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/tollgate_rebuild_bench');
  const name = decodeURIComponent(url.pathname.slice(1));
  const admin = new URL(url.toString());
  admin.pathname = '/postgres';
  return { url: url.toString(), name, admin: admin.toString() };
}

async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

async function freshDatabase(): Promise<void> {
  const { name, admin } = databaseUrls();
  await withClient(admin, async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${quoteIdent(name)}`);
  });
}

async function dropDatabase(): Promise<void> {
  const { name, admin } = databaseUrls();
  await withClient(admin, (client) => client.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`));
}

/** Writes `rows` with ONE insert of arrays (the table only refuses updates, deletes and truncates). */
async function insertRows(client: Client, rows: LedgerRow[]): Promise<void> {
  await client.query(
    `INSERT INTO events (position, stream_id, revision, event_id, type, data, metadata, created_at)
     SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::uuid[], $5::text[], $6::jsonb[], $7::jsonb[], $8::timestamptz[])`,
    [
      rows.map((row) => row.position),
      rows.map((row) => row.streamId),
      rows.map((row) => row.revision),
      rows.map((row) => row.event.id),
      rows.map((row) => row.event.type),
      rows.map((row) => JSON.stringify(row.event.data)),
      rows.map((row) => JSON.stringify(row.event.metadata)),
      rows.map((row) => row.createdAt.toISOString()),
    ],
  );
}

async function writeLedger(total: number): Promise<void> {
  const { url } = databaseUrls();
  const started = Date.now();
  await withClient(url, async (client) => {
    const { rows } = await client.query<{ head: string }>('SELECT coalesce(max(position), 0) AS head FROM events');
    if (Number(rows[0].head) !== 0) throw new Error(`the fresh ledger already has ${rows[0].head} event(s)`);
    const ledger = generateLedger(total, { chunk: 10_000 });
    let written = 0;
    let pending: Promise<void> = Promise.resolve();
    for (let next = ledger.next(); ; next = ledger.next()) {
      if (next.done) {
        await pending;
        const mix = next.value;
        const types = [...mix.types.entries()].sort((a, b) => b[1] - a[1]).map(([type, count]) => `${type} ${count}`);
        log(`  ${written} events (${mix.users} users, ${mix.channels} channels): ${types.join(', ')}`);
        break;
      }
      const chunk = next.value;
      await pending; // generate the next chunk while this one is written
      pending = insertRows(client, chunk);
      written += chunk.length;
      if (written % 100_000 < chunk.length) log(`  … ${written} events written`);
    }
    await client.query('ANALYZE events');
  });
  const seconds = (Date.now() - started) / 1000;
  log(`- ledger written in ${seconds.toFixed(1)} s (${Math.round(total / seconds)} events/s)`);
}

function benchEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: databaseUrls().url,
    REDIS_URL: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_PREFIX: `tollgate-rebuild-bench-${process.pid}`,
    SESSION_SECRET: 'bench-session-secret-not-for-production',
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
  };
}

function waitForExit(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

/** `npm run build:server` (tsc into dist/), which the CLI and the projector below run from. */
function build(): Promise<void> {
  log('- building the server into dist/ (npm run build:server)');
  const child = spawn(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  return waitForExit(child).then((code) => {
    if (code !== 0) throw new Error(`tsc -p tsconfig.build.json exited with ${code}`);
  });
}

async function head(): Promise<number> {
  return withClient(databaseUrls().url, async (client) => {
    const { rows } = await client.query<{ head: string }>('SELECT coalesce(max(position), 0) AS head FROM events');
    return Number(rows[0].head);
  });
}

/** The live projector catching up from 0, as a projector process does after `npm start`. */
async function runLiveProjector(target: number): Promise<number> {
  log('- live: the projector role catching up from position 0');
  const started = Date.now();
  const child = spawn(process.execPath, ['dist/server/src/main.js', '--role', 'projector'], {
    cwd: ROOT,
    env: benchEnv(),
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exited = waitForExit(child);
  let lastLine = 0;
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the projector exited with ${child.exitCode}`);
      const reached = await withClient(databaseUrls().url, async (client) => {
        const { rows } = await client
          .query<{ low: string | null; n: string }>('SELECT min(position) AS low, count(*) AS n FROM projection_checkpoints')
          .catch(() => ({ rows: [{ low: null, n: '0' }] }));
        return rows[0].low === null ? 0 : Number(rows[0].low);
      });
      if (reached >= target) break;
      if (Date.now() - lastLine > 5000) {
        lastLine = Date.now();
        const seconds = (Date.now() - started) / 1000;
        log(`  live: ${reached}/${target} after ${seconds.toFixed(0)} s`);
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
  const seconds = (Date.now() - started) / 1000;
  log(`- live: caught up in ${seconds.toFixed(1)} s (${Math.round(target / seconds)} events/s, boot included)`);
  return seconds;
}

/** Every read-model table as (row count, md5 of its rows' JSON in sorted order): equal hashes, equal tables. */
async function tableHashes(): Promise<Map<string, { rows: number; hash: string }>> {
  return withClient(databaseUrls().url, async (client) => {
    const { rows: tables } = await client.query<{ name: string }>(
      `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`,
    );
    const hashes = new Map<string, { rows: number; hash: string }>();
    const drop = WALL_CLOCK_COLUMNS.map((column) => ` - '${column}'`).join('');
    for (const { name } of tables) {
      if (NOT_READ_MODELS.has(name)) continue;
      const { rows } = await client.query<{ rows: string; hash: string | null }>(
        `SELECT count(*) AS rows, md5(string_agg(h, '' ORDER BY h)) AS hash
           FROM (SELECT md5((to_jsonb(t)${drop})::text) AS h FROM ${quoteIdent(name)} t) s`,
      );
      hashes.set(name, { rows: Number(rows[0].rows), hash: rows[0].hash ?? '-' });
    }
    return hashes;
  });
}

/** CPU seconds (user + system) of a process from /proc, or null when it is gone or there is no /proc. */
function cpuSeconds(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/**
 * The CPU a process and the Postgres backends serving the benchmark database use while it runs, sampled from /proc
 * every 200 ms (the last sample of each; Postgres on this host). Less noisy than wall clock on a shared machine.
 */
function sampleCpu(pid: number): { stop(): Promise<{ process: number; postgres: number }> } {
  const seen = new Map<number, number>();
  let own = 0;
  let running = true;
  const client = new Client({ connectionString: databaseUrls().admin });
  const loop = (async () => {
    await client.connect();
    while (running) {
      own = cpuSeconds(pid) ?? own;
      const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [databaseUrls().name]);
      for (const row of rows) {
        const cpu = cpuSeconds(row.pid);
        if (cpu !== null) seen.set(row.pid, cpu);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await client.end();
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { process: own, postgres: [...seen.values()].reduce((sum, value) => sum + value, 0) };
    },
  };
}

/**
 * The command `npm run projections:rebuild` runs once scripts/with-build.sh has checked the install and the build
 * (done above), read from package.json so both stay the same: not through npm, whose set-up step would run `npm ci`
 * in a tree whose lock is newer than its install. BENCH_REBUILD_CLI replaces the script (another build's CLI, to
 * compare).
 */
function rebuildCommand(): string[] {
  const script: string = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts['projections:rebuild'];
  const words = script.replace(/^bash scripts\/with-build\.sh\s+/, '').split(/\s+/);
  if (words[0] !== 'node') throw new Error(`unexpected projections:rebuild script: ${script}`);
  return words;
}

interface RebuildRun {
  /** CPU seconds of the CLI process and of the Postgres backends it used. */
  cpu: { process: number; postgres: number };
  wallSeconds: number;
  /** From the CLI's own report line ("… in 12.34 s"): the replay, without the process start. */
  rebuildSeconds: number | null;
  events: number | null;
}

async function timeRebuild(): Promise<RebuildRun> {
  const profileDir = path.join(ROOT, 'test', 'bench', '.work', 'rebuild-profile');
  const env = benchEnv();
  const nodeFlags: string[] = (process.env.BENCH_REBUILD_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  if (flag('profile')) {
    mkdirSync(profileDir, { recursive: true });
    nodeFlags.push('--cpu-prof', `--cpu-prof-dir=${profileDir}`);
  }
  const command = rebuildCommand();
  if (process.env.BENCH_REBUILD_CLI) command[command.length - 1] = process.env.BENCH_REBUILD_CLI;
  const only = option('only');
  const cliArgs = only ? ['--only', only] : [];
  log(`- timing the rebuild CLI (${[...command, ...cliArgs].join(' ')})`);
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [...command.slice(1, -1), ...nodeFlags, command[command.length - 1], ...cliArgs], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const cpu = sampleCpu(child.pid!);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    process.stdout.write(chunk);
  });
  const code = await waitForExit(child);
  const wallSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  const used = await cpu.stop();
  if (code !== 0) throw new Error(`projections:rebuild exited with ${code}`);
  const report = /replayed (\d+) event\(s\) up to position \d+ in ([\d.]+) s/.exec(output);
  if (flag('profile')) {
    const profiles = readdirSync(profileDir).filter((file) => file.endsWith('.cpuprofile'));
    log(`  profile(s) in ${path.relative(ROOT, profileDir)}: ${profiles.join(', ')}`);
  }
  return { cpu: used, wallSeconds, rebuildSeconds: report ? Number(report[2]) : null, events: report ? Number(report[1]) : null };
}

async function main(): Promise<void> {
  const total = Number(option('events') ?? 1_000_000);
  if (!Number.isSafeInteger(total) || total < 1000) throw new Error('--events takes a whole number ≥ 1000');
  const { url, name } = databaseUrls();
  log(`rebuild benchmark: ${total} events in database ${name} (machine shared: compare runs, not absolutes)`);
  if (!flag('reuse')) {
    await freshDatabase();
    await runMigrations(url);
    log('- fresh database, migrated');
    await writeLedger(total);
  }
  if (!flag('no-build')) await build();
  const target = await head();
  const live = !flag('no-live') && !flag('reuse');
  let liveHashes: Map<string, { rows: number; hash: string }> | null = null;
  if (live) {
    await runLiveProjector(target);
    liveHashes = await tableHashes();
  } else if (flag('reuse') && !flag('no-live')) {
    // The tables a --keep-db run left: live's, or a rebuild's that equalled live (PASS or an equal MISS).
    log('- --reuse: the tables as the previous run left them are the reference');
    liveHashes = await tableHashes();
  }
  const run = await timeRebuild();
  const events = run.events ?? target;
  const rate = events / (run.rebuildSeconds ?? run.wallSeconds);
  log('');
  log(`rebuild: ${events} events in ${(run.rebuildSeconds ?? run.wallSeconds).toFixed(2)} s = ${Math.round(rate)} events/s`);
  log(
    `  (the CLI process, boot and Nest included: ${run.wallSeconds.toFixed(2)} s wall = ${Math.round(events / run.wallSeconds)} events/s)`,
  );
  const cpuTotal = run.cpu.process + run.cpu.postgres;
  log(
    `  CPU: rebuild process ${run.cpu.process.toFixed(1)} s + Postgres ${run.cpu.postgres.toFixed(1)} s = ${cpuTotal.toFixed(1)} s ` +
      `(${Math.round((cpuTotal * 1e6) / events)} µs per event; ${Math.round(events / cpuTotal)} events per CPU-second)`,
  );
  let equal = true;
  if (liveHashes) {
    const rebuilt = await tableHashes();
    const differing = [...liveHashes.keys()].filter((table) => rebuilt.get(table)?.hash !== liveHashes!.get(table)!.hash);
    equal = differing.length === 0 && rebuilt.size === liveHashes.size;
    const tables = [...rebuilt.entries()].filter(([, value]) => value.rows > 0).map(([table, value]) => `${table} ${value.rows}`);
    const reference = live ? 'live' : 'the tables before it (--reuse)';
    log(
      `rebuild equals ${reference}: ${equal ? 'yes' : `NO (${differing.join(', ')})`} over ${rebuilt.size} tables (${tables.join(', ')})`,
    );
  } else log('rebuild equals live: not checked (--no-live)');
  const pass = equal && rate >= TARGET_EVENTS_PER_SECOND;
  log(
    `${pass ? 'PASS' : 'MISS'}: ${Math.round(rate)} events/s against the target of ${TARGET_EVENTS_PER_SECOND}${equal ? '' : ', and the rebuild differs from live'}`,
  );
  if (!flag('keep-db') && !flag('reuse')) await dropDatabase();
  if (!pass) process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`rebuild benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
