import { randomUUID } from 'node:crypto';
import { newEvent, systemActor } from '../../ledger/event-envelope';
import { type AppendRequest, WrongExpectedRevisionError } from '../../ledger/event-store.port';
import { InMemoryEventStore } from '../../ledger/in-memory/in-memory-event-store';
import { parseConfig } from '../../config/app-config';
import { GroupCommitAppender, groupCommitOptions, JOURNAL_LINGER_MS } from './group-commit';

const optionsFor = (env: Record<string, string>, defaults?: { lingerMs?: number }) => groupCommitOptions(parseConfig(env), defaults);

const event = (id: string = randomUUID()) =>
  newEvent('Charged', { id }, { id, metadata: { correlationId: 'c', reasonCode: 'test', actor: systemActor() } });

const request = (streamId: string, id?: string, expectedRevision?: AppendRequest['expectedRevision']): AppendRequest => ({
  streamId,
  events: [event(id)],
  expectedRevision,
});

/** An in-memory store whose batches take `ms` to commit, as a busy ledger's do. */
function slowStore(ms: number): InMemoryEventStore {
  const store = new InMemoryEventStore();
  const appendMany = store.appendMany.bind(store);
  store.appendMany = (requests, options) => new Promise((resolve) => setTimeout(resolve, ms)).then(() => appendMany(requests, options));
  return store;
}

describe('GroupCommitAppender', () => {
  it('appends relay charges with durability async unless RELAY_CHARGE_SYNC_COMMIT=on', async () => {
    expect(optionsFor({}).durability).toBe('async');
    expect(optionsFor({ RELAY_CHARGE_SYNC_COMMIT: 'off' }).durability).toBe('async');
    expect(optionsFor({ RELAY_CHARGE_SYNC_COMMIT: 'on' }).durability).toBe('sync');
    expect(optionsFor({ RELAY_CHARGE_SYNC_COMMIT: 'on' })).toMatchObject({ maxBatch: 64, durability: 'sync' });
    const store = new InMemoryEventStore();
    const many = jest.spyOn(store, 'appendMany');
    const one = jest.spyOn(store, 'appendToStream');
    const asyncAppender = new GroupCommitAppender(store, optionsFor({}));
    await Promise.all([asyncAppender.append(request('d-1')), asyncAppender.append(request('d-2'))]);
    expect(many.mock.calls[0][1]).toEqual({ durability: 'async' });
    await asyncAppender.append(request('d-3'));
    expect(one.mock.calls.at(-1)?.[2]).toEqual({ expectedRevision: 'any', durability: 'async' });
    const strict = new GroupCommitAppender(store, optionsFor({ RELAY_CHARGE_SYNC_COMMIT: 'on' }));
    await Promise.all([strict.append(request('d-4')), strict.append(request('d-5'))]);
    expect(many.mock.calls.at(-1)?.[1]).toEqual({ durability: 'sync' });
  });

  it('sends concurrent appends together, bounded by maxBatch, each caller getting its own result', async () => {
    const store = new InMemoryEventStore();
    const many = jest.spyOn(store, 'appendMany');
    const appender = new GroupCommitAppender(store, { maxBatch: 4, maxInFlight: 1, lingerMs: 0 });
    const results = await Promise.all(Array.from({ length: 10 }, (_, index) => appender.append(request(`s-${index % 3}`))));
    expect(new Set(results.map((result) => result.position)).size).toBe(10);
    expect(many.mock.calls.every(([batch]) => batch.length <= 4)).toBe(true);
    expect(appender.stats()).toMatchObject({ appends: 10, largestBatch: 4 });
    expect(appender.stats().batches).toBeLessThan(10);
    expect(await store.headPosition()).toBe(10);
  });

  it('submit calls exactly one callback per append, and a callback that throws keeps no other caller of the batch from its own', async () => {
    const store = new InMemoryEventStore();
    await store.appendToStream('taken', [event()]);
    const broken: unknown[] = [];
    const appender = new GroupCommitAppender(store, { maxBatch: 8, maxInFlight: 1, lingerMs: 0 }, (error) => broken.push(error));
    const calls: string[] = [];
    await new Promise<void>((done) => {
      let left = 3;
      const settled = (label: string) => {
        calls.push(label);
        if (--left === 0) done();
      };
      appender.submit(
        request('cb-1'),
        () => {
          settled('first ok');
          throw new Error('a broken callback');
        },
        () => settled('first failed'),
      );
      appender.submit(
        request('taken', undefined, 'no_stream'),
        () => settled('conflict ok'),
        (error) => settled(error instanceof WrongExpectedRevisionError ? 'conflict refused' : 'conflict other'),
      );
      appender.submit(
        request('cb-2'),
        (result) => settled(`last ok at ${result.position}`),
        () => settled('last failed'),
      );
    });
    expect(calls).toEqual(['first ok', 'conflict refused', 'last ok at 3']);
    expect(broken).toEqual([new Error('a broken callback')]);
    expect(appender.stats()).toMatchObject({ appends: 3, batches: 1 });
  });

  it('fails only the conflicting caller of a batch', async () => {
    const store = new InMemoryEventStore();
    await store.appendToStream('taken', [event()]);
    const appender = new GroupCommitAppender(store, { maxBatch: 8, maxInFlight: 1, lingerMs: 0 });
    const outcomes = await Promise.allSettled([
      appender.append(request('free')),
      appender.append(request('taken', undefined, 'no_stream')),
      appender.append(request('free')),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
  });

  it('retries each append alone when a whole batch fails, so an append already stored stays stored once', async () => {
    const store = new InMemoryEventStore();
    const id = randomUUID();
    // The batch committed but its answer was lost: appendMany writes, then throws.
    jest.spyOn(store, 'appendMany').mockImplementationOnce(async (requests) => {
      for (const pending of requests) await store.appendToStream(pending.streamId, pending.events);
      throw new Error('connection reset');
    });
    const appender = new GroupCommitAppender(store, { maxBatch: 8, maxInFlight: 1, lingerMs: 0 });
    const [a, b] = await Promise.all([appender.append(request('x', id)), appender.append(request('y'))]);
    expect(await store.headPosition()).toBe(2);
    expect((await store.readStream('x')).map((stored) => stored.id)).toEqual([id]);
    expect([a.position, b.position].sort()).toEqual([1, 2]);
  });

  it('takes the journal linger as the default linger, which SETTLEMENT_LINGER_MS still overrides', () => {
    expect(optionsFor({}).lingerMs).toBe(0);
    expect(optionsFor({}, { lingerMs: JOURNAL_LINGER_MS })).toMatchObject({ lingerMs: JOURNAL_LINGER_MS, maxBatch: 64, maxInFlight: 2 });
    expect(optionsFor({ SETTLEMENT_LINGER_MS: '0' }, { lingerMs: JOURNAL_LINGER_MS }).lingerMs).toBe(0);
    expect(optionsFor({ SETTLEMENT_LINGER_MS: '25' }, { lingerMs: JOURNAL_LINGER_MS }).lingerMs).toBe(25);
  });

  it('sends a full batch at once, without waiting out the linger', async () => {
    const store = new InMemoryEventStore();
    const appender = new GroupCommitAppender(store, { maxBatch: 4, maxInFlight: 1, lingerMs: 60_000 });
    await Promise.all(Array.from({ length: 4 }, (_, index) => appender.append(request(`full-${index}`))));
    expect(appender.stats()).toMatchObject({ appends: 4, batches: 1, largestBatch: 4 });
  });

  it('waits lingerMs before sending when configured, and maxBatch 1 is one append per call', async () => {
    const store = new InMemoryEventStore();
    const lingering = new GroupCommitAppender(store, { maxBatch: 8, maxInFlight: 1, lingerMs: 30 });
    const started = Date.now();
    await Promise.all([lingering.append(request('l')), lingering.append(request('l'))]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    expect(lingering.stats()).toMatchObject({ appends: 2, batches: 1 });

    const single = new GroupCommitAppender(store, { maxBatch: 1, maxInFlight: 1, lingerMs: 0 });
    await Promise.all([single.append(request('o')), single.append(request('o'))]);
    expect(single.stats()).toMatchObject({ appends: 2, batches: 2, largestBatch: 1 });
  });

  it('under load, appends that arrive while a batch is out wait out their own linger instead of leaving when it returns', async () => {
    const appender = new GroupCommitAppender(slowStore(20), { maxBatch: 64, maxInFlight: 1, lingerMs: 60 });
    const first = Promise.all([appender.append(request('a')), appender.append(request('a'))]);
    await new Promise((resolve) => setTimeout(resolve, 70)); // the first batch has left and is out
    const sentAt = Date.now();
    const second = Promise.all([appender.append(request('b')), appender.append(request('b'))]);
    await first;
    expect(appender.stats()).toMatchObject({ appends: 2, batches: 1 }); // the first batch came back; these stayed
    await new Promise((resolve) => setTimeout(resolve, 10));
    const third = appender.append(request('b'));
    await Promise.all([second, third]);
    // One batch for the three, sent a linger after the first of them (not when the first batch returned, ~10 ms in).
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(55);
    expect(appender.stats()).toMatchObject({ appends: 5, batches: 2, largestBatch: 3 });
  });

  it('sends appends that found no free slot as soon as a batch returns, having waited their linger already', async () => {
    // A linger of 60 ms and a store of 100 ms: the bound below sits between the store's time (100) and the store's
    // time plus a second linger (160), with room on both sides for a loaded machine's timers.
    const appender = new GroupCommitAppender(slowStore(100), { maxBatch: 64, maxInFlight: 1, lingerMs: 60 });
    const first = Promise.all([appender.append(request('c')), appender.append(request('c'))]);
    await new Promise((resolve) => setTimeout(resolve, 65)); // out (at 60 ms), for 100 ms
    const late = Promise.all([appender.append(request('d')), appender.append(request('d'))]);
    await first; // their linger (to ~125 ms) ran out while the only slot was taken (to ~160 ms)
    const returned = Date.now();
    await late;
    expect(Date.now() - returned).toBeLessThan(140); // the store's 100 ms, no second linger on top (160)
    expect(Date.now() - returned).toBeGreaterThanOrEqual(95);
    expect(appender.stats()).toMatchObject({ appends: 4, batches: 2, largestBatch: 2 });
  });
});
