import { DataSource } from 'typeorm';
import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { request as httpRequest } from 'undici';
import { CHANNEL_OUTCOMES_QUEUE, ChannelOutcomeReporter } from '#server/modules/channel-health/index';
import { CHANNEL_TESTS_QUEUE } from '#server/modules/channel-health/runs/channel-run-queues';
import { CommandBus } from '@nestjs/cqrs';
import { TestChannelCommand } from '#server/modules/channel-health/usecases/test-channel/test-channel.command';
import { ChannelHealthUpstreamFake } from '../fakes/upstreams/channel-health-upstream-fake';
import { createTestApp, type TestApp } from '../support/app';
import { call, type Caller, dataSource, projected, rootCaller, seedCaller, setOptions } from './users-support';

/**
 * Channel workers end to end: the test route and the balance routes against fake upstreams, and the outcome
 * queue consumed by the real worker role, asserting what the channel API returns.
 */
describe('channel health', () => {
  let target: TestApp;
  let root: Caller;
  let healthy: ChannelHealthUpstreamFake;
  let revoked: ChannelHealthUpstreamFake;
  let flaky: ChannelHealthUpstreamFake;
  let empty: ChannelHealthUpstreamFake;

  async function createChannel(name: string, fake: ChannelHealthUpstreamFake, overrides: Record<string, unknown> = {}): Promise<number> {
    const response = await call(target, root, 'post', '/api/channel/', {
      type: 1,
      key: 'sk-upstream-good',
      name,
      base_url: fake.baseUrl,
      models: 'gpt-4o-mini',
      group: 'default',
      auto_ban: 1,
      ...overrides,
    }).expect(200);
    if (!response.body.success) throw new Error(`channel create refused: ${JSON.stringify(response.body)}`);
    const rows: Array<{ id: number }> = await dataSource(target).query('SELECT id FROM channels WHERE name = $1 ORDER BY id DESC LIMIT 1', [
      name,
    ]);
    return rows[0].id;
  }

  async function channel(id: number): Promise<Record<string, any>> {
    await projected(target);
    const response = await call(target, root, 'get', `/api/channel/${id}`).expect(200);
    if (!response.body.success) throw new Error(`channel ${id}: ${JSON.stringify(response.body)}`);
    return response.body.data;
  }

  function statusReason(row: Record<string, any>): string {
    const info = typeof row.other_info === 'string' ? JSON.parse(row.other_info || '{}') : (row.other_info ?? {});
    return String(info.status_reason ?? '');
  }

  async function channelEvents(id: number): Promise<Array<{ type: string; data: Record<string, any>; metadata: Record<string, any> }>> {
    return dataSource(target).query('SELECT type, data, metadata FROM events WHERE stream_id = $1 ORDER BY revision', [`channel-${id}`]);
  }

  async function drained(queue: Queue, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
      if (Object.values(counts).every((count) => count === 0)) return;
      if (Date.now() > deadline) throw new Error(`queue still busy: ${JSON.stringify(counts)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  beforeAll(async () => {
    healthy = await new ChannelHealthUpstreamFake().start();
    revoked = await new ChannelHealthUpstreamFake().start();
    revoked.mode = 'revoked';
    flaky = await new ChannelHealthUpstreamFake().start();
    flaky.mode = 'flaky';
    empty = await new ChannelHealthUpstreamFake().start();
    empty.balance = 0;
    target = await createTestApp();
    root = await rootCaller(target);
    await setOptions(target, {
      AutomaticDisableChannelEnabled: 'true',
      AutomaticEnableChannelEnabled: 'true',
      ChannelDisableThreshold: '5',
    });
  });

  afterAll(async () => {
    await target?.close();
    for (const fake of [healthy, revoked, flaky, empty]) await fake?.close();
  });

  const abilitiesEnabled = async (id: number): Promise<boolean[]> => {
    const rows: Array<{ enabled: boolean }> = await target.app
      .get(DataSource)
      .query('SELECT DISTINCT enabled FROM abilities WHERE channel_id = $1', [id]);
    return rows.map((row) => row.enabled);
  };

  it('tests a channel: {success, message, time} with time in seconds, and records the response time', async () => {
    const id = await createChannel('healthy', healthy);
    const before = healthy.chatRequests;
    const response = await call(target, root, 'get', `/api/channel/test/${id}`).expect(200);
    expect(response.body).toEqual({ success: true, message: '', time: expect.any(Number) });
    expect(response.body.time).toBeLessThan(5);
    expect(healthy.chatRequests).toBe(before + 1);
    const sent = JSON.parse(healthy.requests[healthy.requests.length - 1].body);
    expect(sent).toEqual({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 1 });
    const row = await channel(id);
    expect(row.status).toBe(1);
    expect(row.response_time).toBe(Math.round(response.body.time * 1000));
    expect(row.test_time).toBeGreaterThan(0);
    const tested = (await channelEvents(id)).filter((event) => event.type === 'ChannelTested');
    expect(tested).toHaveLength(1);
    expect(tested[0].data).toMatchObject({ ok: true, model: 'gpt-4o-mini', error: null });
  });

  it('uses ?model= with the channel model mapping', async () => {
    const id = await createChannel('mapped', healthy, {
      models: 'gpt-4o-mini,alias',
      model_mapping: JSON.stringify({ alias: 'gpt-4o-2024-08-06' }),
    });
    await call(target, root, 'get', `/api/channel/test/${id}?model=alias`).expect(200);
    expect(JSON.parse(healthy.requests[healthy.requests.length - 1].body).model).toBe('gpt-4o-2024-08-06');
  });

  it('a revoked key (401) disables the channel at once with the reason, and a recovered one is enabled by the next test', async () => {
    const id = await createChannel('revoked', revoked);
    const response = await call(target, root, 'get', `/api/channel/test/${id}`).expect(200);
    expect(response.body).toEqual({
      success: false,
      message: expect.stringContaining('Incorrect API key provided'),
      time: expect.any(Number),
    });
    const disabled = await channel(id);
    expect(disabled.status).toBe(3);
    expect(statusReason(disabled)).toContain('Incorrect API key provided');
    const auto = (await channelEvents(id)).find((event) => event.type === 'ChannelAutoDisabled');
    expect(auto?.data).toMatchObject({
      reasonCode: 'fatal_upstream_error',
      evidence: { lastStatus: 401, lastErrorCode: 'invalid_api_key', source: 'test' },
    });
    expect(auto?.metadata.reasonCode).toBe('fatal_upstream_error');
    // The routing rows follow the automatic decision, as they follow an admin's.
    expect(await abilitiesEnabled(id)).toEqual([false]);

    revoked.mode = 'ok';
    expect((await call(target, root, 'get', `/api/channel/test/${id}`).expect(200)).body.success).toBe(true);
    expect((await channel(id)).status).toBe(1);
    expect(await abilitiesEnabled(id)).toEqual([true]);
    const enabled = (await channelEvents(id)).find((event) => event.type === 'ChannelAutoEnabled');
    expect(enabled?.data).toMatchObject({ reasonCode: 'test_passed', evidence: { lastStatus: 200 } });
    revoked.mode = 'revoked';
  });

  it('never auto-enables a channel an admin disabled, however well it tests', async () => {
    const id = await createChannel('manual', healthy);
    const update = await call(target, root, 'put', '/api/channel/', { id, status: 2 }).expect(200);
    expect(update.body.success).toBe(true);
    expect((await channel(id)).status).toBe(2);
    expect((await call(target, root, 'get', `/api/channel/test/${id}`).expect(200)).body.success).toBe(true);
    expect((await channel(id)).status).toBe(2);
    expect((await channelEvents(id)).map((event) => event.type)).not.toContain('ChannelAutoEnabled');
  });

  it('leaves a channel alone when auto_ban is off or AutomaticDisableChannelEnabled is off', async () => {
    const noBan = await createChannel('no-ban', revoked, { auto_ban: 0 });
    expect((await call(target, root, 'get', `/api/channel/test/${noBan}`).expect(200)).body.success).toBe(false);
    expect((await channel(noBan)).status).toBe(1);
    await setOptions(target, { AutomaticDisableChannelEnabled: 'false' });
    try {
      const switchedOff = await createChannel('switch-off', revoked);
      expect((await call(target, root, 'get', `/api/channel/test/${switchedOff}`).expect(200)).body.success).toBe(false);
      expect((await channel(switchedOff)).status).toBe(1);
    } finally {
      await setOptions(target, { AutomaticDisableChannelEnabled: 'true' });
    }
  });

  it('relay outcomes through the worker: 2% random 5xx over 1,000 requests never disables; a 401 disables at once', async () => {
    const id = await createChannel('flaky', flaky);
    const reporter = target.app.get(ChannelOutcomeReporter, { strict: false });
    const outcomes = target.app.get<Queue>(getQueueToken(CHANNEL_OUTCOMES_QUEUE), { strict: false });
    // What the relay does per attempt: call the upstream, report how it went.
    for (let index = 0; index < 1000; index++) {
      const answer = await httpRequest(`${flaky.baseUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: 'Bearer sk-upstream-good', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `q${index}` }] }),
      });
      const body = (await answer.body.json()) as { error?: { message: string; code: string | null } };
      reporter.report({
        channelId: id,
        ok: answer.statusCode === 200,
        status: answer.statusCode,
        errorCode: body.error?.code ?? null,
        message: body.error?.message ?? '',
        source: 'relay',
      });
    }
    expect(flaky.chatFailures).toBeGreaterThanOrEqual(8);
    expect(flaky.chatFailures).toBeLessThanOrEqual(40);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await drained(outcomes);
    expect((await channel(id)).status).toBe(1);
    expect((await channelEvents(id)).map((event) => event.type)).not.toContain('ChannelAutoDisabled');

    reporter.report({
      channelId: id,
      ok: false,
      status: 401,
      errorCode: 'invalid_api_key',
      message: 'Incorrect API key provided',
      source: 'relay',
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await drained(outcomes);
    const row = await channel(id);
    expect(row.status).toBe(3);
    expect(statusReason(row)).toBe('Incorrect API key provided');
    const auto = (await channelEvents(id)).filter((event) => event.type === 'ChannelAutoDisabled');
    expect(auto).toHaveLength(1);
    expect(auto[0].data).toMatchObject({ reasonCode: 'fatal_upstream_error', evidence: { source: 'relay', lastStatus: 401 } });
    expect(auto[0].data.evidence.windowTotal).toBeGreaterThan(900);
  });

  it('relay outcomes through the worker: a fatal error type behind another code (a 400) disables at once', async () => {
    const id = await createChannel('fatal-type', flaky);
    const reporter = target.app.get(ChannelOutcomeReporter, { strict: false });
    const outcomes = target.app.get<Queue>(getQueueToken(CHANNEL_OUTCOMES_QUEUE), { strict: false });
    // {"error":{"type":"authentication_error","code":"key_revoked"}} at status 400: the code is no fatal one, the type is.
    reporter.report({
      channelId: id,
      ok: false,
      status: 400,
      errorCode: 'key_revoked',
      errorType: 'authentication_error',
      message: 'key revoked',
      source: 'relay',
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await drained(outcomes);
    expect((await channel(id)).status).toBe(3);
    const auto = (await channelEvents(id)).filter((event) => event.type === 'ChannelAutoDisabled');
    expect(auto[0]?.data).toMatchObject({
      reasonCode: 'fatal_upstream_error',
      evidence: { source: 'relay', lastStatus: 400, lastErrorCode: 'key_revoked' },
    });
  });

  it('relay outcomes: a channel failing most requests is disabled with the counts as evidence', async () => {
    const id = await createChannel('down', flaky);
    const reporter = target.app.get(ChannelOutcomeReporter, { strict: false });
    const outcomes = target.app.get<Queue>(getQueueToken(CHANNEL_OUTCOMES_QUEUE), { strict: false });
    for (let index = 0; index < 30; index++) {
      reporter.report({ channelId: id, ok: false, status: 502, errorCode: null, message: 'Bad gateway', source: 'relay' });
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    await drained(outcomes);
    expect((await channel(id)).status).toBe(3);
    const auto = (await channelEvents(id)).filter((event) => event.type === 'ChannelAutoDisabled');
    expect(auto).toHaveLength(1);
    expect(auto[0].data).toMatchObject({
      reasonCode: 'failure_rate_exceeded',
      evidence: { lastStatus: 502, lastMessage: 'Bad gateway', windowSeconds: 60 },
    });
    // Four workers decide concurrently, so the deciding outcome may see a failure or two past the minimum of 20.
    const { windowFailures, windowTotal } = auto[0].data.evidence;
    expect(windowFailures).toBeGreaterThanOrEqual(20);
    expect(windowFailures).toBeLessThan(30);
    expect(windowFailures / windowTotal).toBeGreaterThan(0.5);
  });

  it('updates one balance (OpenAI dashboard, SiliconCloud) and answers 尚未实现 for a type without one', async () => {
    const openai = await createChannel('balance-openai', healthy);
    const response = await call(target, root, 'get', `/api/channel/update_balance/${openai}`).expect(200);
    expect(response.body).toEqual({ success: true, message: '', balance: 42.5 });
    const row = await channel(openai);
    expect(row.balance).toBe(42.5);
    expect(row.balance_updated_time).toBeGreaterThan(0);
    expect(healthy.requests.some((entry) => entry.url.startsWith('/v1/dashboard/billing/usage?start_date='))).toBe(true);

    const silicon = await createChannel('balance-silicon', healthy, { type: 40 });
    expect((await call(target, root, 'get', `/api/channel/update_balance/${silicon}`).expect(200)).body).toEqual({
      success: true,
      message: '',
      balance: 42.5,
    });

    const claude = await createChannel('balance-claude', healthy, { type: 14, models: 'claude-3-5-sonnet-20240620' });
    expect((await call(target, root, 'get', `/api/channel/update_balance/${claude}`).expect(200)).body).toEqual({
      success: false,
      message: '尚未实现',
    });
    expect((await channelEvents(claude)).map((event) => event.type)).not.toContain('ChannelBalanceUpdated');
  });

  it('answers an unreachable upstream balance as a failed query (success:false), not a 500, and records nothing', async () => {
    const unreachable = await createChannel('balance-unreachable', healthy, { base_url: 'http://127.0.0.1:1' });
    const response = await call(target, root, 'get', `/api/channel/update_balance/${unreachable}`).expect(200);
    expect(response.body).toEqual({ success: false, message: expect.stringMatching(/^request to the upstream failed: /) });
    expect((await channelEvents(unreachable)).map((event) => event.type)).not.toContain('ChannelBalanceUpdated');
  });

  it('updates every balance in the worker and disables an enabled channel with no balance left (余额不足)', async () => {
    const broke = await createChannel('broke', empty);
    const funded = await createChannel('funded', healthy);
    const started = (await call(target, root, 'get', '/api/channel/update_balance').expect(200)).body;
    // data.queued: the enabled channels of a type with a balance query (more than the two made here).
    expect(started).toEqual({ success: true, message: '', data: { queued: expect.any(Number) } });
    expect(started.data.queued).toBeGreaterThanOrEqual(2);
    const balances = target.app.get<Queue>(getQueueToken('channel-balances'), { strict: false });
    await drained(balances);
    const brokeRow = await channel(broke);
    expect(brokeRow.status).toBe(3);
    expect(statusReason(brokeRow)).toBe('余额不足');
    const fundedRow = await channel(funded);
    expect(fundedRow.status).toBe(1);
    expect(fundedRow.balance).toBe(42.5);
  });

  it('tests every channel as queued jobs, answering at once, one run at a time', async () => {
    const tests = target.app.get<Queue>(getQueueToken(CHANNEL_TESTS_QUEUE), { strict: false });
    let queued = 0;
    healthy.delayMs = 150;
    try {
      const first = await call(target, root, 'get', '/api/channel/test').expect(200);
      expect(first.body).toEqual({ success: true, message: '', data: { queued: expect.any(Number) } });
      queued = first.body.data.queued;
      const second = await call(target, root, 'get', '/api/channel/test').expect(200);
      expect(second.body).toEqual({ success: false, message: '测试已在运行中' });
      await drained(tests);
    } finally {
      healthy.delayMs = 0;
    }
    const ids: Array<{ id: number }> = await dataSource(target).query('SELECT id FROM channels ORDER BY id');
    expect(queued).toBe(ids.length);
    const completed = await tests.getCompleted();
    for (const { id } of ids) {
      const job = completed.find((entry) => entry.data.channelId === id);
      expect(job?.progress).toBe(100);
    }
    // The revoked channel was tested again and stays auto-disabled; the manually disabled one stays manual.
    const rows = await Promise.all(ids.map(({ id }) => channel(id)));
    expect(rows.find((row) => row.name === 'manual')?.status).toBe(2);
    expect(rows.find((row) => row.name === 'revoked')?.status).toBe(3);
    expect(rows.every((row) => row.test_time > 0)).toBe(true);
  });

  it('leaves ChannelDisableThreshold to the test-all run: a slow channel tested alone stays enabled', async () => {
    const id = await createChannel('slow', healthy);
    healthy.delayMs = 150;
    await setOptions(target, { ChannelDisableThreshold: '0.05' });
    try {
      const response = await call(target, root, 'get', `/api/channel/test/${id}`).expect(200);
      expect(response.body).toEqual({ success: true, message: '', time: expect.any(Number) });
      const row = await channel(id);
      expect(row.status).toBe(1);
      expect(row.response_time).toBeGreaterThanOrEqual(150);
      expect((await channelEvents(id)).map((event) => event.type)).not.toContain('ChannelAutoDisabled');

      // The same test as the test-all worker runs it (no `single`): now the rule applies, with its reason.
      const result = await target.app.get(CommandBus).execute(
        new TestChannelCommand({
          channelId: id,
          causeKey: 'test-all-slow',
          correlationId: 'test-all-slow',
          actor: { type: 'system' },
          clientIp: null,
        }),
      );
      expect(result.decision).toBe('disable');
      await projected(target);
      const disabled = await channel(id);
      expect(disabled.status).toBe(3);
      expect(statusReason(disabled)).toMatch(/^响应时间 \d+\.\d{2}s 超过阈值 0\.05s$/);
    } finally {
      healthy.delayMs = 0;
      await setOptions(target, { ChannelDisableThreshold: '5' });
    }
  });

  it('refuses bad input and non-admins without changing anything', async () => {
    expect((await call(target, root, 'get', '/api/channel/test/abc').expect(200)).body).toEqual({ success: false, message: '无效的参数' });
    expect((await call(target, root, 'get', '/api/channel/test/999999').expect(200)).body).toMatchObject({
      success: false,
      message: '渠道不存在',
    });
    expect((await call(target, root, 'get', '/api/channel/update_balance/-1').expect(200)).body).toEqual({
      success: false,
      message: '无效的参数',
    });
    const user = await seedCaller(target, { username: 'plain-user' });
    const head = await dataSource(target).query('SELECT count(*)::int AS count FROM events');
    for (const path of ['/api/channel/test/1', '/api/channel/test', '/api/channel/update_balance/1', '/api/channel/update_balance']) {
      const response = await call(target, user, 'get', path);
      expect(response.body.success).toBe(false);
    }
    expect(await dataSource(target).query('SELECT count(*)::int AS count FROM events')).toEqual(head);
  });
});
