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
  EventIdConflictError,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type RecordedEvent,
  type Subscription,
  WrongExpectedRevisionError,
} from '../event-store.port';
import { PullSubscription } from '../pull-subscription';
import { LedgerListener } from './ledger-listener';

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

const COLUMNS = 'position, stream_id, revision, event_id, type, data, metadata, created_at';

/**
 * The append statements. `'async'` adds `set_config('synchronous_commit', 'off', true)` (SET LOCAL) to the same
 * statement, i.e. to its implicit transaction only: the commit does not wait for the WAL flush, the pooled
 * connection keeps `synchronous_commit = on` for whatever runs on it next.
 */
export function appendStatement(kind: 'one' | 'many', durability: AppendDurability = 'sync'): string {
  const call = kind === 'one' ? 'ledger_append($1, $2, $3::jsonb)' : 'ledger_append_many($1::jsonb)';
  return durability === 'async'
    ? `SELECT appended.* FROM set_config('synchronous_commit', 'off', true) AS local_setting, ${call} AS appended`
    : `SELECT * FROM ${call}`;
}

/**
 * The embedded event store: the `events` table (migration 1732300000100) in the application's database. All
 * writes go through the `ledger_append` SQL function, which orders positions by commit (see that migration and
 * docs/ledger.md), deduplicates by event id and checks the expected revision in one round trip.
 */
export class PostgresEventStore implements EventStore {
  private readonly pool: Pool;
  private readonly listener: LedgerListener | null;
  private readonly subscriptions = new Set<PullSubscription>();
  private readonly readBatchSize: number;
  private readonly pollIntervalMs: number;

  constructor(options: PostgresEventStoreOptions) {
    const poolConfig: PoolConfig = { connectionString: options.connectionString, max: options.poolSize ?? 10 };
    this.pool = new Pool(poolConfig);
    // An idle client's error (server restart) must not crash the process; the next query reconnects.
    this.pool.on('error', () => undefined);
    this.listener = options.listen === false ? null : new LedgerListener(options.connectionString);
    this.readBatchSize = options.readBatchSize ?? 500;
    this.pollIntervalMs = options.pollIntervalMs ?? 2000;
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
    const { rows } = await this.pool.query<EventRow>(
      `SELECT ${COLUMNS} FROM events WHERE stream_id = $1 AND revision >= $2 ORDER BY revision LIMIT $3`,
      [streamId, options.fromRevision ?? 0, options.maxCount ?? null],
    );
    return rows.map(toRecordedEvent);
  }

  async readAll(options: { after?: number; maxCount?: number } = {}): Promise<RecordedEvent[]> {
    // Safe because positions become visible in order (ledger_append's lock): nothing can appear below `after` later.
    const { rows } = await this.pool.query<EventRow>(
      batchStatement(`SELECT ${COLUMNS} FROM events WHERE position > $1 ORDER BY position LIMIT $2`, [
        options.after ?? 0,
        options.maxCount ?? null,
      ]),
    );
    return rows.map(toRecordedEvent);
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
    const { rows } = await this.pool.query<{ head: string }>('SELECT coalesce(max(position), 0) AS head FROM events');
    return Number(rows[0].head);
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((subscription) => subscription.close()));
    this.subscriptions.clear();
    await this.listener?.close();
    await this.pool.end().catch(() => undefined);
  }
}

interface AppendRow {
  outcome: string;
  stream_revision: string | null;
  last_position: string | null;
  conflicting_ids: string[] | null;
}

/** One outcome row of ledger_append / ledger_append_many as the port's result or error. */
function toOutcome(streamId: string, expected: ExpectedRevision, row: AppendRow): AppendOutcome {
  switch (row.outcome) {
    case 'ok':
    case 'duplicate':
      return { ok: true, result: { nextExpectedRevision: Number(row.stream_revision), position: Number(row.last_position ?? 0) } };
    case 'wrong_expected_revision':
      return {
        ok: false,
        error: new WrongExpectedRevisionError(streamId, expected, row.stream_revision === null ? 'no_stream' : Number(row.stream_revision)),
      };
    case 'partial_duplicate':
    case 'id_in_other_stream':
      return { ok: false, error: new EventIdConflictError(streamId, row.conflicting_ids ?? [], row.outcome) };
    default:
      return { ok: false, error: new Error(`ledger_append returned an unknown outcome "${row.outcome}"`) };
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
