import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { createGzip } from 'node:zlib';
import type { DataSource } from 'typeorm';
import type { Projection } from '#projections/runner/projection';
import { takeSnapshot } from '#projections/runner/projection-snapshot';
import { type ArchiveLocation, type ArchiveStore, archiveStoreOf } from '../../ledger/archive/archive-store';
import { SEGMENT_LINE_SQL, segmentLines } from '../../ledger/postgres/archive-segments';
import { ARCHIVE_MANIFEST_FORMAT, type ArchivedSegment, recordedSegments } from './archived-segments';

/**
 * `npm run ledger:archive -- --before YYYY-MM` (docs/ledger.md, "Archival and snapshots"): moves the events created
 * before that month out of the hot `events` table into gzip NDJSON monthly segments, after a snapshot of every
 * projection's tables. The order makes every crash recoverable by running it again:
 *
 *   1. plan: the positions to archive, B+1…P (B: what is archived already; P: the last position before the first
 *      event created in or after the month given), split into monthly segments of contiguous positions;
 *   2. snapshot every projection's tables (refused when a projection is behind P);
 *   3. write each segment to a temporary file and store it whole (a folder: fsync, rename, fsync the folder; S3: one
 *      PUT); read it back (sha256, every line equal to the row it came from);
 *   4. write manifest.json (every segment, same facts as the table);
 *   5. one transaction: the segment rows, the archived streams and ids, and `ledger_archive_delete(P)` (the only
 *      way past the append-only trigger), which checks the segments cover 1…P without a gap.
 *
 * Until 5 commits nothing was removed: a rerun plans the same positions and rewrites the same files.
 */

/** Session-level advisory lock one archive run holds (the ledger's are 7311002–7311004). */
export const LEDGER_ARCHIVE_LOCK = 7_311_005;
const PAGE = 5000;

export class ArchiveInputError extends Error {
  readonly code = 'ledger_archive_input';
}

export interface ArchiveOptions {
  /** `YYYY-MM`: events created before the first instant (UTC) of this month are archived. */
  before: string;
  /** The clock (a test may fix it); `before` may not be a month that has not begun. */
  now?: Date;
  /** How long to wait for the projections to reach the archive position before the snapshot refuses (default 30 s). */
  catchUpMs?: number;
  /** After the segments are written and verified, stop before removing rows (a simulated crash, for tests). */
  stopBeforeDelete?: boolean;
}

export interface ArchiveReport {
  snapshotId: number;
  /** The last archived position: the hot table now starts after it. */
  archivedThrough: number;
  eventsArchived: number;
  segments: ArchivedSegment[];
  directory: string;
}

export interface ArchiveDependencies {
  dataSource: DataSource;
  projections: readonly Projection[];
  /** This installation's archive (ledgerArchiveStore: its folder or its S3 prefix; a path is a folder). */
  directory: ArchiveLocation;
}

export function parseArchiveArguments(argv: string[]): { before: string } {
  const inline = argv.find((argument) => argument.startsWith('--before='));
  const index = argv.indexOf('--before');
  const before = inline ? inline.slice('--before='.length) : index >= 0 ? argv[index + 1] : undefined;
  if (before === undefined || before === '')
    throw new ArchiveInputError('--before YYYY-MM is required (events created before that month are archived)');
  return { before };
}

/** The first instant of month `before` (UTC), checked: a well-formed month that has begun. */
export function archiveCutoff(before: string, now: Date): Date {
  const match = /^(\d{4})-(\d{2})$/.exec(before);
  const month = match ? Number(match[2]) : 0;
  if (!match || month < 1 || month > 12) throw new ArchiveInputError(`--before "${before}" is not a month: use YYYY-MM, e.g. 2026-01`);
  const cutoff = new Date(Date.UTC(Number(match[1]), month - 1, 1));
  if (cutoff.getTime() > now.getTime()) {
    throw new ArchiveInputError(`--before ${before} is in the future: only events of months that have begun can be archived`);
  }
  return cutoff;
}

interface PlannedSegment {
  month: string;
  file: string;
  firstPosition: number;
  lastPosition: number;
}

export async function archiveLedger(deps: ArchiveDependencies, options: ArchiveOptions): Promise<ArchiveReport> {
  const cutoff = archiveCutoff(options.before, options.now ?? new Date());
  const lock = deps.dataSource.createQueryRunner();
  await lock.connect();
  try {
    const [{ locked }] = await lock.query('SELECT pg_try_advisory_lock($1) AS locked', [LEDGER_ARCHIVE_LOCK]);
    if (!locked) throw new ArchiveInputError('another ledger archive is running; retry when it has finished');
    try {
      return await archiveLocked(deps, options, cutoff);
    } finally {
      await lock.query('SELECT pg_advisory_unlock($1)', [LEDGER_ARCHIVE_LOCK]);
    }
  } finally {
    await lock.release();
  }
}

async function archiveLocked(deps: ArchiveDependencies, options: ArchiveOptions, cutoff: Date): Promise<ArchiveReport> {
  const { dataSource } = deps;
  const store = archiveStoreOf(deps.directory);
  const [{ boundary, last_month: lastMonth }]: Array<{ boundary: string; last_month: string | null }> = await dataSource.query(
    `SELECT coalesce(max(last_position), 0) AS boundary, max(month) AS last_month FROM ledger_archive_segments`,
  );
  const archivedThroughBefore = Number(boundary);
  const plan = await planSegments(dataSource, archivedThroughBefore, lastMonth, cutoff, options.before);
  const through = plan[plan.length - 1].lastPosition;

  // The archive's folder or bucket first: a bucket that is missing or refuses the credentials fails the run here.
  await store.prepare();
  // A live projector is usually a moment behind the head: give it time to pass P before the snapshot insists on it.
  await waitForCheckpoints(dataSource, deps.projections, through, options.catchUpMs ?? 30_000);
  const snapshot = await takeSnapshot(dataSource, deps.projections, {
    reason: `ledger:archive --before ${options.before}`,
    minimumPosition: through,
  });

  const segments: ArchivedSegment[] = [];
  for (const planned of plan) {
    const written = await writeSegment(dataSource, store, planned);
    await verifySegment(dataSource, store, written);
    segments.push(written);
  }

  const previous = await recordedSegments(dataSource);
  await writeManifest(store, [...previous, ...segments], snapshot.id);
  if (options.stopBeforeDelete) {
    return { snapshotId: snapshot.id, archivedThrough: archivedThroughBefore, eventsArchived: 0, segments, directory: store.location };
  }

  await dataSource.transaction(async (manager) => {
    for (const segment of segments) {
      await manager.query(
        `INSERT INTO ledger_archive_segments (file, month, first_position, last_position, event_count, bytes, sha256, snapshot_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [
          segment.file,
          segment.month,
          segment.firstPosition,
          segment.lastPosition,
          segment.count,
          segment.bytes,
          segment.sha256,
          snapshot.id,
        ],
      );
    }
    const range = [archivedThroughBefore + 1, through];
    await manager.query(
      `INSERT INTO ledger_archived_streams (stream_id, last_revision, last_position, segments)
       SELECT e.stream_id, max(e.revision), max(e.position), array_agg(DISTINCT s.id ORDER BY s.id)
         FROM events e JOIN ledger_archive_segments s ON e.position BETWEEN s.first_position AND s.last_position
        WHERE e.position BETWEEN $1 AND $2
        GROUP BY e.stream_id
       ON CONFLICT (stream_id) DO UPDATE SET last_revision = EXCLUDED.last_revision, last_position = EXCLUDED.last_position,
         segments = ledger_archived_streams.segments || EXCLUDED.segments`,
      range,
    );
    await manager.query(
      `INSERT INTO ledger_archived_ids (event_id, stream_id, revision, position)
       SELECT event_id, stream_id, revision, position FROM events WHERE position BETWEEN $1 AND $2`,
      range,
    );
    const [{ deleted }] = await manager.query('SELECT ledger_archive_delete($1) AS deleted', [through]);
    if (Number(deleted) !== through - archivedThroughBefore) {
      throw new Error(`ledger archive: removed ${deleted} row(s), expected ${through - archivedThroughBefore}; rolled back`);
    }
  });
  // Only the newest snapshot is needed (a rebuild starts from it); older ones are full copies of the tables.
  await dataSource.query('DELETE FROM ledger_snapshots WHERE id < $1', [snapshot.id]);
  await writeManifest(store, await recordedSegments(dataSource), snapshot.id);
  return {
    snapshotId: snapshot.id,
    archivedThrough: through,
    eventsArchived: through - archivedThroughBefore,
    segments,
    directory: store.location,
  };
}

async function waitForCheckpoints(
  dataSource: DataSource,
  projections: readonly Projection[],
  position: number,
  waitMs: number,
): Promise<void> {
  const names = projections.map((projection) => projection.name);
  const deadline = Date.now() + waitMs;
  for (;;) {
    const [{ lowest }]: Array<{ lowest: string | null }> = await dataSource.query(
      `SELECT min(coalesce(c.position, 0)) AS lowest FROM unnest($1::text[]) AS p(name)
         LEFT JOIN projection_checkpoints c ON c.name = p.name`,
      [names],
    );
    if (lowest === null || Number(lowest) >= position || Date.now() >= deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * The positions after `boundary` to archive, in monthly segments of contiguous positions. An event belongs to the
 * month of the latest `created_at` seen up to its position (so a segment never interleaves with the next one when
 * commit order and clock disagree by a moment); archiving stops before the first event created at or after
 * `cutoff`.
 */
async function planSegments(
  dataSource: DataSource,
  boundary: number,
  lastMonth: string | null,
  cutoff: Date,
  before: string,
): Promise<PlannedSegment[]> {
  const taken: Array<{ file: string }> = await dataSource.query('SELECT file FROM ledger_archive_segments');
  const files = new Set(taken.map((row) => row.file));
  const plan: PlannedSegment[] = [];
  let month = lastMonth ?? '';
  let after = boundary;
  let reachedCutoff = false;
  while (!reachedCutoff) {
    const rows: Array<{ position: string; month: string; late: boolean }> = await dataSource.query(
      `SELECT position, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month, created_at >= $2 AS late
         FROM events WHERE position > $1 ORDER BY position LIMIT ${PAGE}`,
      [after, cutoff],
    );
    if (rows.length === 0) break;
    for (const row of rows) {
      const position = Number(row.position);
      if (position !== after + 1) throw new Error(`ledger archive: position ${after + 1} is missing from events (found ${position})`);
      if (row.late) {
        reachedCutoff = true;
        break;
      }
      if (row.month > month) month = row.month;
      const current = plan[plan.length - 1];
      if (current && current.month === month) current.lastPosition = position;
      else plan.push({ month, file: segmentFileName(month, files), firstPosition: position, lastPosition: position });
      after = position;
    }
  }
  if (plan.length === 0) {
    throw new ArchiveInputError(
      boundary > 0
        ? `nothing to archive before ${before}: events up to position ${boundary} are archived already and the next was created in ${before} or later`
        : `nothing to archive before ${before}: the ledger has no event created before ${before}`,
    );
  }
  return plan;
}

/** `events-YYYY-MM.ndjson.gz`, or `events-YYYY-MM.2.ndjson.gz`… when an earlier run archived part of that month. */
function segmentFileName(month: string, taken: Set<string>): string {
  let file = `events-${month}.ndjson.gz`;
  for (let part = 2; taken.has(file); part++) file = `events-${month}.${part}.ndjson.gz`;
  taken.add(file);
  return file;
}

async function* rowLines(dataSource: DataSource, first: number, last: number): AsyncGenerator<string> {
  for (let after = first - 1; after < last; ) {
    const rows: Array<{ position: string; line: string }> = await dataSource.query(
      `${SEGMENT_LINE_SQL} WHERE position > $1 AND position <= $2 ORDER BY position LIMIT ${PAGE}`,
      [after, last],
    );
    if (rows.length === 0) throw new Error(`ledger archive: positions ${after + 1}…${last} are missing from events`);
    for (const row of rows) {
      const position = Number(row.position);
      if (position !== after + 1) throw new Error(`ledger archive: position ${after + 1} is missing from events`);
      after = position;
      yield row.line;
    }
  }
}

async function writeSegment(dataSource: DataSource, store: ArchiveStore, planned: PlannedSegment): Promise<ArchivedSegment> {
  const staged = store.stagingPath(planned.file);
  const hash = createHash('sha256');
  let bytes = 0;
  let count = 0;
  try {
    const gzip = createGzip({ level: 9 });
    const output = createWriteStream(staged);
    gzip.on('data', (chunk: Buffer) => {
      hash.update(chunk);
      bytes += chunk.length;
    });
    gzip.pipe(output);
    const closed = new Promise<void>((resolve, reject) => {
      output.on('close', resolve);
      output.on('error', reject);
      gzip.on('error', reject);
    });
    for await (const line of rowLines(dataSource, planned.firstPosition, planned.lastPosition)) {
      count++;
      if (!gzip.write(`${line}\n`)) await new Promise((resolve) => gzip.once('drain', resolve));
    }
    gzip.end();
    await closed;
  } catch (error) {
    await store.discard(staged);
    throw error;
  }
  await store.putFile(planned.file, staged);
  return { ...planned, count, bytes, sha256: hash.digest('hex') };
}

/** Reads a stored segment back: its bytes hash to what was written, and every line equals the row it came from. */
async function verifySegment(dataSource: DataSource, store: ArchiveStore, segment: ArchivedSegment): Promise<void> {
  const bytes = await store.read(segment.file);
  if (bytes === null) throw new Error(`ledger archive: ${segment.file} is not in ${store.location} after it was written`);
  const digest = createHash('sha256').update(bytes).digest('hex');
  if (digest !== segment.sha256 || bytes.length !== segment.bytes) {
    throw new Error(`ledger archive: ${segment.file} read back differs from what was written (sha256 ${digest})`);
  }
  const expected = rowLines(dataSource, segment.firstPosition, segment.lastPosition);
  let count = 0;
  for await (const line of segmentLines(store, segment.file)) {
    const row = await expected.next();
    if (row.done || row.value !== line) throw new Error(`ledger archive: ${segment.file} line ${count + 1} differs from the ledger row`);
    count++;
  }
  if (count !== segment.count || !(await expected.next()).done) {
    throw new Error(`ledger archive: ${segment.file} holds ${count} event(s), expected ${segment.count}`);
  }
}

/** `manifest.json`: the archive's own description of its segments (the table `ledger_archive_segments` is the authority). */
async function writeManifest(store: ArchiveStore, segments: ArchivedSegment[], snapshotId: number): Promise<void> {
  const manifest = {
    format: ARCHIVE_MANIFEST_FORMAT,
    snapshotId,
    archivedThrough: segments[segments.length - 1]?.lastPosition ?? 0,
    segments,
  };
  await store.putText('manifest.json', `${JSON.stringify(manifest, null, 2)}\n`);
}

export function formatArchiveReport(report: ArchiveReport): string[] {
  return [
    `archived ${report.eventsArchived} event(s) through position ${report.archivedThrough} into ${report.directory} (snapshot ${report.snapshotId})`,
    ...report.segments.map(
      (segment) =>
        `  ${segment.file}: positions ${segment.firstPosition}-${segment.lastPosition}, ${segment.count} event(s), ${segment.bytes} bytes, sha256 ${segment.sha256}`,
    ),
  ];
}
