import { Client } from 'pg';
import { createTestDatabase, type TestDatabase } from '#test/support/database';
import { CopyPageWorker } from './copy-page-worker';

describe('CopyPageWorker (COPY TO read on a worker thread)', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase({ migrate: false });
  });
  afterAll(async () => {
    await database.drop();
  });

  it('gives each statement its own bytes, in any number at once, and goes on after one Postgres refuses', async () => {
    const reader = new CopyPageWorker(database.url);
    try {
      const sql = (n: number) => `COPY (SELECT g, repeat('ü', g) FROM generate_series(1, ${n}) g) TO STDOUT`;
      const expected = (n: number) => Array.from({ length: n }, (_, i) => `${i + 1}\t${'ü'.repeat(i + 1)}\n`).join('');
      const [small, large, none] = await Promise.all([reader.copy(sql(3)), reader.copy(sql(2000)), reader.copy(sql(0))]);
      expect(small.toString('utf8')).toBe(expected(3));
      expect(large.toString('utf8')).toBe(expected(2000));
      expect(none.length).toBe(0);
      await expect(reader.copy('COPY (SELECT * FROM no_such_table) TO STDOUT')).rejects.toThrow(/no_such_table/);
      expect((await reader.copy(sql(2))).toString('utf8')).toBe(expected(2));
    } finally {
      await reader.close();
    }
  });

  it('when closed, rejects the read in flight and every later one', async () => {
    const reader = new CopyPageWorker(database.url);
    const slow = expect(reader.copy('COPY (SELECT pg_sleep(5)) TO STDOUT')).rejects.toThrow(/closed/);
    const started = Date.now();
    await reader.close();
    await slow;
    await expect(reader.copy('COPY (SELECT 1) TO STDOUT')).rejects.toThrow(/closed/);
    // Well inside close's 2 s grace: the read in flight was abandoned, not waited for (pg_sleep(5)) and then killed.
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('given a worker that died, then reads reject with the reason and close still returns', async () => {
    const reader = new CopyPageWorker(database.url);
    await (reader as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
    await expect(reader.copy('COPY (SELECT 1) TO STDOUT')).rejects.toThrow(/the ledger page reader stopped/);
    await reader.close();
  });

  it('given its connection broke (a terminated backend), then the next read connects again and succeeds', async () => {
    const reader = new CopyPageWorker(database.url);
    const admin = new Client({ connectionString: database.url });
    await admin.connect();
    try {
      expect((await reader.copy('COPY (SELECT 1) TO STDOUT')).toString()).toBe('1\n');
      const killed = await admin.query(
        'SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      );
      expect(killed.rows.length).toBeGreaterThan(0); // the reader's backend (and any an earlier test left behind)
      expect((await reader.copy('COPY (SELECT 2) TO STDOUT')).toString()).toBe('2\n');
      expect((await reader.copy('COPY (SELECT 3) TO STDOUT')).toString()).toBe('3\n');
    } finally {
      await admin.end();
      await reader.close();
    }
  });

  it('given a read answered by its own backend being terminated (before the connection reports it), then the read is tried again on a new connection', async () => {
    // The FATAL comes as the statement's answer, so the client's 'error'/'end' events may not have been seen when the
    // read fails: the first attempt terminates its own backend, the retry finds the sequence past 1 and answers 7.
    const admin = new Client({ connectionString: database.url });
    await admin.connect();
    const reader = new CopyPageWorker(database.url);
    try {
      await admin.query('CREATE SEQUENCE IF NOT EXISTS copy_worker_attempts');
      const sql =
        "COPY (SELECT CASE WHEN nextval('copy_worker_attempts') = 1 THEN (SELECT 0 FROM pg_sleep(0) WHERE pg_terminate_backend(pg_backend_pid())) ELSE 7 END) TO STDOUT";
      expect((await reader.copy(sql)).toString()).toBe('7\n');
      expect((await admin.query('SELECT last_value FROM copy_worker_attempts')).rows[0].last_value).toBe('2');
      // A statement Postgres refuses is not tried again.
      await expect(reader.copy("COPY (SELECT nextval('copy_worker_attempts') / 0) TO STDOUT")).rejects.toThrow(/division by zero/);
      expect((await admin.query('SELECT last_value FROM copy_worker_attempts')).rows[0].last_value).toBe('3');
    } finally {
      await reader.close();
      await admin.query('DROP SEQUENCE IF EXISTS copy_worker_attempts');
      await admin.end();
    }
  });

  it('given a database it cannot reach yet, then reads fail with the reason until it can, then succeed', async () => {
    const url = new URL(database.url);
    const name = `${url.pathname.slice(1)}_later`;
    url.pathname = `/${name}`;
    const reader = new CopyPageWorker(url.toString());
    const admin = new Client({ connectionString: database.url });
    await admin.connect();
    try {
      await expect(reader.copy('COPY (SELECT 1) TO STDOUT')).rejects.toThrow(new RegExp(name));
      await admin.query(`CREATE DATABASE "${name}"`);
      expect((await reader.copy('COPY (SELECT 1) TO STDOUT')).toString()).toBe('1\n');
    } finally {
      await reader.close();
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    }
  });

  it('given a database it cannot reach, then each read rejects with the reason', async () => {
    const url = new URL(database.url);
    url.pathname = '/tollgate_no_such_database';
    const reader = new CopyPageWorker(url.toString());
    try {
      await expect(reader.copy('COPY (SELECT 1) TO STDOUT')).rejects.toThrow(/tollgate_no_such_database/);
      await expect(reader.copy('COPY (SELECT 1) TO STDOUT')).rejects.toThrow(/tollgate_no_such_database/);
    } finally {
      await reader.close();
    }
  });
});
