import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '#test/support/database';
import { dataSourceOptions } from '#server/infrastructure/database/data-source';
import { eventMetadata, systemActor } from '#server/ledger/event-envelope';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { accountStream } from '#server/ledger/streams';
import { LOGS_STREAM } from '#server/modules/logs/logs.events';
import { LOG_COLUMNS, type LogRow, toLogJson } from '#server/modules/logs/log.serializer';
import { likeMatcher, SearchLogsHandler } from '#server/modules/logs/usecases/search-logs/search-logs.handler';
import { SearchLogsQuery } from '#server/modules/logs/usecases/search-logs/search-logs.query';
import type { QuotaConsumedData } from '#server/modules/accounts/index';
import { channelTestLogRow } from './channel-test-log-row';
import { consumeLogRow } from './consume-log-row';
import { random as seeded } from '../../../test/mixed-ledger';
import { LogsProjection } from './logs.projection';

const BASE = Date.UTC(2024, 10, 20) / 1000;

/** Doubles whose decimal forms are awkward (binary fractions, tiny, huge, ties of toFixed(2)). */
const AWKWARD = [0.075, 0.1 + 0.2, 1 / 3, 1e-7, 123456.789, 2.5, 0.005, 0.125, 1e21, 5e-324, 0, -0, 37.5, 0.015, 1.005, 15];

function events(count: number): RecordedEvent[] {
  const random = seeded(20);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)];
  const out: RecordedEvent[] = [];
  for (let i = 1; i <= count; i++) {
    const position = i;
    const meta = eventMetadata({ correlationId: `c-${i}`, reasonCode: 'test', actor: systemActor() });
    const createdAt = new Date((BASE + 100_000 + i) * 1000);
    if (i % 17 === 0) {
      out.push({
        id: randomUUID(),
        streamId: LOGS_STREAM,
        revision: i,
        position,
        type: 'ChannelTestLogged',
        data: {
          userId: 1,
          username: 'root',
          channelId: 1 + (i % 4),
          modelName: 'gpt-4o-mini',
          upstreamModel: i % 2 ? 'gpt-4o-mini' : 'gpt-4o-mini-2024-07-18',
          promptTokens: i % 3,
          completionTokens: 1,
          quota: i,
          modelRatio: pick(AWKWARD),
          completionRatio: pick(AWKWARD),
          modelPrice: random() < 0.3 ? pick(AWKWARD) : -1,
          useTimeSeconds: 1,
          createdAt: BASE + i,
        },
        metadata: meta,
        createdAt,
      });
      continue;
    }
    const stream = random() < 0.6;
    const data: Partial<QuotaConsumedData> & Record<string, unknown> = {
      requestId: `req-${i}`,
      userId: 1 + (i % 5),
      tokenId: 10 + (i % 7),
      tokenName: `tok-${i % 7}`,
      group: pick(['default', 'vip']),
      modelName: pick(['gpt-4o-mini', 'gpt-4o', 'dall-e-3']),
      channelId: 1 + (i % 4),
      channelName: 'c',
      relayMode: 'chat',
      promptTokens: random() < 0.1 ? 0 : Math.floor(random() * 5000),
      completionTokens: random() < 0.1 ? 0 : Math.floor(random() * 2000),
      cachedTokens: random() < 0.3 ? Math.floor(random() * 100) : 0,
      modelRatio: pick(AWKWARD),
      completionRatio: pick(AWKWARD),
      groupRatio: pick([1, 1.5, 0.8, 1 / 3]),
      modelPrice: random() < 0.2 ? pick(AWKWARD) : -1,
      quota: Math.floor(random() * 10_000),
      tokenUnlimited: false,
      isStream: stream,
      useTimeSeconds: Math.floor(random() * 30),
      firstTokenMs: stream ? pick([0, 420, 12.5, 1e-7, 99999]) : 0,
      createdAt: BASE + i,
      username: `user${1 + (i % 5)}`,
    };
    data.upstreamModel = random() < 0.15 ? `${data.modelName}-2024` : data.modelName;
    data.channelPath = random() < 0.15 ? [9, data.channelId!] : [data.channelId!];
    // 'local' and 'stopped' stand for values this code does not know (a newer writer's): kept as text.
    if (random() < 0.7) data.usageSource = pick(['upstream', 'estimated', 'local']) as QuotaConsumedData['usageSource'];
    if (random() < 0.7) {
      data.endReason = pick([
        'completed',
        'client_gone',
        'upstream_error',
        'timeout',
        'cut_stream',
        'stopped',
      ]) as QuotaConsumedData['endReason'];
    }
    if (random() < 0.1) data.other = { reasoning_effort: 'low' };
    if (random() < 0.1) data.content = '模型价格 0.04，分组倍率 1.00 , 大小 1024x1024, 品质 standard';
    if (random() < 0.05) data.content = '';
    out.push({
      id: randomUUID(),
      streamId: accountStream(data.userId!),
      revision: i,
      position,
      type: 'QuotaConsumed',
      data,
      metadata: meta,
      createdAt,
    });
  }
  return out;
}

/** The content and other the projection stored in full before, for every event. */
function fullTexts(event: RecordedEvent): { content: string; other: string } {
  const row =
    event.type === 'ChannelTestLogged'
      ? channelTestLogRow(event.data, event.createdAt)
      : consumeLogRow(Number(event.streamId.split('-')[1]), event.data as Partial<QuotaConsumedData>, event.createdAt);
  return { content: row.content, other: row.other };
}

describe('consume rows: wording and other derived from their columns, byte for byte', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  const projection = new LogsProjection();
  const ledger = events(600);

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = new DataSource({ ...dataSourceOptions(database.url), extra: { max: 2 } });
    await dataSource.initialize();
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  for (const mode of ['apply', 'applyBatch'] as const) {
    it(`answers the text the full row stored, for every awkward double and every kind of row (${mode})`, async () => {
      await dataSource.query('TRUNCATE logs, log_purges');
      await dataSource.transaction(async (manager) => {
        if (mode === 'applyBatch') await projection.applyBatch(ledger, manager);
        else for (const event of ledger) await projection.apply(event, manager);
      });
      const rows: LogRow[] = await dataSource.query(`SELECT ${LOG_COLUMNS} FROM logs ORDER BY id`);
      expect(rows).toHaveLength(ledger.length);
      for (const [index, row] of rows.entries()) {
        const json = toLogJson(row);
        expect({ position: json.id, content: json.content, other: json.other }).toEqual({
          position: ledger[index].position,
          ...fullTexts(ledger[index]),
        });
      }
      // Most rows are slim; the others keep what their columns cannot give back.
      const slim = rows.filter((row) => row.content === null && row.other === null).length;
      expect(slim).toBeGreaterThan(ledger.length / 4);
      expect(rows.some((row) => row.content !== null && row.other === null)).toBe(true);
      expect(rows.some((row) => row.content === null && row.other !== null)).toBe(true);
    });
  }

  it("searches the derived wordings as new-api's LIKE searched the stored ones", async () => {
    // The same rows with their texts written out (the layout before), searched with the query of before.
    const rows: LogRow[] = await dataSource.query(`SELECT ${LOG_COLUMNS} FROM logs ORDER BY id`);
    await dataSource.query('CREATE TABLE full_logs (id bigint, type integer, content text)');
    for (const row of rows) {
      await dataSource.query('INSERT INTO full_logs VALUES ($1, $2, $3)', [row.id, row.type, toLogJson(row).content]);
    }
    const search = new SearchLogsHandler(dataSource);
    for (const keyword of [
      '模型',
      '模型倍率 0.0',
      '模型价格',
      '模型倍率 0._',
      '%4.00%',
      '%上游超时',
      '2',
      '模',
      '模型倍率 9',
      'x',
      '%',
      '_',
    ]) {
      const type = /^[+-]?\d+$/.test(keyword) ? Number(keyword) : null;
      const expected: Array<{ id: string }> = await dataSource.query(
        `SELECT id FROM full_logs WHERE ${type === null ? '' : 'type = $2 OR '}content LIKE $1 ESCAPE '' ORDER BY id DESC LIMIT 100`,
        type === null ? [`${keyword}%`] : [`${keyword}%`, type],
      );
      const answer = await search.execute(new SearchLogsQuery({ kind: 'all' }, keyword));
      expect({ keyword, ids: answer.map((item) => item.id) }).toEqual({ keyword, ids: expected.map((row) => Number(row.id)) });
    }
  });

  it('matches LIKE as Postgres does (no escape character), for wildcards, regex characters, line breaks and astral characters', async () => {
    const cases: Array<[string, string]> = [
      ['模型倍率 0.07，补全', '模型倍率 0.07%'],
      ['模型倍率 0x07', '模型倍率 0.07%'],
      ['a.b', 'a_b'],
      ['ab', 'a_b'],
      ['a\nb', 'a%b'],
      ['😀x', '_x'],
      ['(a)[b]{c}*+?^$|\\/-', '(a)[b]{c}*+?^$|\\/-'],
      ['a\\b', 'a\\b'],
      ['', '%'],
      ['abc', 'ABC'],
    ];
    for (const [text, pattern] of cases) {
      const [{ matched }] = await dataSource.query("SELECT $1::text LIKE $2::text ESCAPE '' AS matched", [text, pattern]);
      expect({ text, pattern, matched: likeMatcher(pattern)(text) }).toEqual({ text, pattern, matched });
    }
  });
});
