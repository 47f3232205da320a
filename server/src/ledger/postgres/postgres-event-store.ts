import { Pool, type PoolConfig } from 'pg';
import { batchStatement } from '../../infrastructure/database/named-statements';
import { validateAppend } from '../append-validation';
import { eventJson } from '../event-json';
import {
  type AppendDurability,
  type AppendOptions,
  type AppendOutcome,
  type AppendRequest,
  type AppendResult,
  type EventStore,
  type NewEvent,
  type RecordedEvent,
  type Subscription,
} from '../event-store.port';
import { PullSubscription } from '../pull-subscription';
import { type AppendRow, appendStatement, toOutcome } from './append-statements';
import { type ArchiveLocation, type ArchiveStore, archiveStoreOf } from '../archive/archive-store';
import { SegmentCursor, type SegmentRow, segmentLines, eventOfLine } from './archive-segments';
import { decodeEventRows, eventPageCopy } from './binary-event-copy';
import { CopyPageWorker } from './copy-page-worker';
import { LedgerListener } from './ledger-listener';

export { appendStatement } from './append-statements';

export interface PostgresEventStoreOptions {
  connectionString: string;
  /** Connections of the store's own pool (appends, reads, subscriptions' pages). */
  poolSize?: number;
  /** Events per page when subscriptions catch up. */
  readBatchSize?: number;
  /** Fallback poll of idle subscriptions; NOTIFY wakes them sooner. */
  pollIntervalMs?: number;
  /** LISTEN for new events (default true); without it subscriptions only poll. */
  listen?: boolean;
  /**
   * This installation's archive (ledgerArchiveStore: a folder, or an S3 prefix): where reads find the events
   * `ledger:archive` moved out of the table. Unset: a read that needs archived events fails with a clear error.
   */
  archiveDir?: ArchiveLocation;
}

interface EventRow {
  position: string;
  stream_id: string;
  revision: string;
  event_id: string;
  type: string;
  data: Record<string, unknown>;
  metadata: RecordedEvent['metadata'];
  created_at: Date;
}

/** Most archived events kept in memory for readStream, over all streams. */
const ARCHIVED_STREAM_CACHE_EVENTS = 50_000;

const COLUMNS = 'position, stream_id, revision, event_id, type, data, metadata, created_at';

/**
 * The embedded event store, the `events` table: every write is one `ledger_append` or `ledger_append_many` statement,
 * one transaction that orders positions by commit, deduplicates by event id and checks the revision (docs/ledger.md).
 */
export class PostgresEventStore implements EventStore {
  readonly atomicAppendMany: boolean = true;
  private readonly pool: Pool;
  private readonly listener: LedgerListener | null;
  private readonly subscriptions = new Set<PullSubscription>();
  private readonly readBatchSize: number;
  private readonly pollIntervalMs: number;
  private readonly archive: ArchiveStore | null;
  /** Open segment readers keyed by the next position each returns (pages of one replay go on where they stopped). */
  private readonly cursors = new Map<number, SegmentCursor>();
  /** Archived events per stream (never change once archived); see archivedEventsOf. */
  private readonly archivedStreams = new Map<string, { lastRevision: number; events: RecordedEvent[] }>();
  private archivedStreamEvents = 0;
  private readonly connectionString: string;
  /** readAllInBulk's reader, started by its first page. */
  private pageReader: CopyPageWorker | null = null;
  private closed = false;

  constructor(options: PostgresEventStoreOptions) {
    this.connectionString = options.connectionString;
    const poolConfig: PoolConfig = { connectionString: options.connectionString, max: options.poolSize ?? 10 };
    this.pool = new Pool(poolConfig);
    // An idle client's error (server restart) must not crash the process; the next query reconnects.
    this.pool.on('error', () => undefined);
    this.listener = options.listen === false ? null : new LedgerListener(options.connectionString);
    this.readBatchSize = options.readBatchSize ?? 500;
    this.pollIntervalMs = options.pollIntervalMs ?? 2000;
    this.archive = options.archiveDir === undefined ? null : archiveStoreOf(options.archiveDir);
  }

  /** Opens the store and checks the schema is there, so a missing migration fails at boot with a clear message. */
  static async connect(options: PostgresEventStoreOptions): Promise<PostgresEventStore> {
    const store = new PostgresEventStore(options);
    try {
      const { rows } = await store.pool.query<{ ok: boolean }>(
        `SELECT to_regprocedure('ledger_append(text,text,jsonb)') IS NOT NULL AS ok`,
      );
      if (!rows[0]?.ok) throw new Error('the ledger schema is missing: run migrations (npm run migrate)');
    } catch (error) {
      await store.close();
      throw error;
    }
    return store;
  }

  async appendToStream(streamId: string, events: NewEvent[], options: AppendOptions = {}): Promise<AppendResult> {
    const expected = options.expectedRevision ?? 'any';
    validateAppend(streamId, events, expected);
    // Group commit is appendMany (ledger_append_many); the relay's settlement batches its charges through it.
    const payload = `[${events.map(eventJson).join(',')}]`;
    const { rows } = await this.pool.query<AppendRow>(
      batchStatement(appendStatement('one', options.durability), [streamId, String(expected), payload]),
    );
    const outcome = toOutcome(streamId, expected, rows[0]);
    if (!outcome.ok) throw outcome.error;
    return outcome.result;
  }

  /**
   * Group commit: every request in one `ledger_append_many` statement (one transaction, one lock, one NOTIFY),
   * each with its own outcome. Requests that fail validation are answered without reaching the database.
   */
  async appendMany(requests: AppendRequest[], options: { durability?: AppendDurability } = {}): Promise<AppendOutcome[]> {
    const outcomes: Array<AppendOutcome | undefined> = new Array(requests.length);
    const sent: number[] = [];
    // The batch as JSON, built from each event's JSON (eventJson: a relay charge was serialised for its journal line).
    const batch: string[] = [];
    requests.forEach((request, index) => {
      const expected = request.expectedRevision ?? 'any';
      try {
        validateAppend(request.streamId, request.events, expected);
      } catch (error) {
        outcomes[index] = { ok: false, error: error as Error };
        return;
      }
      sent.push(index);
      batch.push(
        `{"stream":${JSON.stringify(request.streamId)},"expected":${JSON.stringify(String(expected))},"events":[${request.events.map(eventJson).join(',')}]}`,
      );
    });
    if (batch.length > 0) {
      const { rows } = await this.pool.query<AppendRow & { ordinal: string }>(
        batchStatement(appendStatement('many', options.durability), [`[${batch.join(',')}]`]),
      );
      if (rows.length !== batch.length)
        throw new Error(`ledger_append_many answered ${rows.length} outcome(s) for ${batch.length} append(s)`);
      for (const row of rows) {
        const index = sent[Number(row.ordinal) - 1];
        const request = requests[index];
        outcomes[index] = toOutcome(request.streamId, request.expectedRevision ?? 'any', row);
      }
    }
    return outcomes as AppendOutcome[];
  }

  async readStream(streamId: string, options: { fromRevision?: number; maxCount?: number } = {}): Promise<RecordedEvent[]> {
    const from = options.fromRevision ?? 0;
    const { rows } = await this.pool.query<EventRow>(
      `SELECT ${COLUMNS} FROM events WHERE stream_id = $1 AND revision >= $2 ORDER BY revision LIMIT $3`,
      [streamId, from, options.maxCount ?? null],
    );
    const hot = rows.map(toRecordedEvent);
    // The stream's first wanted revision is in the table: nothing of it can be archived (archival goes by position).
    if (hot.length > 0 && hot[0].revision === from) return hot;
    return this.withArchivedStream(streamId, from, hot, options.maxCount);
  }

  /**
   * The archived part of a stream (read from the segments `ledger_archived_streams` names for it) before its hot
   * part. Read after the hot rows: an archival committing in between only moves events from one side to the other,
   * and both sides are merged by revision.
   */
  private async withArchivedStream(streamId: string, from: number, hot: RecordedEvent[], maxCount?: number): Promise<RecordedEvent[]> {
    const { rows } = await this.pool.query<{ last_revision: string; files: string[] }>(
      `SELECT a.last_revision, array_agg(s.file ORDER BY s.id) AS files
         FROM ledger_archived_streams a JOIN ledger_archive_segments s ON s.id = ANY (a.segments)
        WHERE a.stream_id = $1 GROUP BY a.last_revision`,
      [streamId],
    );
    if (rows.length === 0 || Number(rows[0].last_revision) < from) return hot;
    const archived = await this.archivedEventsOf(streamId, Number(rows[0].last_revision), rows[0].files);
    const byRevision = new Map<number, RecordedEvent>();
    for (const event of archived) if (event.revision >= from) byRevision.set(event.revision, event);
    for (const event of hot) byRevision.set(event.revision, event);
    const merged = [...byRevision.values()].sort((a, b) => a.revision - b.revision);
    return maxCount === undefined ? merged : merged.slice(0, maxCount);
  }

  /**
   * Every archived event of a stream. Archived events never change, so they are kept in memory (up to
   * ARCHIVED_STREAM_CACHE_EVENTS events over all streams, least recently used out first) while the stream's last
   * archived revision is the same: a command on an account or a channel with archived history scans its segments
   * once per process, not on every load.
   */
  private async archivedEventsOf(streamId: string, lastRevision: number, files: string[]): Promise<RecordedEvent[]> {
    const cached = this.archivedStreams.get(streamId);
    if (cached && cached.lastRevision === lastRevision) {
      this.archivedStreams.delete(streamId);
      this.archivedStreams.set(streamId, cached);
      return cached.events;
    }
    const archive = this.requireArchive();
    const events: RecordedEvent[] = [];
    const marker = `"streamId":${JSON.stringify(streamId)},`;
    for (const file of files) {
      for await (const line of segmentLines(archive, file)) {
        // Cheap filter before the parse: the stream id is the second field of every line.
        if (!line.includes(marker)) continue;
        const event = eventOfLine(line);
        if (event.streamId === streamId) events.push(event);
      }
    }
    events.sort((a, b) => a.revision - b.revision);
    if (cached) this.forgetArchivedStream(streamId);
    if (events.length <= ARCHIVED_STREAM_CACHE_EVENTS) {
      this.archivedStreams.set(streamId, { lastRevision, events });
      this.archivedStreamEvents += events.length;
      for (const [oldest] of this.archivedStreams) {
        if (this.archivedStreamEvents <= ARCHIVED_STREAM_CACHE_EVENTS) break;
        this.forgetArchivedStream(oldest);
      }
    }
    return events;
  }

  private forgetArchivedStream(streamId: string): void {
    const entry = this.archivedStreams.get(streamId);
    if (!entry) return;
    this.archivedStreams.delete(streamId);
    this.archivedStreamEvents -= entry.events.length;
  }

  async readAll(options: { after?: number; maxCount?: number } = {}): Promise<RecordedEvent[]> {
    return this.readAllWith(options.after ?? 0, options.maxCount, (after, maxCount) => this.selectPage(after, maxCount));
  }

  /**
   * readAll for a replay that reads the whole ledger in big pages (the rebuild): the same events, archived ones
   * included, with the table's pages read by COPY in binary and decoded here (binary-event-copy.ts) instead of a
   * SELECT parsed row by row by pg.
   */
  async readAllInBulk(options: { after?: number; maxCount: number }): Promise<RecordedEvent[]> {
    return this.readAllWith(options.after ?? 0, options.maxCount, async (after, maxCount) => {
      // Read on a worker thread (copy-page-worker.ts), decoded here; a reader whose thread ended is replaced.
      if (this.closed) throw new Error('the event store is closed');
      if (!this.pageReader?.running) this.pageReader = new CopyPageWorker(this.connectionString);
      return decodeEventRows(await this.pageReader.copy(eventPageCopy(after, maxCount ?? Number.MAX_SAFE_INTEGER)));
    });
  }

  private async selectPage(after: number, maxCount: number | undefined): Promise<RecordedEvent[]> {
    const { rows } = await this.pool.query<EventRow>(
      batchStatement(`SELECT ${COLUMNS} FROM events WHERE position > $1 ORDER BY position LIMIT $2`, [after, maxCount ?? null]),
    );
    return rows.map(toRecordedEvent);
  }

  /** Events after `after` (at most `maxCount`): the table's through `readTable`, archived ones from their segments. */
  private async readAllWith(
    after: number,
    maxCount: number | undefined,
    readTable: (after: number, maxCount: number | undefined) => Promise<RecordedEvent[]>,
  ): Promise<RecordedEvent[]> {
    // Safe because positions become visible in order (ledger_append's lock): nothing can appear below `after` later.
    const hot = await readTable(after, maxCount);
    // Positions are gapless: a first event right after `after` means nothing between is archived (the common case,
    // at no extra cost). Otherwise the archived boundary says whether the segments hold what comes next.
    if (hot.length > 0 && hot[0].position === after + 1) return hot;
    const boundary = await this.archivedBoundary();
    if (after >= boundary) return hot;
    const archived = await this.readArchived(after, maxCount ?? Number.MAX_SAFE_INTEGER);
    const remaining = maxCount === undefined ? undefined : maxCount - archived.length;
    if (remaining === 0 || archived.length === 0) return archived;
    return archived.concat(await this.readAllWith(archived[archived.length - 1].position, remaining, readTable));
  }

  /** The highest archived position (0: nothing archived). */
  async archivedBoundary(): Promise<number> {
    const { rows } = await this.pool.query<{ boundary: string }>(
      'SELECT coalesce(max(last_position), 0) AS boundary FROM ledger_archive_segments',
    );
    return Number(rows[0].boundary);
  }

  /** Archived events after `after` from the segment holding `after + 1`, at most `maxCount`, up to that segment's end. */
  private async readArchived(after: number, maxCount: number): Promise<RecordedEvent[]> {
    let cursor = this.cursors.get(after + 1);
    this.cursors.delete(after + 1);
    if (!cursor) {
      const { rows } = await this.pool.query<{
        id: number;
        file: string;
        month: string;
        first: string;
        last: string;
        count: string;
        bytes: string;
        sha256: string;
      }>(
        `SELECT id, file, month, first_position AS first, last_position AS last, event_count AS count, bytes, sha256
           FROM ledger_archive_segments WHERE first_position <= $1 AND last_position >= $1`,
        [after + 1],
      );
      if (rows.length === 0) throw new Error(`ledger: position ${after + 1} is archived but no segment holds it`);
      const row = rows[0];
      const segment: SegmentRow = {
        id: row.id,
        file: row.file,
        month: row.month,
        firstPosition: Number(row.first),
        lastPosition: Number(row.last),
        count: Number(row.count),
        bytes: Number(row.bytes),
        sha256: row.sha256,
      };
      cursor = new SegmentCursor(segment, this.requireArchive());
    }
    try {
      const events = await cursor.read(after, maxCount);
      if (cursor.done) await cursor.close();
      else this.keepCursor(cursor);
      return events;
    } catch (error) {
      await cursor.close().catch(() => undefined);
      throw error;
    }
  }

  private keepCursor(cursor: SegmentCursor): void {
    this.cursors.set(cursor.next, cursor);
    if (this.cursors.size <= 4) return;
    const [oldest, evicted] = this.cursors.entries().next().value as [number, SegmentCursor];
    this.cursors.delete(oldest);
    void evicted.close().catch(() => undefined);
  }

  private requireArchive(): ArchiveStore {
    if (!this.archive)
      throw new Error('ledger: the events asked for are archived, and this store has no archive folder (LEDGER_ARCHIVE_DIR)');
    return this.archive;
  }

  subscribeToAll(
    options: { after?: number },
    handler: (event: RecordedEvent) => Promise<void>,
    onError: (error: unknown) => void = () => undefined,
  ): Subscription {
    const listener = this.listener;
    const subscription = new PullSubscription(
      (after, maxCount) => this.readAll({ after, maxCount }),
      listener ? (wake) => listener.subscribe(wake) : () => () => undefined,
      handler,
      onError,
      { after: options.after ?? 0, batchSize: this.readBatchSize, pollIntervalMs: this.pollIntervalMs },
    );
    this.subscriptions.add(subscription);
    return {
      close: async () => {
        this.subscriptions.delete(subscription);
        await subscription.close();
      },
    };
  }

  async headPosition(): Promise<number> {
    const { rows } = await this.pool.query<{ head: string }>(
      'SELECT coalesce((SELECT max(position) FROM events), (SELECT max(last_position) FROM ledger_archive_segments), 0) AS head',
    );
    return Number(rows[0].head);
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.subscriptions].map((subscription) => subscription.close()));
    this.subscriptions.clear();
    for (const cursor of this.cursors.values()) await cursor.close().catch(() => undefined);
    this.cursors.clear();
    await this.listener?.close();
    await this.pageReader?.close();
    this.archive?.close();
    await this.pool.end().catch(() => undefined);
  }
}

function toRecordedEvent(row: EventRow): RecordedEvent {
  return {
    id: row.event_id,
    streamId: row.stream_id,
    revision: Number(row.revision),
    position: Number(row.position),
    type: row.type,
    data: row.data,
    metadata: row.metadata,
    createdAt: row.created_at,
  };
}
