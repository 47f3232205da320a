import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { type AppConfig, URL_PATTERN } from '../../config/app-config';
import { type ArchiveLocation, type ArchiveStore, archiveStoreOf, LocalArchiveStore } from '../archive/archive-store';
import { parseS3Url, S3ArchiveStore } from '../archive/s3-archive-store';
import type { RecordedEvent } from '../event-store.port';

/**
 * Archived ledger segments (docs/ledger.md, "Archival and snapshots"): gzip NDJSON files, one event per line in
 * position order, `<archive dir>/events-YYYY-MM.ndjson.gz`. A line is built by Postgres from the stored row
 * (`SEGMENT_LINE_SQL`), so `data` and `metadata` are the stored jsonb text and `createdAt` keeps its microseconds:
 *
 *   {"position":1,"streamId":"account-1","revision":0,"id":"…","type":"QuotaGranted","data":{…},"metadata":{…},"createdAt":"2026-08-01T10:00:00.123456Z"}
 *
 * `position` comes first so a reader skipping to a position needs no JSON parse of the lines it skips.
 */

/** One row per event of `events`: its position, the month its segment is named after, and its segment line. */
export const SEGMENT_LINE_SQL = `
  SELECT position, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month,
         '{"position":' || position || ',"streamId":' || to_json(stream_id)::text || ',"revision":' || revision ||
         ',"id":"' || event_id || '","type":' || to_json(type)::text || ',"data":' || data::text ||
         ',"metadata":' || metadata::text || ',"createdAt":"' ||
         to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') || '"}' AS line
    FROM events`;

export interface SegmentRow {
  id: number;
  file: string;
  month: string;
  firstPosition: number;
  lastPosition: number;
  count: number;
  bytes: number;
  sha256: string;
}

/** What locating and opening an installation's archive reads of the configuration. */
export type ArchiveConfig = Pick<AppConfig, 'DATA_DIR' | 'DATABASE_URL'> &
  Partial<
    Pick<
      AppConfig,
      | 'LEDGER_ARCHIVE_DIR'
      | 'LEDGER_ARCHIVE_S3_ENDPOINT'
      | 'LEDGER_ARCHIVE_S3_REGION'
      | 'LEDGER_ARCHIVE_S3_FORCE_PATH_STYLE'
      | 'LEDGER_ARCHIVE_S3_ACCESS_KEY_ID'
      | 'LEDGER_ARCHIVE_S3_SECRET_ACCESS_KEY'
    >
  >;

/** The database's name as a file name: one archive per database under the root. */
function databaseFolder(databaseUrl: string): string {
  let database = 'tollgate';
  try {
    database = decodeURIComponent(new URL(databaseUrl).pathname.slice(1)) || database;
  } catch {
    // not a URL (a socket path?): one folder for the default name
  }
  return database.replace(/[^A-Za-z0-9_.-]/g, '_');
}

/**
 * Where an installation's archive lives: <LEDGER_ARCHIVE_DIR, default DATA_DIR/archive>/<database name>, a folder
 * or, for an `s3://bucket[/prefix]` root, `s3://bucket[/prefix]/<database name>`.
 */
export function ledgerArchiveDirectory(config: ArchiveConfig): string {
  const configured = config.LEDGER_ARCHIVE_DIR?.trim();
  const s3 = configured ? parseS3Url(configured) : null;
  if (s3) return `s3://${s3.bucket}/${s3.prefix ? `${s3.prefix}/` : ''}${databaseFolder(config.DATABASE_URL)}`;
  // parseConfig refuses any other URL at start; a configuration built by hand is checked here the same way.
  if (configured && URL_PATTERN.test(configured)) {
    throw new Error(
      `LEDGER_ARCHIVE_DIR must be a local folder or an s3://bucket[/prefix] URL (for another object store, mount the bucket and give its folder) (got "${configured}")`,
    );
  }
  const root = configured ? configured : join(config.DATA_DIR, 'archive');
  return join(resolve(root), databaseFolder(config.DATABASE_URL));
}

/** The store of an installation's archive (ledgerArchiveDirectory's location): its folder, or its S3 prefix. */
export function ledgerArchiveStore(config: ArchiveConfig): ArchiveStore {
  const location = ledgerArchiveDirectory(config);
  const s3 = parseS3Url(location);
  if (!s3) return new LocalArchiveStore(location);
  const endpoint = config.LEDGER_ARCHIVE_S3_ENDPOINT;
  return new S3ArchiveStore({
    ...s3,
    stagingDir: join(resolve(config.DATA_DIR), 'archive-staging', databaseFolder(config.DATABASE_URL)),
    endpoint,
    region: config.LEDGER_ARCHIVE_S3_REGION ?? 'us-east-1',
    forcePathStyle: config.LEDGER_ARCHIVE_S3_FORCE_PATH_STYLE ?? endpoint !== undefined,
    accessKeyId: config.LEDGER_ARCHIVE_S3_ACCESS_KEY_ID,
    secretAccessKey: config.LEDGER_ARCHIVE_S3_SECRET_ACCESS_KEY,
  });
}

interface SegmentLine {
  position: number;
  streamId: string;
  revision: number;
  id: string;
  type: string;
  data: Record<string, unknown>;
  metadata: RecordedEvent['metadata'];
  createdAt: string;
}

/** A segment line as the event the store's readers return (the same shape a row of `events` gives). */
export function eventOfLine(line: string): RecordedEvent {
  const parsed = JSON.parse(line) as SegmentLine;
  return {
    id: parsed.id,
    streamId: parsed.streamId,
    revision: parsed.revision,
    position: parsed.position,
    type: parsed.type,
    data: parsed.data,
    metadata: parsed.metadata,
    createdAt: new Date(parsed.createdAt),
  };
}

/** The position of a line without parsing the rest of it (lines start with `{"position":N,`). */
export function positionOfLine(line: string): number {
  const comma = line.indexOf(',');
  if (!line.startsWith('{"position":') || comma < 0) throw new Error(`not a ledger segment line: ${line.slice(0, 60)}`);
  return Number(line.slice(12, comma));
}

/** The lines of a gzip NDJSON file of the archive, streamed (a month of events is never held in memory at once). */
export async function* segmentLines(location: ArchiveLocation, file: string): AsyncGenerator<string> {
  const input = await archiveStoreOf(location).openRead(file);
  const gunzip = createGunzip();
  // A read that fails midway (a network error from an object store, a disk error) fails the lines, not a hang.
  input.once('error', (error) => gunzip.destroy(error));
  const lines = createInterface({ input: input.pipe(gunzip), crlfDelay: Infinity });
  try {
    for await (const line of lines) if (line) yield line;
  } finally {
    lines.close();
    input.destroy();
  }
}

/**
 * A reader of one segment that can go on where it stopped: `readAll` pages through a segment 500 events at a time,
 * and reopening the file for each page would read it quadratically.
 */
export class SegmentCursor {
  private readonly lines: AsyncGenerator<string>;
  /** The next position this cursor will return. */
  next: number;

  constructor(
    readonly segment: SegmentRow,
    store: ArchiveLocation,
  ) {
    this.lines = segmentLines(store, segment.file);
    this.next = segment.firstPosition;
  }

  /** Events with positions > after, at most `maxCount`, in order; stops at the segment's end. */
  async read(after: number, maxCount: number): Promise<RecordedEvent[]> {
    const events: RecordedEvent[] = [];
    while (events.length < maxCount && this.next <= this.segment.lastPosition) {
      const { value, done } = await this.lines.next();
      if (done) throw new Error(`ledger segment ${this.segment.file} ends before position ${this.segment.lastPosition}`);
      const position = positionOfLine(value);
      if (position !== this.next) {
        throw new Error(`ledger segment ${this.segment.file}: position ${position} where ${this.next} was expected`);
      }
      this.next = position + 1;
      if (position > after) events.push(eventOfLine(value));
    }
    return events;
  }

  get done(): boolean {
    return this.next > this.segment.lastPosition;
  }

  async close(): Promise<void> {
    await this.lines.return(undefined);
  }
}
