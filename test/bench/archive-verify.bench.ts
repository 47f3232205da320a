/**
 * What `npm run ledger:archive -- --verify` costs (docs/ledger.md, "Checking an archive"): one segment of N relay
 * charges (the v2 QuotaConsumed shape, 50 account streams, UUID v7 ids), gzip level 9 as the archiver writes it,
 * recorded in a fresh migrated database with its snapshot and manifest; then the whole check (sha256, every line)
 * and the cheap one an archive run ends with, timed. The database and the folder are removed at the end.
 *
 *   node -r ./test/support/swc-register.js test/bench/archive-verify.bench.ts [events=200000]
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { DataSource } from 'typeorm';
import { uuidV7 } from '../../server/src/ledger/event-ids';
import { verifyArchive } from '../../server/src/modules/ledger-archive/archive-verifier';
import { createTestDatabase } from '../support/database';

const EVENTS = Number(process.argv[2] ?? 200_000);
const CHARGE = JSON.stringify({
  v2: JSON.stringify([2, 1, 7, 'alice', 12, 'key', 1, 'gpt-4o-mini', 0, 0, 12, 7, 19, 150, 0, 'default', 1]),
});

async function main(): Promise<void> {
  process.env.TEST_DATABASE_URL ??= process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const database = await createTestDatabase();
  const dataSource = await new DataSource({ type: 'postgres', url: database.url, extra: { max: 2 } }).initialize();
  const directory = mkdtempSync(join(tmpdir(), 'archive-verify-bench-'));
  try {
    const lines: string[] = [];
    for (let position = 1; position <= EVENTS; position++) {
      lines.push(
        `{"position":${position},"streamId":"account-${position % 50}","revision":${Math.floor(position / 50)},"id":"${uuidV7()}",` +
          `"type":"QuotaConsumed","data":${CHARGE},"metadata":{},"createdAt":"2026-08-01T10:00:00.123456Z"}`,
      );
    }
    const bytes = gzipSync(`${lines.join('\n')}\n`, { level: 9 });
    const segment = {
      file: 'events-2026-08.ndjson.gz',
      month: '2026-08',
      firstPosition: 1,
      lastPosition: EVENTS,
      count: EVENTS,
      bytes: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    };
    writeFileSync(join(directory, segment.file), bytes);
    const [{ id }] = await dataSource.query(`INSERT INTO ledger_snapshots (position, reason) VALUES ($1, 'bench') RETURNING id`, [EVENTS]);
    await dataSource.query(
      `INSERT INTO ledger_archive_segments (file, month, first_position, last_position, event_count, bytes, sha256, snapshot_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [segment.file, segment.month, 1, EVENTS, EVENTS, segment.bytes, segment.sha256, id],
    );
    const manifest = { format: 'tollgate-ledger-archive/1', snapshotId: Number(id), archivedThrough: EVENTS, segments: [segment] };
    writeFileSync(join(directory, 'manifest.json'), JSON.stringify(manifest));
    console.log(`${EVENTS} events in one segment, ${bytes.length} bytes gzip`);
    for (const contents of [true, true, true, false]) {
      const started = process.hrtime.bigint();
      const cpu = process.cpuUsage();
      await verifyArchive(dataSource, directory, { contents });
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const used = process.cpuUsage(cpu);
      const rate = contents ? `, ${Math.round(EVENTS / (ms / 1000))} events/s` : '';
      console.log(
        `${contents ? 'whole check' : 'cheap check'}: ${ms.toFixed(0)} ms wall, ${((used.user + used.system) / 1000).toFixed(0)} ms CPU${rate}`,
      );
    }
  } finally {
    await dataSource.destroy();
    await database.drop();
    rmSync(directory, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
