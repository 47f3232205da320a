import { randomUUID } from 'node:crypto';
import { Client, type Notification } from 'pg';
import type { QueryRunner } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '#test/support/database';
import { LedgerAppendMany1732300005000 } from '../../infrastructure/database/migrations/1732300005000-ledger-append-many';

/**
 * `ledger_append_many` (migration 1732300005100: set-based when every request expects 'any') against the per-request
 * loop it replaced (migration 1732300005000, installed here under another name as the oracle). Random batches,
 * each run by both on the same database state: the oracle in a transaction that is rolled back, then the new
 * function, committed. Outcomes, rows written (positions, revisions, ids, payloads) and errors must be identical,
 * and the batches the fast path should take (an independent model below) must be the ones it takes.
 */

interface WireEvent {
  id?: string;
  type?: string;
  data?: unknown;
  metadata?: unknown;
}
interface WireRequest {
  stream: string;
  expected: string;
  events: WireEvent[];
}
interface OutcomeRow {
  ordinal: string;
  outcome: string;
  stream_revision: string | null;
  last_position: string | null;
  conflicting_ids: string[] | null;
}
type Run = { ok: true; outcomes: OutcomeRow[]; written: unknown[] } | { ok: false; code: string };

/** Small seeded PRNG (mulberry32), so a failing run can be replayed from the seed it prints. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The fast-path condition, written independently of the SQL: at least four requests; every request expects 'any',
 * names a stream, has events, all with ids, no id twice; and requests that share an id have the same set of ids.
 */
function qualifiesForSetBasedPath(batch: WireRequest[]): boolean {
  if (batch.length < 4) return false;
  const sets = batch.map((request) => request.events.map((event) => event.id?.toLowerCase()));
  for (const [index, request] of batch.entries()) {
    const ids = sets[index];
    if (request.expected !== 'any' || typeof request.stream !== 'string' || ids.length === 0) return false;
    if (ids.some((id) => id === undefined) || new Set(ids).size !== ids.length) return false;
  }
  const key = (ids: Array<string | undefined>) => [...ids].sort().join(',');
  for (let a = 0; a < batch.length; a++) {
    for (let b = a + 1; b < batch.length; b++) {
      const shared = sets[a].some((id) => sets[b].includes(id));
      if (shared && key(sets[a]) !== key(sets[b])) return false;
    }
  }
  return true;
}

describe('ledger_append_many: set-based fast path against the per-request loop (real Postgres)', () => {
  let database: TestDatabase;
  let client: Client;
  const notices: string[] = [];
  const notifications: Notification[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    client = new Client({ connectionString: database.url });
    await client.connect();
    // The previous version, verbatim, under another name: what the new function must keep answering.
    const statements: string[] = [];
    const recorder = { query: async (sql: string) => void statements.push(sql) } as unknown as QueryRunner;
    await new LedgerAppendMany1732300005000().up(recorder);
    expect(statements).toHaveLength(1);
    await client.query(statements[0].replace('CREATE FUNCTION ledger_append_many(', 'CREATE FUNCTION ledger_append_many_reference('));
    client.on('notice', (notice) => notices.push(notice.message ?? ''));
    client.on('notification', (notification) => notifications.push(notification));
    await client.query('SET client_min_messages = debug1');
    await client.query('LISTEN ledger_events');
  });
  afterAll(async () => {
    await client?.end();
    await database?.drop();
  });

  async function run(fn: 'ledger_append_many' | 'ledger_append_many_reference', batch: WireRequest[], commit: boolean): Promise<Run> {
    await client.query('BEGIN');
    try {
      const head = Number((await client.query<{ head: string }>('SELECT coalesce(max(position), 0) AS head FROM events')).rows[0].head);
      const { rows } = await client.query<OutcomeRow>(`SELECT * FROM ${fn}($1::jsonb)`, [JSON.stringify(batch)]);
      const written = (
        await client.query(
          'SELECT position, stream_id, revision, event_id, type, data, metadata FROM events WHERE position > $1 ORDER BY position',
          [head],
        )
      ).rows;
      // Conflicting ids come back in no particular order from either version.
      const outcomes = rows.map((row) => ({ ...row, conflicting_ids: row.conflicting_ids && [...row.conflicting_ids].sort() }));
      await client.query(commit ? 'COMMIT' : 'ROLLBACK');
      return { ok: true, outcomes, written };
    } catch (error) {
      await client.query('ROLLBACK');
      return { ok: false, code: String((error as { code?: unknown }).code) };
    }
  }

  /** Both versions on the same state; the new one's result is committed. Returns what the new one answered. */
  async function compare(batch: WireRequest[]): Promise<{ result: Run; fast: boolean }> {
    const reference = await run('ledger_append_many_reference', batch, false);
    notices.length = 0;
    notifications.length = 0;
    const head = Number((await client.query<{ head: string }>('SELECT coalesce(max(position), 0) AS head FROM events')).rows[0].head);
    const result = await run('ledger_append_many', batch, true);
    expect({ batch, result }).toEqual({ batch, result: reference });
    const fast = notices.some((message) => message === 'ledger_append_many: set-based path');
    expect({ batch, fast }).toEqual({ batch, fast: qualifiesForSetBasedPath(batch) });
    // One notification per committed batch that wrote something, carrying the new head (delivered at commit).
    await new Promise((resolve) => setImmediate(resolve));
    const wrote = result.ok && result.written.length > 0;
    expect(notifications.map((notification) => notification.payload)).toEqual(
      wrote ? [String(head + (result.ok ? result.written.length : 0))] : [],
    );
    return { result, fast };
  }

  const event = (id: string, index: number): WireEvent => ({
    id,
    type: 'SampleRecorded',
    data: { index },
    metadata: { correlationId: `diff-${index}`, reasonCode: 'test', actor: { type: 'system' } },
  });

  it('given a relay-style batch (64 charges, several per account, a retry inside the batch), then the fast path answers as the loop', async () => {
    const head = Number((await client.query<{ head: string }>('SELECT coalesce(max(position), 0) AS head FROM events')).rows[0].head);
    const batch: WireRequest[] = Array.from({ length: 64 }, (_, i) => ({
      stream: `account-${i % 7}`,
      expected: 'any',
      events: [event(randomUUID(), i)],
    }));
    batch[40] = { ...batch[3] }; // the same charge twice: the second is a duplicate of the first
    const { result, fast } = await compare(batch);
    expect(fast).toBe(true);
    if (!result.ok) throw new Error(`failed with ${result.code}`);
    expect(result.written).toHaveLength(63);
    expect(result.written.map((row) => Number((row as { position: string }).position))).toEqual(
      Array.from({ length: 63 }, (_, i) => head + 1 + i),
    );
    expect(result.outcomes[40]).toMatchObject({
      outcome: 'duplicate',
      stream_revision: result.outcomes[3].stream_revision,
      last_position: result.outcomes[3].last_position,
    });
  });

  it('given random batches (stored ids, ids repeated within and across requests, every expectation), then both versions agree', async () => {
    const seed = Number(process.env.LEDGER_DIFF_SEED ?? Date.now() % 1_000_000);
    const random = prng(seed);
    const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)];
    const prefix = `diff-${seed}`;
    const streams = Array.from({ length: 4 }, (_, i) => `${prefix}-s${i}`);
    const stored: string[] = [];
    const storedIds = new Set<string>();
    let index = 0;
    const counts = { batches: 0, fast: 0, fastWithRepeats: 0, fastWithStored: 0, failed: 0 };

    for (let round = 0; round < 400; round++) {
      const batch: WireRequest[] = [];
      const used: string[] = [];
      const size = random() < 0.2 ? 1 + Math.floor(random() * 3) : 4 + Math.floor(random() * 11); // 1-3 take the loop anyway
      const allAny = random() < 0.7;
      for (let r = 0; r < size; r++) {
        const roll = random();
        const expected = allAny || roll < 0.7 ? 'any' : pick(['no_stream', 'stream_exists', '0', '1', '2', '5']);
        const previous = batch.length ? pick(batch) : null;
        if (previous && random() < 0.25) {
          // The same request again (a retry): same ids, sometimes reordered, sometimes to another stream.
          const events = random() < 0.3 ? [...previous.events].reverse() : previous.events;
          batch.push({ stream: random() < 0.8 ? previous.stream : pick(streams), expected, events });
          continue;
        }
        const length = random() < 0.04 ? 0 : random() < 0.75 ? 1 : 2 + Math.floor(random() * 2);
        const events: WireEvent[] = [];
        for (let e = 0; e < length; e++) {
          const source = random();
          const id = source < 0.12 && stored.length ? pick(stored) : source < 0.2 && used.length ? pick(used) : randomUUID();
          if (random() > 0.03 && events.some((existing) => existing.id === id)) continue; // rarely, one id twice in a request
          used.push(id);
          const built = event(random() < 0.1 ? id.toUpperCase() : id, index++);
          if (random() < 0.01) delete built.type; // must fail the same way in both
          if (random() < 0.03) delete built.data;
          events.push(built);
        }
        batch.push({ stream: pick(streams), expected, events });
      }

      const { result, fast } = await compare(batch);
      counts.batches++;
      if (fast) {
        counts.fast++;
        const ids = batch.flatMap((request) => request.events.map((e) => e.id?.toLowerCase()));
        if (new Set(ids).size < ids.length) counts.fastWithRepeats++;
        if (ids.some((id) => id !== undefined && storedIds.has(id))) counts.fastWithStored++;
      }
      if (!result.ok) counts.failed++;
      else {
        for (const row of result.written) {
          stored.push((row as { event_id: string }).event_id);
          storedIds.add((row as { event_id: string }).event_id);
        }
      }
    }
    // The generator must actually exercise the fast path, including in-batch repeats and stored ids.
    console.log(`ledger_append_many differential, seed ${seed} (LEDGER_DIFF_SEED to replay): ${JSON.stringify(counts)}`);
    // (Typical: 110-150 of 400 fast, most of them with repeats and with stored ids; bounds at about half.)
    expect(counts.fast).toBeGreaterThan(60);
    expect(counts.fastWithRepeats).toBeGreaterThan(30);
    expect(counts.fastWithStored).toBeGreaterThan(30);
    expect(counts.batches - counts.fast).toBeGreaterThan(100);
  }, 120_000);
});
