import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OpenAIUpstreamFake } from '../../../../test/fakes/upstreams/openai-upstream-fake';
import { createTestApp, type TestApp } from '../../../../test/support/app';
import { dataSource, projected, register, setOptions } from '../../../../test/e2e/users-support';
import { EVENT_STORE } from '../../ledger/event-store.port';
import { classifyOutcome, type ChannelOutcome, decideOnOutcome } from '../../modules/channel-health/channel-health.decider';
import { OptionsService } from '../../modules/options';
import { readRelayKey } from '../../modules/tokens';
import { QuotaAdmissionService } from '../admission/quota-admission.service';
import { PricingService } from '../../modules/pricing';
import { RelayError } from '../relay-error';
import type { RelayAuthenticator, RelayCaller, RelayChannelOutcome, RelayChannelRouter, RoutableChannel } from '../relay-ports';
import { RelaySettlementService } from '../settlement/relay-settlement.service';
import { UpstreamHttpClient } from '../upstream-client/upstream-http-client';
import { relayModeOf } from './relay-request';
import { RelayPipelineService } from './relay-pipeline.service';

jest.setTimeout(30_000);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const json = (response: Response): Promise<any> => response.json();

function channel(id: number, baseUrl: string, priority: number, extra: Partial<RoutableChannel> = {}): RoutableChannel {
  return {
    id, type: 1, name: `ch${id}`, key: `key-${id}`, baseUrl, models: ['gpt-3.5-turbo'], modelMapping: {}, groups: ['default'],
    priority, weight: 0, autoBan: false, other: '', config: {}, headerOverride: {}, paramOverride: {}, openaiOrganization: null,
    statusCodeMapping: {}, testModel: null, status: 1, ...extra,
  };
}

/** In-test router (contract 2): priority tiers highest first, `exclude` honoured when another channel exists. */
class TestRouter implements RelayChannelRouter {
  constructor(public channels: RoutableChannel[]) {}
  select(group: string, model: string, options: { retry?: number; exclude?: ReadonlySet<number> } = {}) {
    const able = this.channels.filter((c) => c.groups.includes(group) && c.models.includes(model));
    if (able.length === 0) return null;
    const tiers = [...new Set(able.map((c) => c.priority))].sort((a, b) => b - a);
    const tier = tiers[Math.min(options.retry ?? 0, tiers.length - 1)];
    const inTier = able.filter((c) => c.priority === tier);
    const fresh = inTier.filter((c) => !options.exclude?.has(c.id));
    return (fresh.length ? fresh : inTier)[0];
  }
  get(id: number) {
    return this.channels.find((c) => c.id === id) ?? null;
  }
  modelsForGroup() {
    return ['gpt-3.5-turbo'];
  }
}

/**
 * The pipeline with the real ledger, admission, options and upstream HTTP, and in-test implementations of the
 * token and channel contracts: settlement, release, retries over tiers and the forced channel.
 */
describe('RelayPipelineService (real ledger and Redis, in-test auth and routing)', () => {
  let target: TestApp;
  let server: Server;
  let url: string;
  let caller: RelayCaller;
  const primary = new OpenAIUpstreamFake();
  const backup = new OpenAIUpstreamFake();
  const outcomes: RelayChannelOutcome[] = [];
  const clientWrites: string[][] = [];
  let router: TestRouter;
  let settlement: RelaySettlementService;

  beforeAll(async () => {
    await Promise.all([primary.start(), backup.start()]);
    backup.reply = 'Answer from the backup.';
    target = await createTestApp();
    await setOptions(target, { QuotaForNewUser: '100000', RetryTimes: '2' });
    const user = await register(target, 'pipeline');
    await projected(target);
    caller = {
      token: { id: 0, name: 'test', key: 'k', group: '', unlimitedQuota: true, modelLimits: null },
      user: { id: user.id, username: 'pipeline', group: 'default', role: 1 },
      group: 'default',
      specificChannelId: null,
    };
    // Reads the key as the token authenticator does (token-key.ts): from the one header value it is given.
    const authenticator: RelayAuthenticator = {
      async authenticate(authorization) {
        const { key, channelPart } = readRelayKey({ authorization });
        if (key === 'good' && channelPart === undefined) return caller;
        if (key === 'good' && channelPart === '2') return { ...caller, specificChannelId: 2 };
        throw new RelayError(401, key === '' ? '未提供令牌' : '无效的令牌');
      },
    };
    router = new TestRouter([channel(1, primary.baseUrl, 10), channel(2, backup.baseUrl, 0)]);
    const app = target.app;
    const admission = app.get(QuotaAdmissionService, { strict: false });
    const options = app.get(OptionsService, { strict: false });
    settlement = new RelaySettlementService(app.get(EVENT_STORE, { strict: false }), admission);
    const build = () =>
      new RelayPipelineService(authenticator, router, { report: (outcome) => outcomes.push(outcome) }, admission, settlement, new PricingService(options), options, new UpstreamHttpClient());
    const pipeline = build();
    // The same pipeline with RELAY_TIMEOUT and STREAMING_TIMEOUT at 1 s (read when the service is made), for the
    // requests that carry `x-test-pipeline: timeouts`.
    const saved = { RELAY_TIMEOUT: process.env.RELAY_TIMEOUT, STREAMING_TIMEOUT: process.env.STREAMING_TIMEOUT };
    process.env.RELAY_TIMEOUT = '1';
    process.env.STREAMING_TIMEOUT = '1';
    const timeoutPipeline = build();
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    server = createServer((request, response) => {
      // What the pipeline writes to the client, write by write (the first-event test reads it).
      const written: string[] = [];
      clientWrites.push(written);
      const write = response.write.bind(response) as (chunk: unknown, ...rest: unknown[]) => boolean;
      response.write = ((chunk: unknown, ...rest: unknown[]) => {
        written.push(Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk));
        return write(chunk, ...rest);
      }) as typeof response.write;
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const [path, query = ''] = (request.url ?? '/').split('?');
        const controller = new AbortController();
        response.once('close', () => !response.writableFinished && controller.abort());
        void (request.headers['x-test-pipeline'] === 'timeouts' ? timeoutPipeline : pipeline).handle(
          { requestId: randomUUID(), path, query, headers: request.headers, rawBody: Buffer.concat(chunks), clientIp: '127.0.0.1', signal: controller.signal },
          response,
          relayModeOf(path)!,
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await target?.close();
    await Promise.all([primary.close(), backup.close()]);
  });

  const chat = (body: Record<string, unknown>, key = 'sk-good') =>
    fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  async function charges(requestId: string) {
    return dataSource(target).query(`SELECT data FROM events WHERE type = 'QuotaConsumed' AND data->>'requestId' = $1`, [requestId]);
  }

  async function available() {
    return (await target.app.get(QuotaAdmissionService, { strict: false }).available(caller.user.id)).user;
  }

  it('keeps the reservation held when the charge could not be confirmed (the append may have committed)', async () => {
    const before = await available();
    const spy = jest.spyOn(settlement, 'settle').mockRejectedValueOnce(new Error('ledger unreachable'));
    try {
      const response = await chat({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] });
      expect(response.status).toBeGreaterThanOrEqual(500);
      expect(await charges(response.headers.get('x-oneapi-request-id')!)).toHaveLength(0);
    } finally {
      spy.mockRestore();
    }
    // Not released: the lease sweep retires it once the projections pass the head (lease-sweep.int.spec.ts).
    expect(await available()).toBeLessThan(before);
  });

  it('answers, settles once and reports the outcome', async () => {
    const response = await chat({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(200);
    expect((await json(response)).choices[0].message.content).toBe(primary.reply);
    const rows = await charges(response.headers.get('x-oneapi-request-id')!);
    expect(rows).toHaveLength(1);
    expect(rows[0].data).toMatchObject({ channelId: 1, channelPath: [1], quota: 8 });
    expect(outcomes.at(-1)).toMatchObject({ channelId: 1, ok: true, source: 'relay' });
  });

  it('honours LogConsumeEnabled: off records logConsume false in the charge and the log projection writes no type 2 row', async () => {
    const logRowOf = async (requestId: string) => {
      await projected(target);
      const rows: Array<{ type: number }> = await dataSource(target).query(
        `SELECT l.type FROM logs l JOIN events e ON e.position = l.id WHERE e.type = 'QuotaConsumed' AND e.data->>'requestId' = $1`,
        [requestId],
      );
      return rows;
    };
    await setOptions(target, { LogConsumeEnabled: 'false' });
    let quiet: Response;
    try {
      quiet = await chat({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] });
    } finally {
      await setOptions(target, { LogConsumeEnabled: 'true' });
    }
    expect(quiet.status).toBe(200);
    const quietId = quiet.headers.get('x-oneapi-request-id')!;
    const [charge] = await charges(quietId);
    expect(charge.data).toMatchObject({ logConsume: false, quota: 8 });
    expect(await logRowOf(quietId)).toEqual([]);

    const logged = await chat({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] });
    const loggedId = logged.headers.get('x-oneapi-request-id')!;
    // On (the default) the key is left out of the charge: absent reads as true.
    expect((await charges(loggedId))[0].data).not.toHaveProperty('logConsume');
    expect(await logRowOf(loggedId)).toEqual([{ type: 2 }]);
  });

  it('retries a 500 on the next tier and settles once with the channel path', async () => {
    primary.next({ status: 500 });
    const response = await chat({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(200);
    expect((await json(response)).choices[0].message.content).toBe(backup.reply);
    const rows = await charges(response.headers.get('x-oneapi-request-id')!);
    expect(rows).toHaveLength(1);
    expect(rows[0].data).toMatchObject({ channelId: 2, channelPath: [1, 2] });
  });

  it('records facts in the charge, and the log row gets the wording and other JSON the reference shows', async () => {
    const response = await chat({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] });
    const requestId = response.headers.get('x-oneapi-request-id')!;
    const [{ data }] = await charges(requestId);
    for (const rendered of ['content', 'other', 'quotaDisplay']) expect(data).not.toHaveProperty(rendered);
    await projected(target);
    const [row] = await dataSource(target).query(
      `SELECT l.content, l.other FROM logs l JOIN events e ON e.position = l.id WHERE e.type = 'QuotaConsumed' AND e.data->>'requestId' = $1`,
      [requestId],
    );
    expect(row.content).toBe('模型倍率 0.25，补全倍率 3.00，分组倍率 1.00');
    expect(JSON.parse(row.other)).toEqual({
      admin_info: { use_channel: [String(data.channelId)] },
      cache_tokens: 0,
      completion_ratio: 3,
      frt: -1000,
      group_ratio: 1,
      model_price: -1,
      model_ratio: 0.25,
    });
  });

  it('answers the last upstream error (not 获取重试渠道失败) when every attempt fails, releasing the reservation', async () => {
    const before = await available();
    primary.next({ status: 429, body: { error: { message: 'slow down', type: 'rate_limit', param: null, code: 'rate_limit_exceeded' } } });
    backup.next({ status: 429, body: { error: { message: 'slow down', type: 'rate_limit', param: null, code: 'rate_limit_exceeded' } } });
    backup.next({ status: 429, body: { error: { message: 'slow down', type: 'rate_limit', param: null, code: 'rate_limit_exceeded' } } });
    const response = await chat({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(429);
    const body = await json(response);
    expect(body.error).toEqual({
      message: expect.stringMatching(/^当前分组上游负载已饱和，请稍后再试 \(request id: /),
      type: 'rate_limit',
      param: '',
      code: 'rate_limit_exceeded',
    });
    expect(await charges(response.headers.get('x-oneapi-request-id')!)).toHaveLength(0);
    expect(await available()).toBe(before);
  });

  it('does not retry a 400 on an OpenAI channel, nor a forced channel', async () => {
    primary.next({ status: 400, body: { error: { message: 'bad', type: 'invalid_request_error', param: 'x', code: null } } });
    const response = await chat({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(400);
    expect((await json(response)).error).toMatchObject({ type: 'invalid_request_error', param: 'x', code: null });

    backup.next({ status: 500 });
    const forced = await chat({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] }, 'sk-good-2');
    expect(forced.status).toBe(500);
  });

  it('answers an unreachable upstream with 500 do_request_failed and charges nothing', async () => {
    router.channels = [channel(9, 'http://127.0.0.1:1', 0)];
    try {
      const response = await chat({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] });
      expect(response.status).toBe(500);
      expect((await json(response)).error).toMatchObject({ type: 'new_api_error', code: 'do_request_failed', message: expect.stringMatching(/^请求上游地址失败/) });
      expect(await charges(response.headers.get('x-oneapi-request-id')!)).toHaveLength(0);
    } finally {
      router.channels = [channel(1, primary.baseUrl, 10), channel(2, backup.baseUrl, 0)];
    }
  });

  it('streams, hides the usage chunk unless asked, and bills a cut stream for what was delivered', async () => {
    const plain = await chat({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }], stream: true });
    expect(plain.headers.get('content-type')).toBe('text/event-stream');
    const text = await plain.text();
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(text).not.toMatch(/"usage":\{/);
    const [settled] = await charges(plain.headers.get('x-oneapi-request-id')!);
    expect(settled.data).toMatchObject({ isStream: true, promptTokens: 12, completionTokens: 7 });

    primary.next({ cutAfterChunks: 2 });
    const cut = await chat({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }], stream: true });
    const events = (await cut.text()).split('\n\n').filter(Boolean);
    expect(events.at(-1)).toMatch(/^data: \{"error":\{"message":"upstream stream ended before the response was complete \(request id: /);
    const rows = await charges(cut.headers.get('x-oneapi-request-id')!);
    expect(rows).toHaveLength(1);
    expect(rows[0].data.completionTokens).toBeGreaterThan(0);
    expect(rows[0].data.completionTokens).toBeLessThan(7);
    expect(rows[0].data.channelPath).toEqual([1]);
  });

  it('sends the first event of a stream on its own, before transforming the rest of an upstream read that holds them all', async () => {
    primary.next({ oneWrite: true });
    clientWrites.length = 0;
    const streamed = await chat({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }], stream: true });
    const text = await streamed.text();
    const [written] = clientWrites;
    // The first write is exactly the role chunk; the rest of the read follows in one more write, then the end.
    expect(written[0]).toMatch(/^data: \{"id":"chatcmpl-fakestream".*"delta":\{"role":"assistant","content":""\}.*\}\n\n$/);
    expect(written[0].split('\n\n').filter(Boolean)).toHaveLength(1);
    expect(written.length).toBeLessThanOrEqual(3);
    expect(written.join('')).toBe(text.replace(/data: \[DONE\]\n\n$/, '').slice(0, written.join('').length));
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(await charges(streamed.headers.get('x-oneapi-request-id')!)).toHaveLength(1);
  });

  it('refuses bad input in the documented shapes and reserves nothing', async () => {
    const before = await available();
    const malformed = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer sk-good' }, body: '{"model":' });
    expect(malformed.status).toBe(400);
    expect(Object.keys((await json(malformed)).error)).toEqual(['message', 'type']);
    const noMessages = await chat({ model: 'gpt-3.5-turbo' });
    expect((await json(noMessages)).error).toMatchObject({ code: 'invalid_text_request', message: expect.stringMatching(/^field messages is required/) });
    const noChannel = await chat({ model: 'nope', messages: [{ role: 'user', content: 'x' }] });
    expect(noChannel.status).toBe(503);
    expect((await json(noChannel)).error.message).toMatch(/^当前分组 default 下对于模型 nope 无可用渠道/);
    const badToken = await chat({ model: 'gpt-3.5-turbo', messages: [] }, 'sk-bad');
    expect(badToken.status).toBe(401);
    expect(await available()).toBe(before);
  });
  describe('sensitive words (reference §8.1), checked before channel selection and reservation', () => {
    const refusedCleanly = async (response: Response, code: string, message: string, upstreamCallsBefore: number, outcomesBefore: number, availableBefore: number) => {
      expect(response.status).toBe(400);
      expect((await json(response)).error).toEqual({ message: expect.stringMatching(new RegExp(`^${message} \\(request id: `)), type: 'new_api_error', param: '', code });
      expect(primary.requests.length + backup.requests.length).toBe(upstreamCallsBefore);
      expect(outcomes).toHaveLength(outcomesBefore);
      expect(await charges(response.headers.get('x-oneapi-request-id')!)).toHaveLength(0);
      expect(await available()).toBe(availableBefore);
    };

    it('refuses a chat message with TEST_Sensitive (string content) with 400 sensitive_words_detected: no upstream call, no reservation, no QuotaConsumed', async () => {
      const calls = primary.requests.length + backup.requests.length;
      const reported = outcomes.length;
      const before = await available();
      const response = await chat({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'please say TEST_Sensitive twice' }] });
      await refusedCleanly(response, 'sensitive_words_detected', 'sensitive words: test_sensitive', calls, reported, before);
    });

    it('refuses the word inside a text part of array content (the reference never checked arrays)', async () => {
      const calls = primary.requests.length + backup.requests.length;
      const reported = outcomes.length;
      const before = await available();
      const content = [{ type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }, { type: 'text', text: 'what about test_SENSITIVE?' }];
      const response = await chat({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content }] });
      await refusedCleanly(response, 'sensitive_words_detected', 'sensitive words: test_sensitive', calls, reported, before);
    });

    it('lists every word found in list order, answers images with invalid_image_request and speech with sensitive_words_detected', async () => {
      await setOptions(target, { SensitiveWords: 'test_sensitive\nForbidden Fruit\n\n  apple  ' });
      try {
        const calls = primary.requests.length + backup.requests.length;
        const reported = outcomes.length;
        const before = await available();
        const both = await chat({ model: 'gpt-3.5-turbo', messages: [{ role: 'system', content: 'An APPLE' }, { role: 'user', content: 'a forbidden fruit' }] });
        await refusedCleanly(both, 'sensitive_words_detected', 'sensitive words: forbidden fruit,apple', calls, reported, before);
        const post = (path: string, body: Record<string, unknown>) =>
          fetch(`${url}${path}`, { method: 'POST', headers: { authorization: 'Bearer sk-good', 'content-type': 'application/json' }, body: JSON.stringify(body) });
        const image = await post('/v1/images/generations', { model: 'dall-e-3', prompt: 'an apple' });
        await refusedCleanly(image, 'invalid_image_request', 'sensitive words: apple', calls, reported, before);
        const speech = await post('/v1/audio/speech', { model: 'tts-1', input: 'Test_Sensitive', voice: 'alloy' });
        await refusedCleanly(speech, 'sensitive_words_detected', 'sensitive words: test_sensitive', calls, reported, before);
      } finally {
        await setOptions(target, { SensitiveWords: 'test_sensitive' });
      }
    });

    it('lets the same request through when CheckSensitiveEnabled is false (or CheckSensitiveOnPromptEnabled is)', async () => {
      for (const option of ['CheckSensitiveEnabled', 'CheckSensitiveOnPromptEnabled']) {
        await setOptions(target, { [option]: 'false' });
        try {
          const response = await chat({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'please say TEST_Sensitive twice' }] });
          expect(response.status).toBe(200);
          expect(await charges(response.headers.get('x-oneapi-request-id')!)).toHaveLength(1);
        } finally {
          await setOptions(target, { [option]: 'true' });
        }
      }
    });
  });

  describe('RELAY_TIMEOUT and STREAMING_TIMEOUT (1 s here)', () => {
    const send = (body: Record<string, unknown>) =>
      fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: 'Bearer sk-good', 'content-type': 'application/json', 'x-test-pipeline': 'timeouts' },
        body: JSON.stringify({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }], ...body }),
      });

    it('RELAY_TIMEOUT: an upstream slower than it to answer is a failed attempt of that channel; the next one answers', async () => {
      const reported = outcomes.length;
      primary.next({ delayMs: 3_000 });
      const started = Date.now();
      const response = await send({});
      expect(response.status).toBe(200);
      expect((await json(response)).choices[0].message.content).toBe(backup.reply);
      // undici's timers tick every 500 ms for long timeouts: the attempt gives up between 1 and 1.5 s, not at 3 s.
      expect(Date.now() - started).toBeLessThan(2_500);
      expect(outcomes.slice(reported)).toEqual([
        expect.objectContaining({ channelId: 1, ok: false, status: 500 }),
        expect.objectContaining({ channelId: 2, ok: true }),
      ]);
      const rows = await charges(response.headers.get('x-oneapi-request-id')!);
      expect(rows).toHaveLength(1);
      expect(rows[0].data).toMatchObject({ channelId: 2, channelPath: [1, 2] });
    });

    it('STREAMING_TIMEOUT: a stream silent for longer is cut with an error event, billed for what was delivered (the prompt)', async () => {
      primary.chunkDelayMs = 1_600;
      try {
        const response = await send({ stream: true });
        expect(response.status).toBe(200);
        const text = await response.text();
        expect(text).toMatch(/"error"/);
        expect(text).not.toContain('[DONE]');
        await settlement.drain();
        const rows = await charges(response.headers.get('x-oneapi-request-id')!);
        expect(rows).toHaveLength(1);
        // The fake sent its role chunk, then went silent before the first word: the prompt, and no completion.
        expect(rows[0].data).toMatchObject({ completionTokens: 0, promptTokens: expect.any(Number) });
        expect(rows[0].data.promptTokens).toBeGreaterThan(0);
      } finally {
        primary.chunkDelayMs = 0;
      }
    });
  });

  describe('a client that goes away (a user pressing "stop") is no failure of the channel', () => {
    const settleDown = () => new Promise((resolve) => setTimeout(resolve, 400));

    it('non-streaming: the aborted call is not reported, no other channel is tried, nothing is charged or held', async () => {
      const reported = outcomes.length;
      const backupCalls = backup.requests.length;
      const before = await available();
      primary.next({ delayMs: 300 });
      const controller = new AbortController();
      const pending = fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: 'Bearer sk-good', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] }),
        signal: controller.signal,
      });
      setTimeout(() => controller.abort(), 100);
      await expect(pending).rejects.toThrow();
      await settleDown();
      expect(outcomes.slice(reported)).toEqual([]);
      expect(backup.requests.length).toBe(backupCalls);
      expect(await available()).toBe(before);
    });

    it('streaming: a stream the client left is not reported as a failure (it is billed for what was delivered)', async () => {
      const reported = outcomes.length;
      primary.chunkDelayMs = 100;
      try {
        const controller = new AbortController();
        const response = await fetch(`${url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: 'Bearer sk-good', 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'gpt-3.5-turbo', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
          signal: controller.signal,
        });
        const requestId = response.headers.get('x-oneapi-request-id')!;
        const reader = response.body!.getReader();
        await reader.read();
        controller.abort();
        await settleDown();
        expect(outcomes.slice(reported).filter((outcome) => !outcome.ok)).toEqual([]);
        await settlement.drain();
        expect(await charges(requestId)).toHaveLength(1);
      } finally {
        primary.chunkDelayMs = 0;
      }
    });
  });

  it('reports an upstream error code and type apart, so a fatal type with a code disables the channel (reference §3.7)', async () => {
    primary.next({ status: 400, body: { error: { message: 'key revoked', type: 'authentication_error', param: null, code: 'x' } } });
    const response = await chat({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(400);
    const reported = outcomes.at(-1)!;
    expect(reported).toEqual({ channelId: 1, ok: false, status: 400, errorCode: 'x', errorType: 'authentication_error', message: 'key revoked', source: 'relay' });
    const outcome: ChannelOutcome = reported;
    expect(classifyOutcome(outcome, 1)).toBe('fatal');
    const policy = { autoDisableEnabled: true, autoEnableEnabled: true, responseTimeThresholdSeconds: 0, minFailures: 20, failureRate: 0.5, windowSeconds: 60 };
    expect(decideOnOutcome(outcome, { status: 1, autoBan: true, type: 1 }, { total: 1, failures: 1 }, policy)).toMatchObject({ kind: 'disable', reasonCode: 'fatal_upstream_error', reason: 'key revoked' });
  });

  it('authenticates with the mj-api-secret header when Authorization is empty, absent or midjourney-proxy (reference §2.1)', async () => {
    const send = (headers: Record<string, string>) =>
      fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] }),
      });
    expect((await send({ authorization: '', 'mj-api-secret': 'sk-good' })).status).toBe(200);
    expect((await send({ 'mj-api-secret': 'Bearer sk-good' })).status).toBe(200);
    expect((await send({ authorization: 'Bearer midjourney-proxy', 'mj-api-secret': 'sk-good' })).status).toBe(200);
    // A key in Authorization wins; no key anywhere is 未提供令牌.
    expect((await send({ authorization: 'Bearer sk-bad', 'mj-api-secret': 'sk-good' })).status).toBe(401);
    const none = await send({ authorization: 'midjourney-proxy' });
    expect(none.status).toBe(401);
    expect((await json(none)).error.message).toMatch(/^未提供令牌/);
  });
});
