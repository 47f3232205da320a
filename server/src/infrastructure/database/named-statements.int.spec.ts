import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '#test/support/database';
import { newEvent, systemActor } from '../../ledger/event-envelope';
import { appendStatement, PostgresEventStore } from '../../ledger/postgres/postgres-event-store';
import { parseConfig } from '../../config/app-config';
import { batchStatement, setPreparedStatements, statementName } from './named-statements';

describe('named statements: PG_PREPARED_STATEMENTS and the names', () => {
  afterEach(() => setPreparedStatements(true));

  it('given the variable unset, blank or on, then statements are named; off, false, 0 or no turn it off; anything else is refused', () => {
    const prepared = (value?: string) => parseConfig({ PG_PREPARED_STATEMENTS: value }).PG_PREPARED_STATEMENTS;
    expect(prepared()).toBe(true);
    expect(prepared('on')).toBe(true);
    expect(prepared('')).toBe(true);
    for (const value of ['off', 'OFF', ' false ', '0', 'no']) expect(prepared(value)).toBe(false);
    expect(() => prepared('sometimes')).toThrow('PG_PREPARED_STATEMENTS must be on or off');
  });

  it('given a text, then its name is the same every time and differs from any other text', () => {
    expect(statementName('SELECT 1')).toBe(statementName('SELECT 1'));
    expect(statementName('SELECT 1')).toMatch(/^tg_[0-9a-f]{24}$/);
    expect(statementName('SELECT 1')).not.toBe(statementName('SELECT  1'));
  });

  it('given prepared statements off, then the query config carries no name', () => {
    expect(batchStatement('SELECT $1', [1])).toEqual({ name: statementName('SELECT $1'), text: 'SELECT $1', values: [1] });
    setPreparedStatements(false);
    expect(batchStatement('SELECT $1', [1])).toEqual({ text: 'SELECT $1', values: [1] });
  });
});

describe('PostgresEventStore batch statements as named statements (real Postgres)', () => {
  let database: TestDatabase;
  const charge = () =>
    newEvent(
      'Charged',
      { amount: 1 },
      { id: randomUUID(), metadata: { correlationId: 'named-spec', reasonCode: 'test', actor: systemActor() } },
    );

  /** What the store's one pooled connection has prepared (pg_prepared_statements is per session). */
  const preparedOn = async (store: PostgresEventStore) =>
    (
      await (store as unknown as { pool: { query(sql: string): Promise<{ rows: Array<{ statement: string }> }> } }).pool.query(
        'SELECT statement FROM pg_prepared_statements',
      )
    ).rows.map((row) => row.statement);

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterEach(() => setPreparedStatements(true));
  afterAll(async () => {
    await database?.drop();
  });

  it('given a group commit and a read, then the append and the page read are prepared once on the connection and answer as before', async () => {
    const store = await PostgresEventStore.connect({ connectionString: database.url, poolSize: 1, listen: false });
    try {
      for (let i = 0; i < 3; i++) {
        const outcomes = await store.appendMany(
          [
            { streamId: 'account-1', events: [charge()] },
            { streamId: 'account-2', events: [charge()] },
          ],
          { durability: 'async' },
        );
        expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, true]);
      }
      const events = await store.readAll({ after: 0, maxCount: 4 });
      expect(events.map((event) => [event.streamId, event.revision])).toEqual([
        ['account-1', 0],
        ['account-2', 0],
        ['account-1', 1],
        ['account-2', 1],
      ]);

      const prepared = await preparedOn(store);
      expect(prepared).toContain(appendStatement('many', 'async'));
      expect(prepared.filter((text) => text.startsWith('SELECT position, stream_id'))).toHaveLength(1);
    } finally {
      await store.close();
    }
  });

  it('given prepared statements off, then the store prepares nothing', async () => {
    setPreparedStatements(false);
    const store = await PostgresEventStore.connect({ connectionString: database.url, poolSize: 1, listen: false });
    try {
      const outcomes = await store.appendMany([{ streamId: 'account-3', events: [charge()] }], { durability: 'async' });
      expect(outcomes[0].ok).toBe(true);
      expect(await store.readAll({ after: 0 })).toHaveLength(7);
      expect(await preparedOn(store)).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
