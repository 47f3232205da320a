import { DataSource } from 'typeorm';
import { StatementProjection } from '#projections/read-models/statement/statement.projection';
import { createTestDatabase, type TestDatabase } from '#test/support/database';
import { dataSourceOptions } from '../../infrastructure/database/data-source';
import { LedgerBuilder } from '../../../../projections/test/mixed-ledger';
import { StatementReader } from './statement.reader';
import { csvHeader } from './statement.serializer';
import { ExportStatementCsvHandler, GetStatementPageHandler } from './usecases/read-statement/read-statement.handler';
import { ExportStatementCsvQuery, GetStatementPageQuery } from './usecases/read-statement/read-statement.query';

const NO_FILTERS = { startTimestamp: null, endTimestamp: null, kind: null };

/**
 * The reader over a statement longer than one export chunk (500 lines): the lines are written by the statement
 * projection from a hand-made ledger, then read as pages and streamed as CSV chunk by chunk.
 */
describe('statement reader', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let reader: StatementReader;
  const CHARGES = 1234;

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = await new DataSource({ ...dataSourceOptions(database.url), extra: { max: 2 } }).initialize();
    const builder = new LedgerBuilder('reader');
    const events = [builder.grant(5, 1_000_000), builder.grant(6, 10)];
    for (let i = 0; i < CHARGES; i++) events.push(builder.charge(5, { quota: 1 + (i % 9), tokenName: i % 100 === 0 ? 'a,"b"' : 't' }));
    events.push(builder.adminSet(5, 0, 42));
    const projection = new StatementProjection();
    await dataSource.transaction((manager) => projection.applyBatch(events, manager));
    reader = new StatementReader(dataSource);
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  it('streams every line newest first in chunks of at most 500, each once, other users left out', async () => {
    const chunks: number[][] = [];
    for await (const rows of reader.all(5, NO_FILTERS)) chunks.push(rows.map((row) => Number(row.position)));
    expect(chunks.map((chunk) => chunk.length)).toEqual([500, 500, CHARGES + 2 - 1000]);
    const positions = chunks.flat();
    expect(positions).toEqual([...positions].sort((a, b) => b - a));
    expect(new Set(positions).size).toBe(CHARGES + 2);
  });

  it('answers the CSV as the header and one CRLF record per line, chunk by chunk, equal to the pages', async () => {
    const csv = await new ExportStatementCsvHandler(reader).execute(new ExportStatementCsvQuery(5, 'owner', NO_FILTERS));
    const parts: string[] = [];
    for await (const part of csv) parts.push(part);
    expect(parts[0]).toBe(csvHeader());
    expect(parts).toHaveLength(1 + 3);
    const records = parts.slice(1).join('').split('\r\n').slice(0, -1);
    // Every 100th charge's token name needs quoting, which keeps the record on one line.
    expect(records).toHaveLength(CHARGES + 2);
    const pages = new GetStatementPageHandler(reader);
    const ids: number[] = [];
    for (let page = 1; ids.length < CHARGES + 2; page++) {
      const answer = await pages.execute(new GetStatementPageQuery(5, 'owner', NO_FILTERS, page, 100));
      expect(answer.total).toBe(CHARGES + 2);
      ids.push(...answer.items.map((line) => line.id));
    }
    expect(records.map((record) => Number(record.split(',')[0]))).toEqual(ids);
    expect(records[0]).toMatch(/^\d+,\d+,[^,]+,admin_adjustment,/);
    expect(records.filter((record) => record.includes('"a,""b"""'))).toHaveLength(Math.ceil(CHARGES / 100));
  });

  it('filters by kind and counts only what it selects', async () => {
    const gifts = await new GetStatementPageHandler(reader).execute(
      new GetStatementPageQuery(5, 'owner', { ...NO_FILTERS, kind: 'gift' }, 1, 10),
    );
    expect(gifts.total).toBe(1);
    expect(gifts.items[0]).toMatchObject({ kind: 'gift', delta: 1_000_000, balance: 1_000_000 });
  });
});
