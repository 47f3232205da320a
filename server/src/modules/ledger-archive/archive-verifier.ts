import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { type ArchiveLocation, type ArchiveStore, archiveStoreOf } from '../../ledger/archive/archive-store';
import { eventOfLine, positionOfLine, segmentLines } from '../../ledger/postgres/archive-segments';
import { ARCHIVE_MANIFEST_FORMAT, type ArchivedSegment, recordedSegments } from './archived-segments';
import { LEDGER_ARCHIVE_LOCK } from './ledger-archiver';

/**
 * `npm run ledger:archive -- --verify` (docs/ledger.md, "Checking an archive"): reads the archive and the database
 * and changes neither. Stops at the first problem with an `ArchiveUnsoundError` naming the segment and position.
 *
 * - the manifest lists exactly the segments `ledger_archive_segments` records (same positions, counts, sizes, hashes);
 * - the segments cover 1…B contiguously, and the hot `events` table starts at B+1 (no gap, no overlap);
 * - the latest snapshot's position is at least B (a rebuild from it needs no archived event) and at most the head;
 * - every segment file exists with the recorded size; with `contents` (the default) also its sha256, every line a
 *   well-formed event, the positions first…last in order and the count recorded.
 *
 * Without `contents` it reads no segment's bytes (its size only): what an archive run checks when it has finished,
 * having just read back every segment it wrote.
 */

export class ArchiveUnsoundError extends Error {
  readonly code = 'ledger_archive_unsound';
}

export interface ArchiveVerification {
  directory: string;
  segments: number;
  /** The last archived position (B): 0 when nothing is archived. */
  archivedThrough: number;
  bytes: number;
  /** The first and last positions of the hot table (null: it is empty). */
  hot: { first: number; last: number } | null;
  snapshot: { id: number; position: number } | null;
  /** Whether the segments' bytes were read (sha256 and every line) or only their sizes. */
  contents: boolean;
}

interface DatabaseView {
  segments: ArchivedSegment[];
  hot: { first: number; last: number } | null;
  snapshot: { id: number; position: number } | null;
}

export async function verifyArchive(
  dataSource: DataSource,
  location: ArchiveLocation,
  options: { contents?: boolean } = {},
): Promise<ArchiveVerification> {
  const contents = options.contents ?? true;
  const store = archiveStoreOf(location);
  const view = await readDatabase(dataSource);
  const manifest = await readManifest(store, view.segments.length > 0);
  compareManifest(manifest, view.segments);
  const archivedThrough = checkCoverage(view);
  for (const segment of view.segments) await checkSegmentFile(store, segment, contents);
  return {
    directory: store.location,
    segments: view.segments.length,
    archivedThrough,
    bytes: view.segments.reduce((sum, segment) => sum + segment.bytes, 0),
    hot: view.hot,
    snapshot: view.snapshot,
    contents,
  };
}

/** The segment rows, the hot table's ends and the latest snapshot, in one read-only REPEATABLE READ transaction. */
async function readDatabase(dataSource: DataSource): Promise<DatabaseView> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    // A run in progress would change the files under the check: the archiver takes this lock exclusively.
    const [{ locked }] = await runner.query('SELECT pg_try_advisory_lock_shared($1) AS locked', [LEDGER_ARCHIVE_LOCK]);
    if (!locked) throw new ArchiveUnsoundError('a ledger archive run is in progress; verify when it has finished');
    try {
      await runner.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      try {
        const segments = await recordedSegments(runner);
        const [hot]: Array<{ first: string | null; last: string | null }> = await runner.query(
          'SELECT min(position) AS first, max(position) AS last FROM events',
        );
        const [snapshot]: Array<{ id: string; position: string }> = await runner.query(
          'SELECT id, position FROM ledger_snapshots ORDER BY id DESC LIMIT 1',
        );
        return {
          segments,
          hot: hot.first === null ? null : { first: Number(hot.first), last: Number(hot.last) },
          snapshot: snapshot ? { id: Number(snapshot.id), position: Number(snapshot.position) } : null,
        };
      } finally {
        await runner.query('ROLLBACK');
      }
    } finally {
      await runner.query('SELECT pg_advisory_unlock_shared($1)', [LEDGER_ARCHIVE_LOCK]);
    }
  } finally {
    await runner.release();
  }
}

/** `manifest.json`'s segments; none when there is neither a manifest nor a recorded segment. */
async function readManifest(store: ArchiveStore, required: boolean): Promise<ArchivedSegment[]> {
  const path = `${store.location}/manifest.json`;
  const bytes = await store.read('manifest.json');
  if (bytes === null) {
    if (required) throw new ArchiveUnsoundError(`manifest.json is missing from ${store.location}`);
    return [];
  }
  const text = bytes.toString('utf8');
  let manifest: { format?: unknown; segments?: unknown };
  try {
    manifest = JSON.parse(text) as typeof manifest;
  } catch (error) {
    throw new ArchiveUnsoundError(`${path} is not JSON: ${(error as Error).message}`);
  }
  if (manifest.format !== ARCHIVE_MANIFEST_FORMAT || !Array.isArray(manifest.segments)) {
    throw new ArchiveUnsoundError(`${path} is not a ledger archive manifest (format ${ARCHIVE_MANIFEST_FORMAT} with segments)`);
  }
  return manifest.segments as ArchivedSegment[];
}

const FIELDS = ['file', 'month', 'firstPosition', 'lastPosition', 'count', 'bytes', 'sha256'] as const;

/** The manifest describes the folder on its own; the table is the authority: they must say the same. */
function compareManifest(manifest: ArchivedSegment[], recorded: ArchivedSegment[]): void {
  for (let index = 0; index < Math.max(manifest.length, recorded.length); index++) {
    const listed = manifest[index];
    const row = recorded[index];
    if (!row) {
      throw new ArchiveUnsoundError(
        `manifest.json lists segment ${listed.file} (positions ${listed.firstPosition}-${listed.lastPosition}) that ledger_archive_segments ` +
          'does not record: an archive run stopped before its commit? run it again',
      );
    }
    if (!listed)
      throw new ArchiveUnsoundError(
        `segment ${row.file} (positions ${row.firstPosition}-${row.lastPosition}) is missing from manifest.json`,
      );
    const differs = FIELDS.find((field) => listed[field] !== row[field]);
    if (differs) {
      throw new ArchiveUnsoundError(
        `segment ${row.file}: manifest.json says ${differs} ${JSON.stringify(listed[differs])}, ledger_archive_segments ${JSON.stringify(row[differs])}`,
      );
    }
  }
}

/** Segments 1…B without a gap or overlap, the hot table from B+1, and a snapshot at or after B. Returns B. */
function checkCoverage(view: DatabaseView): number {
  let through = 0;
  for (const segment of view.segments) {
    if (segment.firstPosition !== through + 1) {
      const what =
        segment.firstPosition > through + 1
          ? `a gap: positions ${through + 1}-${segment.firstPosition - 1} are in no segment`
          : 'an overlap';
      throw new ArchiveUnsoundError(
        `segment ${segment.file} starts at position ${segment.firstPosition}, expected ${through + 1}: ${what}`,
      );
    }
    if (segment.lastPosition < segment.firstPosition || segment.count !== segment.lastPosition - segment.firstPosition + 1) {
      throw new ArchiveUnsoundError(
        `segment ${segment.file}: positions ${segment.firstPosition}-${segment.lastPosition} cannot hold ${segment.count} event(s)`,
      );
    }
    through = segment.lastPosition;
  }
  if (view.hot && view.hot.first !== through + 1) {
    throw new ArchiveUnsoundError(
      view.hot.first <= through
        ? `events still holds position ${view.hot.first}, which the segments archive (through ${through}): an overlap`
        : `a gap: positions ${through + 1}-${view.hot.first - 1} are neither in a segment nor in events`,
    );
  }
  if (through === 0) return through;
  const head = view.hot?.last ?? through;
  if (!view.snapshot) throw new ArchiveUnsoundError(`no snapshot: positions 1-${through} are archived but ledger_snapshots is empty`);
  if (view.snapshot.position < through) {
    throw new ArchiveUnsoundError(
      `snapshot ${view.snapshot.id} is at position ${view.snapshot.position}, below the archived position ${through}: it does not cover the archive`,
    );
  }
  if (view.snapshot.position > head) {
    throw new ArchiveUnsoundError(
      `snapshot ${view.snapshot.id} is at position ${view.snapshot.position}, beyond the ledger's head ${head}`,
    );
  }
  return through;
}

async function checkSegmentFile(store: ArchiveStore, segment: ArchivedSegment, contents: boolean): Promise<void> {
  const path = `${store.location}/${segment.file}`;
  const size = await store.size(segment.file);
  if (size === null) {
    throw new ArchiveUnsoundError(
      `segment ${segment.file} (positions ${segment.firstPosition}-${segment.lastPosition}) is missing: ${path}`,
    );
  }
  if (size !== segment.bytes) {
    throw new ArchiveUnsoundError(
      `segment ${segment.file} (positions ${segment.firstPosition}-${segment.lastPosition}) ` +
        `${size < segment.bytes ? 'is truncated' : 'is longer than recorded'}: ${size} bytes, the manifest says ${segment.bytes}`,
    );
  }
  if (!contents) return;
  const digest = await sha256Of(store, segment.file);
  if (digest !== segment.sha256) {
    throw new ArchiveUnsoundError(
      `segment ${segment.file} (positions ${segment.firstPosition}-${segment.lastPosition}): checksum mismatch, sha256 ${digest}, the manifest says ${segment.sha256}`,
    );
  }
  await checkSegmentLines(store, segment);
}

async function sha256Of(store: ArchiveStore, file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of await store.openRead(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Every line an event, positions first…last in order (gapless), nothing after; a broken gzip names where it broke. */
async function checkSegmentLines(store: ArchiveStore, segment: ArchivedSegment): Promise<void> {
  let expected = segment.firstPosition;
  try {
    for await (const line of segmentLines(store, segment.file)) {
      let position: number;
      try {
        position = positionOfLine(line);
        checkSegmentEvent(line);
      } catch (error) {
        throw new ArchiveUnsoundError(
          `segment ${segment.file}: the line for position ${expected} is not an event: ${(error as Error).message}`,
        );
      }
      if (expected > segment.lastPosition) {
        throw new ArchiveUnsoundError(`segment ${segment.file}: position ${position} after its last position ${segment.lastPosition}`);
      }
      if (position !== expected) {
        throw new ArchiveUnsoundError(
          `segment ${segment.file}: position ${position} where ${expected} was expected (${position > expected ? 'a gap' : 'out of order or repeated'})`,
        );
      }
      expected++;
    }
  } catch (error) {
    if (error instanceof ArchiveUnsoundError) throw error;
    throw new ArchiveUnsoundError(
      `segment ${segment.file}: the gzip stream breaks after position ${expected - 1} (${(error as Error).message}): truncated or corrupt`,
    );
  }
  if (expected - 1 !== segment.lastPosition) {
    throw new ArchiveUnsoundError(
      `segment ${segment.file} ends at position ${expected - 1}: ${expected - segment.firstPosition} of ${segment.count} event(s), positions ${expected}-${segment.lastPosition} are missing`,
    );
  }
}

/** A segment line parses into an event with every field of the right kind (what `eventOfLine` relies on). */
function checkSegmentEvent(line: string): void {
  const event = eventOfLine(line);
  const problems = [
    Number.isSafeInteger(event.position) && event.position > 0 ? '' : 'position',
    typeof event.streamId === 'string' && event.streamId !== '' ? '' : 'streamId',
    Number.isSafeInteger(event.revision) && event.revision >= 0 ? '' : 'revision',
    typeof event.id === 'string' && event.id !== '' ? '' : 'id',
    typeof event.type === 'string' && event.type !== '' ? '' : 'type',
    isObject(event.data) ? '' : 'data',
    isObject(event.metadata) ? '' : 'metadata',
    Number.isNaN(event.createdAt.getTime()) ? 'createdAt' : '',
  ].filter(Boolean);
  if (problems.length) throw new Error(`bad ${problems.join(', ')}`);
}

function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function formatVerification(result: ArchiveVerification): string[] {
  if (result.segments === 0) {
    return [`ledger archive sound: nothing archived in ${result.directory}; events holds ${hotRange(result)}`];
  }
  const checked = result.contents ? 'sha256 and every event checked' : 'sizes checked';
  return [
    `ledger archive sound: ${result.segments} segment(s), positions 1-${result.archivedThrough}, ${result.bytes} bytes in ${result.directory} (${checked})`,
    `  events holds ${hotRange(result)}; snapshot ${result.snapshot?.id} at position ${result.snapshot?.position} covers the archive`,
  ];
}

function hotRange(result: ArchiveVerification): string {
  return result.hot ? `positions ${result.hot.first}-${result.hot.last}` : 'no event';
}
