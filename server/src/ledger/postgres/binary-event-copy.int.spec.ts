import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { createTestDatabase, type TestDatabase } from '#test/support/database';
import { newEvent, systemActor, userActor } from '../event-envelope';
import type { EventMetadata } from '../event-store.port';
import { COMPACT_V3, decodeEventRows, eventPageCopy } from './binary-event-copy';
import { PostgresEventStore } from './postgres-event-store';

/** Data that exercises every encoding the decoder meets: escapes, non-ASCII text, nested JSON, big and odd numbers. */
const awkward = (index: number) => ({
  index,
  text: `line ${index}\nnext\ttab \\ back "quoted" ümlaut 模型测试 🚀`,
  v2: JSON.stringify([0, 1, 'a\\"b', [1, 2], null, 1.5e-7, -0]),
  nested: { list: [1, { deep: true }, null], empty: {}, unicode: '\u00e9\u2028' },
  big: 9007199254740991,
  float: 0.1 + 0.2,
});

describe('readAllInBulk (COPY in binary)', () => {
  let database: TestDatabase;
  let store: PostgresEventStore;

  beforeAll(async () => {
    database = await createTestDatabase();
    store = await PostgresEventStore.connect({ connectionString: database.url, listen: false });
    for (let batch = 0; batch < 6; batch++) {
      const events = Array.from({ length: 9 }, (_, i) =>
        newEvent(`Awkward${i % 3}`, awkward(batch * 9 + i), {
          id: randomUUID(),
          metadata: {
            correlationId: `bulk-${batch}-${i}`,
            reasonCode: 'test',
            actor: i % 2 ? userActor(7, 10) : systemActor(),
            clientIp: i % 2 ? '203.0.113.9' : null,
          },
        }),
      );
      await store.appendToStream(`stream-${batch % 4}-ü`, events);
    }
    // A compact charge comes as its v3 text alone; anything merely like one must come whole, as readAll gives it.
    const v3 = JSON.stringify([
      1,
      '203.0.113.9',
      'ü "name"\\',
      3,
      'key\n\t',
      'default',
      'gpt-4o-mini',
      2,
      '模型',
      12,
      20,
      0.075,
      4,
      1,
      136,
    ]);
    // The metadata of a compact charge: `{}` (quota-consumed-event-codec.ts).
    const charge = (type: string, data: Record<string, unknown>) => ({ id: randomUUID(), type, data, metadata: {} as EventMetadata });
    await store.appendToStream('account-7', [
      charge('QuotaConsumed', { v3 }),
      charge('QuotaConsumed', { v3, note: 'an extra key' }),
      charge('QuotaConsumed', { v3: 3 }),
      charge('QuotaConsumed', { v2: v3 }),
      charge('NotACharge', { v3 }),
      charge('QuotaConsumed', { v3: '' }),
    ]);
  });
  afterAll(async () => {
    await store.close();
    await database.drop();
  });

  it('given events of every shape, when read whole or in pages of any size, then they are exactly what readAll gives', async () => {
    const all = await store.readAll();
    expect(all).toHaveLength(60);
    expect(all.slice(54).map((event) => Object.keys(event.data))).toEqual([['v3'], ['v3', 'note'], ['v3'], ['v2'], ['v3'], ['v3']]);
    const whole = await store.readAllInBulk({ maxCount: 1000 });
    expect(whole).toEqual(all);
    // The charges' `{}` metadata, read without a parse, is an object of each event's own.
    expect(whole[54].metadata).toEqual({});
    expect(whole[54].metadata).not.toBe(whole[55].metadata);
    for (const size of [1, 5, 53]) {
      const paged = [];
      for (let page = await store.readAllInBulk({ maxCount: size }); page.length; ) {
        paged.push(...page);
        page = await store.readAllInBulk({ after: page[page.length - 1].position, maxCount: size });
      }
      expect(paged).toEqual(all);
    }
    expect(await store.readAllInBulk({ after: 50, maxCount: 3 })).toEqual(all.slice(50, 53));
    expect(await store.readAllInBulk({ after: 60, maxCount: 3 })).toEqual([]);
    expect(all[0].createdAt).toBeInstanceOf(Date);
  });

  it('takes the v3 text alone only from a charge whose data is exactly {"v3": "<text>"}', async () => {
    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ position: string }>(`SELECT position FROM events WHERE ${COMPACT_V3} ORDER BY position`);
      expect(rows.map((row) => Number(row.position))).toEqual([55, 60]);
    } finally {
      await client.end();
    }
  });

  it('given the thread of its page reader ended, then the next page starts a new one; once the store is closed, none', async () => {
    const own = await PostgresEventStore.connect({ connectionString: database.url, listen: false });
    const expected = await own.readAll({ maxCount: 3 });
    expect(await own.readAllInBulk({ maxCount: 3 })).toEqual(expected);
    await (own as unknown as { pageReader: { worker: { terminate(): Promise<number> } } }).pageReader.worker.terminate();
    expect(await own.readAllInBulk({ maxCount: 3 })).toEqual(expected);
    await own.close();
    await expect(own.readAllInBulk({ maxCount: 3 })).rejects.toThrow(/the event store is closed/);
  });

  it('refuses what is not a whole number rather than putting it into SQL, and input that is not its COPY output', () => {
    expect(() => eventPageCopy(-1, 5)).toThrow(/after must be a whole number/);
    expect(() => eventPageCopy(Number.NaN, 5)).toThrow(/after must be a whole number/);
    expect(() => eventPageCopy(0, 0)).toThrow(/maxCount must be a whole number/);
    expect(eventPageCopy(12, 5000)).toMatch(/WHERE position > 12 ORDER BY position LIMIT 5000\) TO STDOUT \(FORMAT binary\)$/);
    expect(() => decodeEventRows(Buffer.from('position\tstream\n'))).toThrow(/no PGCOPY header/);
  });
});
