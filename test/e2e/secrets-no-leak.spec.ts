import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type Redis from 'ioredis';
import request from 'supertest';
import { REDIS } from '#server/infrastructure/redis/redis.constants';
import { HttpFake, type RecordedRequest, sendJson } from '../fakes/http-fake';
import { createTestApp, type TestApp } from '../support/app';
import { listen, sdk, userWithToken } from './relay-support';
import { call, type Caller, dataSource, projected, rootCaller } from './users-support';

const tag = randomBytes(4).toString('hex');
const GOOD_KEY = `sk-leakcheck-good-${tag}`;
const BAD_KEY = `sk-leakcheck-revoked-${tag}`;
const PRIVATE_KEY = `-----BEGIN PRIVATE KEY-----\\nMIIEleakcheck${tag}\\n-----END PRIVATE KEY-----\\n`;
const VERTEX_KEY = JSON.stringify({
  type: 'service_account',
  project_id: `leak-project-${tag}`,
  private_key_id: `leakcheck-pkid-${tag}`,
  private_key: PRIVATE_KEY,
  client_email: `relay@leak-project-${tag}.iam.gserviceaccount.com`,
});
/** Every secret option (isSecretOption: …Token, …Secret, …Key) but TurnstileSiteKey, which /api/status publishes. */
const SECRET_OPTIONS: Record<string, string> = {
  SMTPToken: `smtp-leakcheck-${tag}`,
  GitHubClientSecret: `github-leakcheck-${tag}`,
  WeChatServerToken: `wechat-leakcheck-${tag}`,
  TelegramBotToken: `123456:telegram-leakcheck-${tag}`,
  TurnstileSecretKey: `turnstile-leakcheck-${tag}`,
  EpayKey: `epay-leakcheck-${tag}`,
  WorkerValidKey: `worker-leakcheck-${tag}`,
};
const METRICS_TOKEN = `metrics-scrape-${tag}`;

/** What must never be found outside the upstream call: every channel key (and the Vertex private key on its own) and every secret option. */
const SECRETS: Record<string, string> = {
  'good channel key': GOOD_KEY,
  'revoked channel key': BAD_KEY,
  'Vertex service-account JSON': VERTEX_KEY,
  'Vertex private key': `MIIEleakcheck${tag}`,
  ...SECRET_OPTIONS,
};

/**
 * An OpenAI-style upstream that accepts GOOD_KEY and, like several providers do, answers any other key with an
 * error that repeats the whole key it was sent: the hostile case for every error path.
 */
class EchoingUpstream extends HttpFake {
  constructor() {
    super((request, response) => this.answer(request, response));
  }

  private answer(request: RecordedRequest, response: ServerResponse): void {
    const presented = String(request.headers.authorization ?? '').replace(/^Bearer /, '');
    if (presented !== GOOD_KEY) {
      return sendJson(response, 401, {
        error: {
          message: `Incorrect API key provided: ${presented}.`,
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_api_key',
        },
      });
    }
    const path = request.url.split('?')[0];
    if (path === '/v1/models') return sendJson(response, 200, { object: 'list', data: [{ id: 'leak-model-good', object: 'model' }] });
    if (path === '/v1/dashboard/billing/subscription') return sendJson(response, 200, { has_payment_method: true, hard_limit_usd: 10 });
    if (path === '/v1/dashboard/billing/usage') return sendJson(response, 200, { total_usage: 100 });
    const body = JSON.parse(request.body || '{}') as { model?: string; stream?: boolean };
    if (body.stream) {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = {
        id: 'chatcmpl-1',
        object: 'chat.completion.chunk',
        created: 1,
        model: body.model,
        choices: [{ index: 0, delta: { content: 'Hi' } }],
      };
      const usage = { ...chunk, choices: [], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } };
      return void response.end(`data: ${JSON.stringify(chunk)}\n\ndata: ${JSON.stringify(usage)}\n\ndata: [DONE]\n\n`);
    }
    sendJson(response, 200, {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
    });
  }
}

/** Every key under `prefix` with its value (queued jobs, caches, sessions), one text per key. */
async function redisDump(redis: Redis, prefix: string): Promise<string[]> {
  const dump: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    cursor = next;
    for (const key of keys) {
      const type = await redis.type(key);
      const value =
        type === 'string'
          ? await redis.get(key)
          : type === 'hash'
            ? await redis.hgetall(key)
            : type === 'list'
              ? await redis.lrange(key, 0, -1)
              : type === 'set'
                ? await redis.smembers(key)
                : type === 'zset'
                  ? await redis.zrange(key, 0, -1)
                  : type === 'stream'
                    ? await redis.xrange(key, '-', '+')
                    : null;
      dump.push(`${key} ${JSON.stringify(value)}`);
    }
  } while (cursor !== '0');
  return dump;
}

/**
 * Issue 19 §4: no secret reaches a log line, an event payload, an error answer or /metrics, and none is stored in
 * plain text. The whole product runs with every log level on and its output captured; every secret option is set
 * through the options API, channels are created with distinctive keys (a revoked one that the upstream echoes back
 * in its error), the relay answers successes and upstream errors, channels are tested, balances and model lists
 * fetched, /metrics scraped. Then the captured log, every answer, every event of every stream, every row of every
 * table and every Redis key of the installation (queued jobs included) are searched for every secret.
 */
describe('secrets never leave the server', () => {
  let target: TestApp;
  let upstream: EchoingUpstream;
  let root: Caller;
  const captured: string[] = [];
  const answers: string[] = [];
  const restore: Array<() => void> = [];

  /** Records an answer (status, headers, body) for the search. */
  const seen = (label: string, response: { status: number; headers: unknown; text?: string; body?: unknown }) => {
    answers.push(`${label} ${response.status} ${JSON.stringify(response.headers)} ${response.text ?? JSON.stringify(response.body)}`);
    return response;
  };

  beforeAll(async () => {
    for (const stream of [process.stdout, process.stderr]) {
      const original = stream.write.bind(stream);
      stream.write = ((chunk: string | Uint8Array) => {
        captured.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
        return true;
      }) as typeof stream.write;
      restore.push(() => (stream.write = original));
    }
    const previous = process.env.TEST_LOGS;
    process.env.TEST_LOGS = '1';
    try {
      target = await createTestApp({ env: { LOG_LEVEL: 'trace', METRICS_TOKEN } });
    } finally {
      process.env.TEST_LOGS = previous;
    }
    upstream = await new EchoingUpstream().start();
    root = await rootCaller(target);
  });
  afterAll(async () => {
    await upstream?.close();
    await target?.close();
    for (const undo of restore) undo();
  });

  const channel = async (body: Record<string, unknown>): Promise<number> => {
    seen(
      `create ${String(body.name)}`,
      await call(target, root, 'post', '/api/channel/', { auto_ban: 1, group: 'default', ...body }).expect(200),
    );
    const [{ id }] = await dataSource(target).query('SELECT id FROM channels WHERE name = $1', [body.name]);
    return id;
  };

  it('searches logs, answers, events, /metrics and every table for every secret and finds none', async () => {
    // Every secret option through the options API, then listed.
    for (const [key, value] of Object.entries(SECRET_OPTIONS)) {
      const saved = seen(`PUT option ${key}`, await call(target, root, 'put', '/api/option/', { key, value }).expect(200));
      expect([key, saved.body]).toEqual([key, { success: true, message: '' }]);
    }
    // Channels a fatal error disables: the upstream's message then lands in a ChannelAutoDisabled event as well.
    seen(
      'PUT auto-disable',
      await call(target, root, 'put', '/api/option/', { key: 'AutomaticDisableChannelEnabled', value: 'true' }).expect(200),
    );
    seen('GET /api/option/', await call(target, root, 'get', '/api/option/').expect(200));
    seen('GET /api/status', await call(target, null, 'get', '/api/status').expect(200));

    const good = await channel({ type: 1, name: 'leak-good', key: GOOD_KEY, base_url: upstream.baseUrl, models: 'leak-model-good' });
    const bad = await channel({ type: 1, name: 'leak-revoked', key: BAD_KEY, base_url: upstream.baseUrl, models: 'leak-model-bad' });
    const vertex = await channel({ type: 41, name: 'leak-vertex', key: VERTEX_KEY, other: 'us-central1', models: 'leak-model-vertex' });
    // An edit that keeps the key (empty) and one that replaces it with itself.
    seen('PUT keep key', await call(target, root, 'put', '/api/channel/', { id: good, key: '', name: 'leak-good' }).expect(200));
    seen('PUT same key', await call(target, root, 'put', '/api/channel/', { id: bad, key: BAD_KEY }).expect(200));
    for (const [label, path] of [
      ['list', '/api/channel/?p=0&page_size=100'],
      ['get', `/api/channel/${vertex}`],
      ['search by key', `/api/channel/search?keyword=${encodeURIComponent(BAD_KEY)}`],
    ]) {
      seen(`GET channels ${label}`, await call(target, root, 'get', path).expect(200));
    }

    // The relay: successes (plain and streamed) and upstream errors that echo the key.
    const baseURL = await listen(target);
    const user = await userWithToken(target, `leak${tag}`, 10_000_000);
    const client = sdk(baseURL, user.key);
    const completion = await client.chat.completions.create({ model: 'leak-model-good', messages: [{ role: 'user', content: 'hi' }] });
    answers.push(JSON.stringify(completion));
    const stream = await client.chat.completions.create({
      model: 'leak-model-good',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const chunk of stream) answers.push(JSON.stringify(chunk));
    for (const model of ['leak-model-bad', 'leak-model-bad', 'leak-model-vertex']) {
      const refused = await request(baseURL.replace(/\/v1$/, ''))
        .post('/v1/chat/completions')
        .set('Authorization', `Bearer ${user.key}`)
        .send({ model, messages: [{ role: 'user', content: 'hi' }], stream: model === 'leak-model-vertex' });
      seen(`relay ${model}`, refused);
      expect([model, refused.status >= 400]).toEqual([model, true]);
    }
    expect(upstream.requests.some((sent) => sent.headers.authorization === `Bearer ${GOOD_KEY}`)).toBe(true);
    expect(upstream.requests.some((sent) => sent.headers.authorization === `Bearer ${BAD_KEY}`)).toBe(true);

    // Channel tests, balances and model lists, each channel and all at once.
    for (const id of [good, bad, vertex]) {
      for (const path of [`/api/channel/test/${id}`, `/api/channel/update_balance/${id}`, `/api/channel/fetch_models/${id}`]) {
        seen(`GET ${path}`, await call(target, root, 'get', path));
      }
    }
    seen(
      'fetch_models with a typed key',
      await call(target, root, 'post', '/api/channel/fetch_models', { type: 1, base_url: upstream.baseUrl, key: BAD_KEY }),
    );
    seen('GET /api/channel/test', await call(target, root, 'get', '/api/channel/test'));
    seen('GET /api/channel/update_balance', await call(target, root, 'get', '/api/channel/update_balance'));
    await projected(target);
    for (const path of ['/api/log/?p=0&page_size=100', '/api/channel/?p=0&page_size=100']) {
      seen(`GET ${path}`, await call(target, root, 'get', path).expect(200));
    }
    const metrics = await target.http().get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`).expect(200);
    seen('GET /metrics', metrics);

    // Every event of every stream, and every row of every table, as stored.
    const events: Array<{ text: string }> = await dataSource(target).query(
      `SELECT stream_id || ' ' || type || ' ' || data::text || ' ' || metadata::text AS text FROM events ORDER BY position`,
    );
    const tables: Array<{ table_name: string }> = await dataSource(target).query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
    );
    const rows: string[] = [];
    for (const { table_name } of tables) {
      const dumped: Array<{ row: string }> = await dataSource(target).query(`SELECT row_to_json(t)::text AS row FROM "${table_name}" t`);
      rows.push(...dumped.map(({ row }) => `${table_name} ${row}`));
    }
    const redis = await redisDump(target.app.get<Redis>(REDIS), target.config.REDIS_PREFIX);
    expect(events.length).toBeGreaterThan(5);
    expect(redis.some((entry) => entry.includes(':bull:'))).toBe(true);
    expect(rows.some((row) => row.startsWith('channels '))).toBe(true);
    // The capture holds the product's own lines: the data key's (its id only) and the failed balance job's.
    expect(captured.join('')).toMatch(/secret key [0-9a-f]{12}: SECRETS_KEY/);
    expect(captured.join('')).toContain('Incorrect API key provided: ***.');

    const places: Record<string, string[]> = {
      log: captured,
      answers,
      events: events.map((event) => event.text),
      tables: rows,
      metrics: [metrics.text],
      redis,
    };
    const found: string[] = [];
    for (const [name, secret] of Object.entries(SECRETS)) {
      for (const [place, texts] of Object.entries(places)) {
        const hit = texts.find((text) => text.includes(secret) || text.includes(JSON.stringify(secret).slice(1, -1)));
        if (hit) found.push(`${name} in ${place}: ${hit.slice(0, 400)}`);
      }
    }
    expect(found).toEqual([]);
    // The searched places did carry the upstream's errors, with the key taken out.
    const redacted = 'Incorrect API key provided: ***.';
    expect(answers.filter((answer) => answer.startsWith('relay leak-model-bad 401') && answer.includes(redacted))).toHaveLength(2);
    expect(answers.some((answer) => answer.startsWith(`GET /api/channel/test/${bad} `) && answer.includes(redacted))).toBe(true);
    expect(answers.some((answer) => answer.startsWith(`GET /api/channel/fetch_models/${bad} `) && answer.includes(redacted))).toBe(true);
    expect(events.filter((event) => event.text.includes(redacted)).map((event) => event.text.split(' ').slice(0, 2).join(' '))).toEqual(
      expect.arrayContaining([`channel-${bad} ChannelTested`, `channel-${bad} ChannelAutoDisabled`]),
    );
  });
});
