import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '#test/support/database';
import { newEvent, systemActor, userActor } from '../event-envelope';
import { decodeEventRows, eventPageCopy } from './binary-event-copy';
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
  });
  afterAll(async () => {
    await store.close();
    await database.drop();
  });

  it('given events of every shape, when read whole or in pages of any size, then they are exactly what readAll gives', async () => {
    const all = await store.readAll();
    expect(all).toHaveLength(54);
    expect(await store.readAllInBulk({ maxCount: 1000 })).toEqual(all);
    for (const size of [1, 5, 53]) {
      const paged = [];
      for (let page = await store.readAllInBulk({ maxCount: size }); page.length; ) {
        paged.push(...page);
        page = await store.readAllInBulk({ after: page[page.length - 1].position, maxCount: size });
      }
      expect(paged).toEqual(all);
    }
    expect(await store.readAllInBulk({ after: 50, maxCount: 3 })).toEqual(all.slice(50, 53));
    expect(await store.readAllInBulk({ after: 54, maxCount: 3 })).toEqual([]);
    expect(all[0].createdAt).toBeInstanceOf(Date);
  });

  it('refuses what is not a whole number rather than putting it into SQL, and input that is not its COPY output', () => {
    expect(() => eventPageCopy(-1, 5)).toThrow(/after must be a whole number/);
    expect(() => eventPageCopy(Number.NaN, 5)).toThrow(/after must be a whole number/);
    expect(() => eventPageCopy(0, 0)).toThrow(/maxCount must be a whole number/);
    expect(eventPageCopy(12, 5000)).toMatch(/WHERE position > 12 ORDER BY position LIMIT 5000\) TO STDOUT \(FORMAT binary\)$/);
    expect(() => decodeEventRows(Buffer.from('position\tstream\n'))).toThrow(/no PGCOPY header/);
  });
});
