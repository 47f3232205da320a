import { getQueueToken } from '@nestjs/bullmq';
import { CommandBus } from '@nestjs/cqrs';
import type { Queue } from 'bullmq';
import { ProjectionRunner } from '#projections/runner/projection-runner';
import { CHANNEL_TESTS_QUEUE } from '#server/modules/channel-health/runs/channel-run-queues';
import { FinishChannelTestRunCommand } from '#server/modules/channel-health/usecases/finish-channel-test-run/finish-channel-test-run.command';
import { SmtpFake } from '../fakes/smtp-fake';
import { ChannelHealthUpstreamFake } from '../fakes/upstreams/channel-health-upstream-fake';
import { createTestApp, type TestApp } from '../support/app';
import { compareTables, snapshotTables } from '../support/compare-tables';
import { smtpOptions } from './auth-support';
import { balanceRow, call, type Caller, dataSource, projected, rootCaller, setOptions } from './users-support';

/**
 * The channel test's consume log row (as new-api writes it: user 1, "模型测试", not charged) as a ledger event
 * the logs projection folds, and the root's mail "通道测试完成" at the end of a manual test-all run.
 */
describe('channel test: log row and end-of-run mail', () => {
  let target: TestApp;
  let root: Caller;
  let healthy: ChannelHealthUpstreamFake;
  let revoked: ChannelHealthUpstreamFake;
  let smtp: SmtpFake;
  const ROOT_EMAIL = 'root@tollgate.test';

  beforeAll(async () => {
    healthy = await new ChannelHealthUpstreamFake().start();
    revoked = await new ChannelHealthUpstreamFake().start();
    revoked.mode = 'revoked';
    smtp = await SmtpFake.start();
    target = await createTestApp();
    root = await rootCaller(target);
    await dataSource(target).query('UPDATE users SET email = $1 WHERE id = $2', [ROOT_EMAIL, root.id]);
    await setOptions(target, { ...smtpOptions(smtp), AutomaticDisableChannelEnabled: 'true', AutomaticEnableChannelEnabled: 'true' });
  });

  afterAll(async () => {
    await target?.close();
    for (const fake of [healthy, revoked]) await fake?.close();
    await smtp?.close();
  });

  async function createChannel(name: string, fake: ChannelHealthUpstreamFake, overrides: Record<string, unknown> = {}): Promise<number> {
    const response = await call(target, root, 'post', '/api/channel/', {
      type: 1,
      key: 'sk-upstream-good',
      name,
      base_url: fake.baseUrl,
      models: 'gpt-4o-mini',
      group: 'default',
      ...overrides,
    }).expect(200);
    if (!response.body.success) throw new Error(`channel create refused: ${JSON.stringify(response.body)}`);
    const rows: Array<{ id: number }> = await dataSource(target).query('SELECT id FROM channels WHERE name = $1 ORDER BY id DESC LIMIT 1', [
      name,
    ]);
    return rows[0].id;
  }

  async function testRows(): Promise<Array<Record<string, any>>> {
    const response = await call(target, root, 'get', '/api/log/?type=2&page_size=100').expect(200);
    expect(response.body.success).toBe(true);
    return response.body.data.items.filter((item: Record<string, unknown>) => item.token_name === '模型测试');
  }

  const testLogEvents = async () =>
    (await dataSource(target).query("SELECT count(*)::int AS count FROM events WHERE stream_id = 'logs' AND type = 'ChannelTestLogged'"))[0]
      .count as number;

  async function drained(queue: Queue, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
      if (Object.values(counts).every((count) => count === 0)) return;
      if (Date.now() > deadline) throw new Error(`queue still busy: ${JSON.stringify(counts)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('logs a passed test as the new-api consume row of user 1 ("模型测试", quota at group ratio 1), charging nobody', async () => {
    expect(root.id).toBe(1);
    const id = await createChannel('logged', healthy);
    await projected(target);
    const balanceBefore = await balanceRow(target, 1);
    const accountEventsBefore = await dataSource(target).query("SELECT count(*)::int AS count FROM events WHERE stream_id = 'account-1'");

    const response = await call(target, root, 'get', `/api/channel/test/${id}`).expect(200);
    expect(response.body).toEqual({ success: true, message: '', time: expect.any(Number) });

    // The answer waited for the projection: the row is listed at once.
    const rows = await testRows();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toEqual({
      id: expect.any(Number),
      user_id: 1,
      created_at: expect.any(Number),
      type: 2,
      content: '模型测试',
      username: 'root',
      token_name: '模型测试',
      model_name: 'gpt-4o-mini',
      // (8 prompt + round(1 completion × 4)) × 0.075 = 0.9, at least 1 (as new-api).
      quota: 1,
      prompt_tokens: 8,
      completion_tokens: 1,
      use_time: 0,
      is_stream: false,
      channel: id,
      token_id: 0,
      group: '',
      other: JSON.stringify({
        admin_info: { use_channel: [String(id)] },
        cache_tokens: 0,
        completion_ratio: 4,
        frt: -1000,
        group_ratio: 1,
        model_price: -1,
        model_ratio: 0.075,
      }),
    });
    expect(Math.abs(rows[0].created_at - Date.now() / 1000)).toBeLessThan(30);
    // Not charged: root's balance and account stream are untouched.
    expect(await balanceRow(target, 1)).toEqual(balanceBefore);
    expect(await dataSource(target).query("SELECT count(*)::int AS count FROM events WHERE stream_id = 'account-1'")).toEqual(
      accountEventsBefore,
    );
    // The row comes from an event on `logs` with the test's metadata.
    const [event] = await dataSource(target).query(
      "SELECT data, metadata FROM events WHERE stream_id = 'logs' AND type = 'ChannelTestLogged'",
    );
    expect(event.data).toMatchObject({
      userId: 1,
      channelId: id,
      modelName: 'gpt-4o-mini',
      quota: 1,
      promptTokens: 8,
      completionTokens: 1,
    });
    expect(event.metadata).toMatchObject({ reasonCode: 'channel_test', actor: { type: 'user', userId: root.id } });
  });

  it('logs the model asked for, prices a fixed-price model by its price, and notes a mapping', async () => {
    const id = await createChannel('priced', healthy, { models: 'dall-e-3,alias', model_mapping: JSON.stringify({ alias: 'dall-e-3' }) });
    await call(target, root, 'get', `/api/channel/test/${id}?model=alias`).expect(200);
    const [row] = (await testRows()).filter((item) => item.channel === id);
    // alias has no price or ratio of its own: ratio 30 (new-api's ratio for an unknown model).
    expect(row).toMatchObject({ model_name: 'alias', quota: Math.round((8 + 1) * 30) });
    expect(JSON.parse(row.other)).toMatchObject({ is_model_mapped: true, upstream_model_name: 'dall-e-3', model_ratio: 30 });
    await call(target, root, 'get', `/api/channel/test/${id}?model=dall-e-3`).expect(200);
    const priced = (await testRows()).filter((item) => item.channel === id && item.model_name === 'dall-e-3');
    // ModelPrice dall-e-3 = $0.04 per call → 0.04 × 500000.
    expect(priced).toHaveLength(1);
    expect(priced[0]).toMatchObject({ quota: 20_000 });
    expect(JSON.parse(priced[0].other)).toMatchObject({ model_price: 0.04 });
  });

  it('logs nothing for a failed test, nor when LogConsumeEnabled is off', async () => {
    const before = await testLogEvents();
    const bad = await createChannel('revoked', revoked);
    const failed = await call(target, root, 'get', `/api/channel/test/${bad}`).expect(200);
    expect(failed.body.success).toBe(false);
    expect(await testLogEvents()).toBe(before);

    const good = await createChannel('quiet', healthy);
    await setOptions(target, { LogConsumeEnabled: 'false' });
    try {
      expect((await call(target, root, 'get', `/api/channel/test/${good}`).expect(200)).body.success).toBe(true);
    } finally {
      await setOptions(target, { LogConsumeEnabled: 'true' });
    }
    expect(await testLogEvents()).toBe(before);
  });

  it('a test-all run logs each passing channel once and mails root "通道测试完成" once at the end', async () => {
    const tests = target.app.get<Queue>(getQueueToken(CHANNEL_TESTS_QUEUE), { strict: false });
    const before = await testLogEvents();
    const passing: Array<{ count: number }> = await dataSource(target).query(
      'SELECT count(*)::int AS count FROM channels WHERE base_url = $1',
      [healthy.baseUrl],
    );
    healthy.delayMs = 100;
    try {
      const started = await call(target, root, 'get', '/api/channel/test').expect(200);
      expect(started.body).toEqual({ success: true, message: '', data: { queued: expect.any(Number) } });
      await drained(tests);
    } finally {
      healthy.delayMs = 0;
    }
    const mail = await smtp.waitFor((candidate) => candidate.subject === '通道测试完成');
    expect(mail.to).toEqual([ROOT_EMAIL]);
    expect(mail.body).toContain('通道测试完成，如果没有收到禁用通知，说明所有通道都正常');
    // Each passing channel (test model: its first model) logged once; the revoked one not at all.
    expect(await testLogEvents()).toBe(before + passing[0].count);
    // Give a duplicate time to arrive: there is none.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(smtp.messages.filter((candidate) => candidate.subject === '通道测试完成')).toHaveLength(1);
  });

  it('mails nothing for a scheduled run, and a run is mailed once however many workers see its end', async () => {
    const bus = target.app.get(CommandBus);
    expect(await bus.execute(new FinishChannelTestRunCommand({ runId: 'periodic-1732000000000' }))).toEqual({ mailed: false });
    const results = await Promise.all([1, 2, 3].map(() => bus.execute(new FinishChannelTestRunCommand({ runId: 'test-manual-once' }))));
    expect(results.filter((result) => result.mailed)).toHaveLength(1);
    await smtp.waitFor(
      (candidate) => candidate.subject === '通道测试完成' && smtp.messages.filter((m) => m.subject === '通道测试完成').length === 2,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(smtp.messages.filter((candidate) => candidate.subject === '通道测试完成')).toHaveLength(2);
  });

  it('rebuild equals live: the test rows come back from the ledger with the same ids', async () => {
    await projected(target);
    const tables = ['logs', 'log_purges', 'account_balances'];
    const live = await snapshotTables(dataSource(target), tables);
    expect((await testRows()).length).toBeGreaterThan(2);
    await dataSource(target).query("DELETE FROM logs WHERE token_name = '模型测试'");
    await target.app.get(ProjectionRunner).rebuild({ projections: ['logs', 'account-balances'] });
    const comparison = await compareTables(live, dataSource(target), tables);
    expect(comparison.summary).toMatch(/^equal/);
  });
});
