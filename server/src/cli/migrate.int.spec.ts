import { Client } from 'pg';
import { createTestDatabase, type TestDatabase } from '#test/support/database';
import { migrate } from './migrate';

describe('migrate CLI', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase({ migrate: false });
  });
  afterAll(async () => {
    await database.drop();
  });

  it('given an empty database in DATABASE_URL, when run twice, then it creates the schema once and then reports up to date', async () => {
    const lines: string[] = [];
    const applied = await migrate({ DATABASE_URL: database.url }, (line) => lines.push(line));
    expect(applied).toEqual(expect.arrayContaining(['CreateLedgerEvents1732300000100', 'CreateProjectionCheckpoints1732300000200']));
    expect(lines.join('\n')).toMatch(/applied \d+ migration\(s\) to postgres:\/\/.*CreateLedgerEvents1732300000100/s);

    const client = new Client({ connectionString: database.url });
    await client.connect();
    const { rows } = await client.query(`SELECT to_regclass('events') AS events, to_regclass('projection_checkpoints') AS checkpoints`);
    await client.end();
    expect(rows[0]).toEqual({ events: 'events', checkpoints: 'projection_checkpoints' });

    const again: string[] = [];
    expect(await migrate({ DATABASE_URL: database.url }, (line) => again.push(line))).toEqual([]);
    expect(again.at(-1)).toMatch(/is up to date$/);
  });
});
