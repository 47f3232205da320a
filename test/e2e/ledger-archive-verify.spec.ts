import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { archiveLedgerIn } from '#server/cli/archive-ledger';
import { ledgerArchiveDirectory } from '#server/ledger/postgres/archive-segments';
import { ArchiveUnsoundError, verifyArchive } from '#server/modules/ledger-archive/archive-verifier';
import type { ArchiveReport } from '#server/modules/ledger-archive/ledger-archiver';
import { createTestApp, type TestApp } from '../support/app';
import { dataSource, eventStore, projected, register, setOptions } from './users-support';

jest.setTimeout(120_000);

const ROOT = join(__dirname, '..', '..');

/** `YYYY-MM` of the month `back` months before now (UTC). */
function monthsAgo(back: number): string {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1)).toISOString().slice(0, 7);
}

/**
 * `npm run ledger:archive -- --verify` (docs/ledger.md, "Checking an archive"): a sound archive passes, through the
 * function and the compiled CLI (exit 0); a flipped byte, a deleted segment, a truncated file, a broken gzip whose
 * checksum was recorded as such, a line missing from a segment, and a manifest that disagrees with the table are each
 * reported by segment and position (CLI: exit 3, one line on stderr); the check changes neither files nor rows. An
 * object-store URL other than s3:// in LEDGER_ARCHIVE_DIR stops the CLI before it reads anything.
 */
describe('ledger archive --verify', () => {
  let target: TestApp;
  let dataDir: string;
  let directory: string;
  let report: ArchiveReport;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'tollgate-archive-verify-'));
    target = await createTestApp({ env: { DATA_DIR: dataDir }, roles: ['api', 'projector'] });
    directory = ledgerArchiveDirectory(target.config);
    await setOptions(target, { QuotaForNewUser: '1000' });
    for (let user = 0; user < 12; user++) await register(target, `av-${user}`);
    await projected(target);
    const head = await eventStore(target).headPosition();
    expect(head).toBeGreaterThanOrEqual(12);
    // Two old months and a current one (the ledger refuses UPDATE: the fixture lifts its trigger for this statement).
    const db = dataSource(target);
    await db.query('ALTER TABLE events DISABLE TRIGGER events_append_only');
    await db.query(
      `UPDATE events SET created_at = date_trunc('month', now()) - make_interval(months => CASE
          WHEN position <= $1 THEN 3 WHEN position <= $2 THEN 2 ELSE 0 END) + make_interval(mins => position::int)`,
      [head - 6, head - 3],
    );
    await db.query('ALTER TABLE events ENABLE TRIGGER events_append_only');
    const printed: string[] = [];
    report = await archiveLedgerIn(target.app, { before: monthsAgo(1) }, (line) => printed.push(line));
    // The run ends with the cheap check (no segment read again).
    expect(printed[printed.length - 2]).toMatch(
      /^ledger archive sound: 2 segment\(s\), positions 1-\d+, \d+ bytes in .* \(sizes checked\)$/,
    );
  });
  afterAll(async () => {
    await target?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const verify = () => verifyArchive(dataSource(target), directory);
  const cli = (args: string[], env: Record<string, string> = {}) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ['dist/server/src/cli/archive-ledger.js', ...args],
        { cwd: ROOT, env: { ...process.env, DATABASE_URL: target.config.DATABASE_URL, DATA_DIR: dataDir, ...env } },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
      );
    });
  /** Breaks a copy of the archive with `damage`, expects `message` (function and CLI), then puts it back. */
  async function reported(file: string, damage: (path: string) => void, message: RegExp): Promise<void> {
    const path = join(directory, file);
    copyFileSync(path, `${path}.keep`);
    try {
      damage(path);
      await expect(verify()).rejects.toThrow(ArchiveUnsoundError);
      await expect(verify()).rejects.toThrow(message);
      const run = await cli(['--verify']);
      expect({ code: run.code, stderr: run.stderr.trim() }).toEqual({ code: 3, stderr: expect.stringMatching(message) });
    } finally {
      copyFileSync(`${path}.keep`, path);
      unlinkSync(`${path}.keep`);
    }
  }

  it('passes a sound archive, from the function and the compiled CLI', async () => {
    const [first, second] = report.segments;
    expect(report.segments).toHaveLength(2);
    const head = await eventStore(target).headPosition();
    expect(await verify()).toEqual({
      directory,
      segments: 2,
      archivedThrough: second.lastPosition,
      bytes: first.bytes + second.bytes,
      hot: { first: second.lastPosition + 1, last: head },
      snapshot: { id: report.snapshotId, position: expect.any(Number) },
      contents: true,
    });
    const run = await cli(['--verify']);
    expect(run).toEqual({
      code: 0,
      stdout: expect.stringContaining(`ledger archive sound: 2 segment(s), positions 1-${second.lastPosition}`),
      stderr: '',
    });
    expect(run.stdout).toContain('sha256 and every event checked');
    expect(run.stdout).toMatch(
      new RegExp(
        `events holds positions ${second.lastPosition + 1}-${head}; snapshot ${report.snapshotId} at position \\d+ covers the archive`,
      ),
    );
    // An object-store URL that is not s3:// is refused before anything is read (docs/ledger.md, "Object stores").
    expect(await cli(['--verify'], { LEDGER_ARCHIVE_DIR: 'gs://bucket/ledger' })).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'ledger:archive failed: Invalid configuration: LEDGER_ARCHIVE_DIR must be a local folder or an s3://bucket[/prefix] URL ' +
        '(for another object store, mount the bucket and give its folder) (got "gs://bucket/ledger")\n',
    });
    // Bad arguments: a clear message, exit 2.
    expect(await cli(['--verify', '--before', '2026-01'])).toEqual({
      code: 2,
      stdout: '',
      stderr: expect.stringContaining('--verify takes no other argument'),
    });
  });

  it('reports a flipped byte, a deleted segment and a truncated file by segment', async () => {
    const [first, second] = report.segments;
    const range = (segment: typeof first) => `${segment.file} \\(positions ${segment.firstPosition}-${segment.lastPosition}\\)`;
    await reported(
      second.file,
      (path) => {
        const bytes = readFileSync(path);
        bytes[Math.floor(bytes.length / 2)] ^= 0xff;
        writeFileSync(path, bytes);
      },
      new RegExp(
        `^(ledger:archive failed: )?segment ${range(second)}: checksum mismatch, sha256 [0-9a-f]{64}, the manifest says ${second.sha256}$`,
      ),
    );
    await reported(first.file, unlinkSync, new RegExp(`segment ${range(first)} is missing: ${join(directory, first.file)}`));
    await reported(
      first.file,
      (path) => truncateSync(path, first.bytes - 20),
      new RegExp(`segment ${range(first)} is truncated: ${first.bytes - 20} bytes, the manifest says ${first.bytes}`),
    );
    expect(await verify()).toEqual(expect.objectContaining({ segments: 2 }));
  });

  it('reports what a checksum cannot catch: a broken gzip or a missing line recorded as written', async () => {
    const db = dataSource(target);
    const [first] = report.segments;
    const path = join(directory, first.file);
    const original = readFileSync(path);
    const manifest = readFileSync(join(directory, 'manifest.json'), 'utf8');
    /** Writes `bytes` as the segment and records them (table and manifest) as if the archive had written them. */
    const record = async (bytes: Buffer) => {
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      writeFileSync(path, bytes);
      await db.query('UPDATE ledger_archive_segments SET bytes = $2, sha256 = $3 WHERE file = $1', [first.file, bytes.length, sha256]);
      const parsed = JSON.parse(manifest);
      Object.assign(parsed.segments[0], { bytes: bytes.length, sha256 });
      writeFileSync(join(directory, 'manifest.json'), JSON.stringify(parsed));
    };
    try {
      await record(original.subarray(0, original.length - 30));
      await expect(verify()).rejects.toThrow(
        new RegExp(`segment ${first.file}: the gzip stream breaks after position \\d+ \\(.+\\): truncated or corrupt`),
      );

      const lines = gunzipSync(original).toString('utf8').trim().split('\n');
      const gap = first.firstPosition + 2;
      await record(gzipSync(`${lines.filter((_, index) => index !== 2).join('\n')}\n`));
      await expect(verify()).rejects.toThrow(`segment ${first.file}: position ${gap + 1} where ${gap} was expected (a gap)`);

      await record(gzipSync(`${lines.slice(0, 3).join('\n')}\n${lines[3].slice(0, 40)}\n${lines.slice(4).join('\n')}\n`));
      await expect(verify()).rejects.toThrow(`segment ${first.file}: the line for position ${first.firstPosition + 3} is not an event`);
    } finally {
      await record(original);
      writeFileSync(join(directory, 'manifest.json'), manifest);
    }
    expect(await verify()).toEqual(expect.objectContaining({ segments: 2 }));
  });

  it('reports a manifest that disagrees with the table, a gap before the hot table, and a snapshot below the archive', async () => {
    const db = dataSource(target);
    const manifestPath = join(directory, 'manifest.json');
    const manifest = readFileSync(manifestPath, 'utf8');
    const [first, second] = report.segments;
    try {
      const parsed = JSON.parse(manifest);
      parsed.segments[1].count += 1;
      writeFileSync(manifestPath, JSON.stringify(parsed));
      await expect(verify()).rejects.toThrow(
        `segment ${second.file}: manifest.json says count ${second.count + 1}, ledger_archive_segments ${second.count}`,
      );
      parsed.segments = parsed.segments.slice(0, 1);
      writeFileSync(manifestPath, JSON.stringify(parsed));
      await expect(verify()).rejects.toThrow(
        `segment ${second.file} (positions ${second.firstPosition}-${second.lastPosition}) is missing from manifest.json`,
      );
      unlinkSync(manifestPath);
      await expect(verify()).rejects.toThrow(`manifest.json is missing from ${directory}`);
    } finally {
      writeFileSync(manifestPath, manifest);
    }
    // The table (and so the manifest) claims one event less for the last segment: its last position is in neither.
    const shorter = JSON.parse(manifest);
    Object.assign(shorter.segments[1], { lastPosition: second.lastPosition - 1, count: second.count - 1 });
    writeFileSync(manifestPath, JSON.stringify(shorter));
    const recordLast = (last: number, count: number) =>
      db.query('UPDATE ledger_archive_segments SET last_position = $2, event_count = $3 WHERE file = $1', [second.file, last, count]);
    await recordLast(second.lastPosition - 1, second.count - 1);
    try {
      await expect(verify()).rejects.toThrow(
        `a gap: positions ${second.lastPosition}-${second.lastPosition} are neither in a segment nor in events`,
      );
    } finally {
      await recordLast(second.lastPosition, second.count);
      writeFileSync(manifestPath, manifest);
    }
    const [{ position }] = await db.query('SELECT position FROM ledger_snapshots WHERE id = $1', [report.snapshotId]);
    await db.query('UPDATE ledger_snapshots SET position = $2 WHERE id = $1', [report.snapshotId, first.lastPosition]);
    try {
      await expect(verify()).rejects.toThrow(
        `snapshot ${report.snapshotId} is at position ${first.lastPosition}, below the archived position ${second.lastPosition}: it does not cover the archive`,
      );
    } finally {
      await db.query('UPDATE ledger_snapshots SET position = $2 WHERE id = $1', [report.snapshotId, position]);
    }
    expect(await verify()).toEqual(expect.objectContaining({ segments: 2 }));
  });
});
