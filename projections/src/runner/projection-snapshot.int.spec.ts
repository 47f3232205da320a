import { DataSource } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '#test/support/database';
import type { Projection } from './projection';
import { latestSnapshot, restoreSnapshot, SnapshotBehindError, takeSnapshot } from './projection-snapshot';

/** Two projections over tables with the column types read models use; one of them large enough for several chunks. */
function projection(name: string, tables: string[]): Projection {
  return { name, tables, handles: [], apply: () => Promise.resolve() };
}

describe('projection snapshots (take, restore)', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  const wide = projection('wide', ['snap_wide']);
  const many = projection('many', ['snap_many', 'snap_empty']);

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = await new DataSource({ type: 'postgres', url: database.url }).initialize();
    await dataSource.query(`
      CREATE TABLE snap_wide (id bigint PRIMARY KEY, name text, quota bigint, ratio double precision, price numeric(20, 6),
        other jsonb, tags text[], at timestamptz, flag boolean, note text)`);
    await dataSource.query('CREATE TABLE snap_many (id integer PRIMARY KEY, value text NOT NULL)');
    await dataSource.query('CREATE TABLE snap_empty (id integer PRIMARY KEY)');
    await dataSource.query(`
      INSERT INTO snap_wide VALUES
        (1, 'ümlaut "quoted" \\ back', 9007199254740993, 0.1 + 0.2, 12.345678, '{"a": [1, {"b": null}], "s": "x\\ny"}',
         '{one,"two, three"}', '2026-08-01 10:00:00.123456+00', true, NULL),
        (2, '', -5, 1e-300, 0, '[]', '{}', '2026-09-30 23:59:59.999999+00', false, 'line
break')`);
    await dataSource.query(`INSERT INTO snap_many SELECT g, md5(g::text) FROM generate_series(1, 12001) g`);
    await dataSource.query(`INSERT INTO projection_checkpoints (name, position) VALUES ('wide', 40), ('many', 37)`);
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  const rows = async (table: string) => dataSource.query(`SELECT to_jsonb(t) AS row FROM ${table} t ORDER BY id`);

  it('refuses, writing nothing, when a projection is behind the position asked for', async () => {
    await expect(takeSnapshot(dataSource, [wide, many], { reason: 'test', minimumPosition: 38 })).rejects.toThrow(SnapshotBehindError);
    await expect(takeSnapshot(dataSource, [wide, many], { reason: 'test', minimumPosition: 38 })).rejects.toThrow(
      /many at 37 behind position 38/,
    );
    expect(await latestSnapshot(dataSource)).toBeNull();
    expect(await dataSource.query('SELECT count(*)::int AS n FROM ledger_snapshot_tables')).toEqual([{ n: 0 }]);
  });

  it('restores every row, with its types, and each projection at its own checkpoint', async () => {
    const before = { wide: await rows('snap_wide'), many: await rows('snap_many') };
    const summary = await takeSnapshot(dataSource, [wide, many], { reason: 'test', minimumPosition: 37 });
    expect(summary.position).toBe(37);
    expect(summary.projections).toEqual([
      { name: 'wide', checkpoint: 40, rows: { snap_wide: 2 } },
      { name: 'many', checkpoint: 37, rows: { snap_many: 12001, snap_empty: 0 } },
    ]);
    const chunks = await dataSource.query(
      'SELECT table_name, count(*)::int AS chunks FROM ledger_snapshot_tables WHERE snapshot_id = $1 GROUP BY table_name ORDER BY table_name',
      [summary.id],
    );
    expect(chunks).toEqual([
      { table_name: 'snap_empty', chunks: 1 },
      { table_name: 'snap_many', chunks: 3 },
      { table_name: 'snap_wide', chunks: 1 },
    ]);
    expect(await latestSnapshot(dataSource)).toEqual({ id: summary.id, position: 37 });

    await dataSource.query('TRUNCATE snap_wide, snap_many, snap_empty');
    await dataSource.query(`UPDATE projection_checkpoints SET position = 0`);
    const restored = await dataSource.transaction((manager) => restoreSnapshot(manager, summary.id, [wide, many]));
    expect([...restored]).toEqual([
      ['wide', 40],
      ['many', 37],
    ]);
    expect({ wide: await rows('snap_wide'), many: await rows('snap_many') }).toEqual(before);
    expect(await dataSource.query('SELECT name, position::int FROM projection_checkpoints ORDER BY name')).toEqual([
      { name: 'many', position: 37 },
      { name: 'wide', position: 40 },
    ]);
  });

  it('refuses a damaged or incomplete snapshot, and leaves a projection it lacks alone', async () => {
    const { id } = (await latestSnapshot(dataSource))!;
    await dataSource.query('TRUNCATE snap_wide, snap_many, snap_empty');
    await dataSource.query(
      `UPDATE ledger_snapshot_tables SET payload = set_byte(payload, 20, (get_byte(payload, 20) + 1) % 256)
        WHERE snapshot_id = $1 AND table_name = 'snap_wide'`,
      [id],
    );
    await expect(dataSource.transaction((manager) => restoreSnapshot(manager, id, [wide]))).rejects.toThrow(/does not match its sha256/);
    await dataSource.query(`DELETE FROM ledger_snapshot_tables WHERE snapshot_id = $1 AND table_name = 'snap_many' AND chunk = 1`, [id]);
    await expect(dataSource.transaction((manager) => restoreSnapshot(manager, id, [many]))).rejects.toThrow(/snap_many lacks chunk 1/);
    const later = projection('later', ['snap_empty']);
    expect([...(await dataSource.transaction((manager) => restoreSnapshot(manager, id, [later])))]).toEqual([]);
    await dataSource.query('DELETE FROM ledger_snapshots WHERE id = $1', [id]);
    await expect(dataSource.transaction((manager) => restoreSnapshot(manager, id, [wide]))).rejects.toThrow(/is gone/);
  });
});
