import { DataSource, type QueryRunner } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database';
import { dataSourceOptions } from '#server/infrastructure/database/data-source';
import { binaryRows, type ColumnKind } from './copy-binary';
import { columnKinds, copyRows } from './copy-rows';

const COLUMNS = ['n', 'i2', 'i4', 'i8', 'f8', 'b', 't', 'vc', 'bp', 'j', 'u', 'ts'] as const;
const TABLE = `(n integer PRIMARY KEY, i2 smallint, i4 integer, i8 bigint, f8 double precision, b boolean, t text,
  vc varchar(12), bp character(4), j jsonb, u uuid, ts timestamptz)`;

/** Values at every edge the binary encoding meets, each row also written as text to compare. */
const rows: unknown[][] = [
  [1, 0, 0, 0, 0, false, '', '', '', {}, '00000000-0000-0000-0000-000000000000', new Date(0)],
  [
    2,
    -32768,
    -2147483648,
    Number.MIN_SAFE_INTEGER,
    -0,
    true,
    'tab\there\nnew\\line "q"',
    'ünïcödé 模型',
    'ab',
    '[1, "x"]',
    'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11',
    new Date(Date.UTC(1999, 11, 31, 23, 59, 59, 999)),
  ],
  [
    3,
    32767,
    2147483647,
    Number.MAX_SAFE_INTEGER,
    0.1 + 0.2,
    null,
    '🚀 emoji and \r',
    'x'.repeat(12),
    'abcd',
    { k: 'v\t', n: [1.5, null], 中: '文' },
    null,
    new Date(Date.UTC(2026, 10, 26, 6, 1, 2, 345)),
  ],
  [4, 12n, -5n, 2n ** 63n - 1n, 1e-300, false, 'x'.repeat(300_000), null, null, 'null', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', undefined],
  [
    5,
    undefined,
    7,
    -(2n ** 63n),
    -1.7976931348623157e308,
    true,
    '\u2028 lone \ud800 surrogate',
    'a',
    'z',
    '"a string"',
    null,
    new Date(-1),
  ],
  // Words whose bytes are all set or cross 2^31 and 2^32, text on both sides of the ASCII loop's length and with a
  // character past ASCII after an ASCII start, jsonb text past that length, the largest uuid.
  [
    6,
    -1,
    -1,
    2 ** 32,
    Number.MIN_VALUE,
    false,
    'a'.repeat(64),
    'abcé',
    'é',
    `{"k": "${'v'.repeat(200)}"}`,
    'FFFFFFFF-ffff-FFFF-ffff-FFFFFFFFFFFF',
    new Date(Date.UTC(1970, 0, 1, 0, 0, 0, 1)),
  ],
  [
    7,
    255,
    2 ** 31 - 1,
    -(2 ** 32),
    2 ** 53,
    true,
    'a'.repeat(65) + 'ü',
    'z'.repeat(12),
    'ab€',
    '"é"',
    '12345678-9abc-def0-1234-56789abcdef0',
    new Date(2 ** 40),
  ],
  [8, 256, 2 ** 16, -(2 ** 31) - 1, -1.5, false, `${'b'.repeat(63)}\u007f`, '\u0080', '', '[]', null, new Date(-(2 ** 40))],
];

describe('COPY in binary (copy-binary.ts through copyRows)', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let runner: QueryRunner;
  const table = async (name: string) => dataSource.query(`CREATE TABLE ${name} ${TABLE}`);
  const read = (name: string) => dataSource.query(`SELECT to_jsonb(x) AS row FROM ${name} x ORDER BY n`);
  const kinds = (): Promise<ColumnKind[] | null> => columnKinds(runner, { table: 'copy_bin', columns: COLUMNS });

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = await new DataSource({ ...dataSourceOptions(database.url), extra: { max: 3 } }).initialize();
    await table('copy_bin');
    await table('copy_txt');
    runner = dataSource.createQueryRunner();
    await runner.connect();
  });
  afterAll(async () => {
    await runner?.release();
    await dataSource?.destroy();
    await database?.drop();
  });

  it('given values at every edge of every kind, then binary rows land exactly as the same rows written as text', async () => {
    expect(await kinds()).toEqual([
      'int4',
      'int2',
      'int4',
      'int8',
      'float8',
      'bool',
      'text',
      'text',
      'text',
      'jsonb',
      'uuid',
      'timestamptz',
    ]);
    expect(binaryRows(rows, (await kinds())!)).not.toBeNull();
    expect(await copyRows(runner, { table: 'copy_bin', columns: COLUMNS, rows })).toBe(rows.length);
    expect(await copyRows(runner, { table: 'copy_txt', columns: COLUMNS, rows }, 'text')).toBe(rows.length);
    const binary = await read('copy_bin');
    expect(binary).toEqual(await read('copy_txt'));
    expect(binary[1].row).toMatchObject({ f8: 0, i8: Number.MIN_SAFE_INTEGER, bp: 'ab  ', u: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11' });
    expect(binary[3].row.i8).toBe(9223372036854775807); // to_jsonb's numeric, read back as a JS number
    expect(binary[3].row.t).toHaveLength(300_000);
  });

  it('given a value the binary encoding does not take, then the batch goes as text and Postgres takes or refuses it as before', async () => {
    const k = (await kinds())!;
    const row = (overrides: Record<number, unknown>) => rows[0].map((value, i) => (i in overrides ? overrides[i] : value));
    // Not binary: a numeric string, an integer out of range, a float where an integer goes, text with NUL, a bad uuid.
    for (const odd of [
      { 2: '42' },
      { 1: 40_000 },
      { 3: 2 ** 60 },
      { 2: 1.5 },
      { 6: 'a\u0000b' },
      { 6: 'é\u0000' }, // a NUL after the ASCII loop stopped
      { 6: `${'x'.repeat(100)}\u0000` }, // a NUL in text too long for the loop
      { 9: '"\u0000"' },
      { 10: 'not-a-uuid' },
      { 10: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1g' }, // not a hex digit
      { 10: 'a0eebc99x9c0b-4ef8-bb6d-6bb9bd380a11' }, // no dash where one goes
      { 10: 'a0eebc999c0b4ef8bb6d6bb9bd380a11' }, // Postgres takes it as text; binary takes only the canonical form
      { 10: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380aé1' },
      { 5: 't' },
    ]) {
      expect(binaryRows([row(odd)], k)).toBeNull();
    }
    await dataSource.query('TRUNCATE copy_bin');
    expect(await copyRows(runner, { table: 'copy_bin', columns: COLUMNS, rows: [row({ 0: 10, 2: '42', 5: 't' })] })).toBe(1);
    expect(await dataSource.query('SELECT i4, b FROM copy_bin WHERE n = 10')).toEqual([{ i4: 42, b: true }]);
    await expect(copyRows(runner, { table: 'copy_bin', columns: COLUMNS, rows: [row({ 0: 11, 1: 40_000 })] })).rejects.toThrow(
      /out of range/,
    );
    await expect(copyRows(runner, { table: 'copy_bin', columns: COLUMNS, rows: [row({ 0: 12, 4: Number.NaN })] })).rejects.toThrow(/NaN/);
    expect(() => binaryRows([[1, 2]], k)).toThrow(/2 values for 12 columns/);
    expect(await dataSource.query('SELECT count(*)::int AS n FROM copy_bin')).toEqual([{ n: 1 }]);
  });

  it('given a table with a column of another type, then its rows go as text', async () => {
    await dataSource.query('CREATE TABLE copy_other (n integer, amount numeric)');
    expect(await columnKinds(runner, { table: 'copy_other', columns: ['n', 'amount'] })).toBeNull();
    expect(await columnKinds(runner, { table: 'copy_other', columns: ['n'] })).toEqual(['int4']);
    expect(await copyRows(runner, { table: 'copy_other', columns: ['n', 'amount'], rows: [[1, '12.50']] })).toBe(1);
    expect(await dataSource.query('SELECT n, amount FROM copy_other')).toEqual([{ n: 1, amount: '12.50' }]);
  });
});
