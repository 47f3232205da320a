import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '#test/support/database';
import { dataSourceOptions } from '#server/infrastructure/database/data-source';
import { migrations } from '#server/infrastructure/database/migrations/index';
import { type LogFilters, type LogScope, parseFilters, parsePaging } from '#server/modules/logs/log-query';
import { GetLogStatHandler } from '#server/modules/logs/usecases/get-log-stat/get-log-stat.handler';
import { GetLogStatQuery } from '#server/modules/logs/usecases/get-log-stat/get-log-stat.query';
import { ListLogsHandler } from '#server/modules/logs/usecases/list-logs/list-logs.handler';
import { ListLogsQuery } from '#server/modules/logs/usecases/list-logs/list-logs.query';
import { ListTokenLogsHandler } from '#server/modules/logs/usecases/list-token-logs/list-token-logs.handler';
import { ListTokenLogsQuery } from '#server/modules/logs/usecases/list-token-logs/list-token-logs.query';
import { SearchLogsHandler } from '#server/modules/logs/usecases/search-logs/search-logs.handler';
import { SearchLogsQuery } from '#server/modules/logs/usecases/search-logs/search-logs.query';
import { PartitionLogsByMonth1732300009100 } from './1732300009100-partition-logs-by-month';
import { eventMetadata, systemActor } from '#server/ledger/event-envelope';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { accountStream } from '#server/ledger/streams';
import { consumeLogRow } from './consume-log-row';
import { LogsProjection } from './logs.projection';
import { logPartitions } from './log-partitions';

const NOV_1 = Date.UTC(2024, 10, 1) / 1000;
const DEC_1 = Date.UTC(2024, 11, 1) / 1000;
const OCT_15 = Date.UTC(2024, 9, 15) / 1000;
/** Far beyond year 9999: only the default partition can hold it. */
const FAR_FUTURE = 9_000_000_000_000;
const NOW = DEC_1 + 3600;
const KEY = 'k'.repeat(48);

interface OldRow {
  id: number;
  userId: number;
  createdAt: number;
  type: number;
  content: string;
  username: string;
  tokenName: string;
  modelName: string;
  quota: number;
  promptTokens: number;
  completionTokens: number;
  useTime: number;
  isStream: boolean;
  channelId: number;
  tokenId: number;
  group: string;
  other: string;
  eventId: string;
}

/** A mix of every row kind, over October, November (its last second) and December (its first), and one outlier. */
function oldRows(): OldRow[] {
  const ledgerTime = new Date(NOW * 1000);
  const rows: OldRow[] = [];
  const times = [OCT_15, OCT_15 + 5, NOV_1 - 1, NOV_1, NOV_1 + 86_400, DEC_1 - 1, DEC_1, DEC_1 + 10, NOW - 30, NOW - 5, FAR_FUTURE];
  times.forEach((createdAt, index) => {
    const userId = 1 + (index % 3);
    const row = consumeLogRow(
      userId,
      {
        createdAt,
        username: `user${userId}`,
        tokenName: index % 2 ? 'alpha' : 'beta',
        tokenId: index % 2 ? 7 : 8,
        modelName: ['gpt-4o-mini', 'gpt-4o', 'claude-3-haiku'][index % 3],
        upstreamModel: ['gpt-4o-mini', 'gpt-4o-2024-08-06', 'claude-3-haiku'][index % 3],
        quota: 100 + index,
        promptTokens: 10 * index,
        completionTokens: index,
        cachedTokens: index % 4,
        useTimeSeconds: 1 + (index % 2),
        isStream: index % 2 === 0,
        firstTokenMs: 200 + index,
        channelId: 1 + (index % 2),
        channelPath: [3, 1 + (index % 2)],
        group: index % 2 ? 'vip' : 'default',
        modelRatio: 0.075 * (1 + index),
        completionRatio: 4,
        groupRatio: index % 2 ? 1.5 : 1,
        modelPrice: -1,
      },
      ledgerTime,
    );
    rows.push({ id: 10 + index * 2, ...row, eventId: randomUUID() });
  });
  // Account rows: a top-up (1), an admin edit (3), a gift (4), as the projection words them ('' other).
  const account = (id: number, userId: number, createdAt: number, type: number, content: string): OldRow => ({
    id,
    userId,
    createdAt,
    type,
    content,
    username: `user${userId}`,
    tokenName: '',
    modelName: '',
    quota: 0,
    promptTokens: 0,
    completionTokens: 0,
    useTime: 0,
    isStream: false,
    channelId: 0,
    tokenId: 0,
    group: '',
    other: '',
    eventId: randomUUID(),
  });
  rows.push(account(3, 1, OCT_15 - 100, 4, '新用户注册赠送 ＄1.000000 额度'));
  rows.push(account(5, 2, NOV_1 + 50, 1, '通过兑换码充值 ＄0.500000 额度，兑换码ID 42'));
  rows.push(account(41, 3, DEC_1 + 20, 3, '管理员将用户额度从 ＄1.000000 额度修改为 ＄0.000000 额度'));
  return rows;
}

/** Every log route's answer for a spread of filters, pages and keywords, computed by the API's own handlers. */
async function answers(dataSource: DataSource): Promise<unknown[]> {
  const list = new ListLogsHandler(dataSource);
  const stat = new GetLogStatHandler(dataSource);
  const search = new SearchLogsHandler(dataSource);
  const token = new ListTokenLogsHandler(dataSource);
  const all: LogScope = { kind: 'all' };
  const self: LogScope = { kind: 'self', userId: 2 };
  const filters = (query: Record<string, string>, scope: LogScope): LogFilters =>
    parseFilters(query, { username: scope.kind === 'all', channel: scope.kind === 'all' });
  const queries: Array<Record<string, string>> = [
    {},
    { p: '2', page_size: '3' },
    { page_size: '1000' },
    { type: '2' },
    { type: '4' },
    { username: 'user2' },
    { token_name: 'alpha' },
    { model_name: 'gpt-4o%' },
    { model_name: 'gpt-4o' },
    { group: 'vip' },
    { channel: '2' },
    { start_timestamp: String(NOV_1 - 1), end_timestamp: String(DEC_1) },
    { start_timestamp: String(DEC_1), type: '2', model_name: 'claude-3-haiku' },
    { end_timestamp: String(NOV_1 - 1), p: '1', page_size: '2' },
  ];
  const out: unknown[] = [];
  for (const scope of [all, self]) {
    for (const query of queries) {
      out.push(await list.execute(new ListLogsQuery(scope, filters(query, scope), parsePaging(query, scope))));
      out.push(await stat.execute(new GetLogStatQuery(scope, filters(query, scope), NOW)));
    }
    for (const keyword of ['2', '3', '模型', '管理员', '通过兑换码', 'x'])
      out.push(await search.execute(new SearchLogsQuery(scope, keyword)));
  }
  out.push(await token.execute(new ListTokenLogsQuery(`sk-${KEY}`)));
  return out;
}

describe('migration 1732300009100: logs partitioned by month, existing rows moved, every answer unchanged', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  const rows = oldRows();

  beforeAll(async () => {
    database = await createTestDatabase({ migrate: false });
    const earlier = migrations.filter((migration) => migration !== PartitionLogsByMonth1732300009100);
    const old = new DataSource({ ...dataSourceOptions(database.url), migrations: earlier, extra: { max: 1 } });
    await old.initialize();
    await old.runMigrations({ transaction: 'each' });
    await old.destroy();
    dataSource = new DataSource({ ...dataSourceOptions(database.url), extra: { max: 2 } });
    await dataSource.initialize();
    for (const row of rows) {
      await dataSource.query(
        `INSERT INTO logs (id, user_id, created_at, type, content, username, token_name, model_name, quota, prompt_tokens,
           completion_tokens, use_time, is_stream, channel_id, token_id, "group", other, event_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
        [
          row.id,
          row.userId,
          row.createdAt,
          row.type,
          row.content,
          row.username,
          row.tokenName,
          row.modelName,
          row.quota,
          row.promptTokens,
          row.completionTokens,
          row.useTime,
          row.isStream,
          row.channelId,
          row.tokenId,
          row.group,
          row.other,
          row.eventId,
        ],
      );
      // The event each row came from, at its position (down() recovers event_id from it).
      await dataSource.query(
        `INSERT INTO events (position, stream_id, revision, event_id, type, data, metadata) VALUES ($1, $2, 0, $3, 'Test', '{}', '{}')`,
        [row.id, `test-${row.id}`, row.eventId],
      );
    }
    await dataSource.query(`INSERT INTO tokens (user_id, key, name, created_time, accessed_time) VALUES (1, $1, 'alpha', 0, 0)`, [KEY]);
    await dataSource.query(`UPDATE logs SET token_id = (SELECT id FROM tokens) WHERE token_id = 7`);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  it('moves every row into its month (the outlier into the default partition) and answers every log query as before', async () => {
    // The handlers read the consume columns too: on the old table they are added (NULL, so every text is the stored
    // one, as the code of before read it) just for this, then dropped again.
    await dataSource.query(
      'ALTER TABLE logs ADD COLUMN model_ratio float8, ADD COLUMN completion_ratio float8, ADD COLUMN group_ratio float8, ADD COLUMN model_price float8, ADD COLUMN frt float8, ADD COLUMN cache_tokens integer, ADD COLUMN usage_source smallint, ADD COLUMN end_reason smallint',
    );
    const before = await answers(dataSource);
    await dataSource.query(
      'ALTER TABLE logs DROP COLUMN model_ratio, DROP COLUMN completion_ratio, DROP COLUMN group_ratio, DROP COLUMN model_price, DROP COLUMN frt, DROP COLUMN cache_tokens, DROP COLUMN usage_source, DROP COLUMN end_reason',
    );
    const tableBefore: unknown[] = await dataSource.query('SELECT * FROM logs ORDER BY id');
    expect(tableBefore).toHaveLength(rows.length);

    const runner = dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      await new PartitionLogsByMonth1732300009100().up(runner);
      await runner.commitTransaction();
    } finally {
      await runner.release();
    }

    expect(await answers(dataSource)).toEqual(before);
    const partitions = await logPartitions(dataSource.manager);
    expect(partitions.map((partition) => partition.name)).toEqual(['logs_p202410', 'logs_p202411', 'logs_p202412', 'logs_default']);
    expect(partitions[1]).toEqual({ name: 'logs_p202411', from: NOV_1, to: DEC_1 });
    const placed: Array<{ partition: string; created_at: string }> = await dataSource.query(
      'SELECT tableoid::regclass::text AS partition, created_at FROM logs ORDER BY created_at',
    );
    for (const { partition, created_at } of placed) {
      const at = Number(created_at);
      const expected = at === FAR_FUTURE ? 'logs_default' : at < NOV_1 ? 'logs_p202410' : at < DEC_1 ? 'logs_p202411' : 'logs_p202412';
      expect({ at, partition }).toEqual({ at, partition: expected });
    }
    // The same rows, column for column, without event_id, and the consume columns NULL (the texts stay stored).
    const after: Array<Record<string, unknown>> = await dataSource.query('SELECT * FROM logs ORDER BY id');
    const facts = {
      model_ratio: null,
      completion_ratio: null,
      group_ratio: null,
      model_price: null,
      frt: null,
      cache_tokens: null,
      usage_source: null,
      end_reason: null,
    };
    expect(after).toEqual(
      tableBefore.map((row) => withoutUndefined({ ...(row as Record<string, unknown>), event_id: undefined, ...facts })),
    );
    const [{ definition }]: Array<{ definition: string }> = await dataSource.query(
      "SELECT pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conname = 'logs_pkey'",
    );
    expect(definition).toBe('PRIMARY KEY (id, created_at)');
  });

  it('goes down to one table with event_id recovered from the ledger and the derived texts written out, and up again, answers unchanged', async () => {
    // Rows the projection writes slim (content and other NULL), with their events in the ledger.
    const projection = new LogsProjection();
    const charges: RecordedEvent[] = [0, 1, 2].map((index) => ({
      id: randomUUID(),
      streamId: accountStream(2),
      revision: 10 + index,
      position: 100 + index,
      type: 'QuotaConsumed',
      data: {
        userId: 2,
        tokenId: 8,
        tokenName: 'beta',
        username: 'user2',
        modelName: 'gpt-4o-mini',
        upstreamModel: 'gpt-4o-mini',
        channelId: 2,
        channelPath: [2],
        promptTokens: 100 * index,
        completionTokens: 7,
        cachedTokens: index,
        modelRatio: 0.075 + index,
        completionRatio: 4,
        groupRatio: 1,
        modelPrice: -1,
        quota: 50 + index,
        isStream: index === 1,
        firstTokenMs: 333,
        useTimeSeconds: 1,
        createdAt: DEC_1 + 100 + index,
        usageSource: 'upstream',
        endReason: 'completed',
      },
      metadata: eventMetadata({ correlationId: `slim-${index}`, reasonCode: 'test', actor: systemActor() }),
      createdAt: new Date(NOW * 1000),
    }));
    await dataSource.transaction((manager) => projection.applyBatch(charges, manager));
    for (const charge of charges) {
      await dataSource.query(
        `INSERT INTO events (position, stream_id, revision, event_id, type, data, metadata) VALUES ($1, $2, $3, $4, 'QuotaConsumed', '{}', '{}')`,
        [charge.position, charge.streamId, charge.revision, charge.id],
      );
    }
    const [{ slim }] = await dataSource.query('SELECT count(*)::int AS slim FROM logs WHERE content IS NULL AND other IS NULL');
    expect(slim).toBe(charges.length);
    rows.push(...charges.map((charge) => ({ id: charge.position, eventId: charge.id }) as OldRow));
    const partitioned = await answers(dataSource);
    const runner = dataSource.createQueryRunner();
    await runner.connect();
    try {
      await new PartitionLogsByMonth1732300009100().down(runner);
      const [{ empty }] = await dataSource.query('SELECT count(*)::int AS empty FROM logs WHERE content IS NULL OR other IS NULL');
      expect(empty).toBe(0);
      // The old layout has no consume columns: they are added back (NULL) for the handlers to read, then dropped.
      await dataSource.query(
        'ALTER TABLE logs ADD COLUMN model_ratio float8, ADD COLUMN completion_ratio float8, ADD COLUMN group_ratio float8, ADD COLUMN model_price float8, ADD COLUMN frt float8, ADD COLUMN cache_tokens integer, ADD COLUMN usage_source smallint, ADD COLUMN end_reason smallint',
      );
      expect(await answers(dataSource)).toEqual(partitioned);
      await dataSource.query(
        'ALTER TABLE logs DROP COLUMN model_ratio, DROP COLUMN completion_ratio, DROP COLUMN group_ratio, DROP COLUMN model_price, DROP COLUMN frt, DROP COLUMN cache_tokens, DROP COLUMN usage_source, DROP COLUMN end_reason',
      );
      const back: Array<{ id: string; event_id: string }> = await dataSource.query('SELECT id, event_id FROM logs ORDER BY id');
      expect(back.map((row) => [Number(row.id), row.event_id])).toEqual(
        [...rows].sort((a, b) => a.id - b.id).map((row) => [row.id, row.eventId]),
      );
      await new PartitionLogsByMonth1732300009100().up(runner);
    } finally {
      await runner.release();
    }
    expect(await answers(dataSource)).toEqual(partitioned);
  });
});

function withoutUndefined(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).filter(([, value]) => value !== undefined));
}
