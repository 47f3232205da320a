import { createHmac } from 'node:crypto';
import { channel, chatInputFor, dataEvents, everySplit, FIXED_NOW, fixture, runStream, testSettings } from '../testing/upstream-test-kit';
import { UnsupportedRelayModeError, UpstreamLocalError } from '../upstream-errors';
import { createUpstreamRegistry } from '../upstream-registry';
import { signZhipuToken } from './zhipu-jwt';
import { createZhipuV4Adapter } from './zhipu-v4-profile';

const KEY = 'a1b2c3d4.s3cr3t';
const zhipuChannel = channel({ type: 26, key: KEY });
const input = chatInputFor(zhipuChannel, 'glm-4', 'Hello');
const decode = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;

describe('Zhipu JWT', () => {
  it('is HS256 over id.secret with sign_type SIGN and millisecond exp/timestamp', () => {
    const token = signZhipuToken(KEY, FIXED_NOW);
    const [header, payload, signature] = token.split('.');
    expect(decode(header)).toEqual({ alg: 'HS256', sign_type: 'SIGN' });
    expect(decode(payload)).toEqual({ api_key: 'a1b2c3d4', exp: FIXED_NOW + 86_400_000, timestamp: FIXED_NOW });
    expect(signature).toBe(createHmac('sha256', 's3cr3t').update(`${header}.${payload}`).digest('base64url'));
  });

  it('refuses a key that is not id.secret, locally', () => {
    for (const key of ['nodot', '.secret', 'id.', 'a.b.c']) expect(() => signZhipuToken(key, FIXED_NOW)).toThrow(UpstreamLocalError);
  });

  it('is cached per key until shortly before it expires', () => {
    let now = FIXED_NOW;
    const adapter = createZhipuV4Adapter(testSettings({ now: () => now }));
    const first = adapter.buildRequest(input()).headers.authorization;
    now += 3600_000;
    expect(adapter.buildRequest(input()).headers.authorization).toBe(first);
    const other = adapter.buildRequest(input({}, { channel: { ...zhipuChannel, key: 'zz.other' } })).headers.authorization;
    expect(other).not.toBe(first);
    now = FIXED_NOW + 86_400_000 - 60_000;
    const renewed = adapter.buildRequest(input()).headers.authorization;
    expect(renewed).not.toBe(first);
    expect(decode(renewed.split('.')[1]).timestamp).toBe(now);
  });
});

describe('Zhipu GLM-4V adapter (type 26)', () => {
  const adapter = createZhipuV4Adapter(testSettings());

  it('posts to /api/paas/v4/chat/completions on the channel base URL with the JWT and no Bearer', () => {
    const request = adapter.buildRequest(input());
    expect(request.url).toBe('https://open.bigmodel.cn/api/paas/v4/chat/completions');
    expect(request.headers.authorization).toBe(signZhipuToken(KEY, FIXED_NOW));
    expect(request.headers.authorization).not.toMatch(/^Bearer/);
    const proxied = adapter.buildRequest(input({}, { channel: { ...zhipuChannel, baseUrl: 'http://fake:9000/zp/' } }));
    expect(proxied.url).toBe('http://fake:9000/zp/api/paas/v4/chat/completions');
  });

  it('sends 0.99 for top_p ≥ 1, stop as a list, base64 images without their data-URL prefix, and no stream_options', () => {
    const sent = JSON.parse(
      adapter.buildRequest(
        input(
          {
            top_p: 1,
            stop: 'END',
            stream: true,
            stream_options: { include_usage: true },
            messages: [
              {
                role: 'user',
                content: [
                  { type: 'text', text: 'What is this?' },
                  { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0K' } },
                  { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
                ],
              },
            ],
          },
          { isStream: true },
        ),
      ).body as string,
    ) as Record<string, any>;
    expect(sent.top_p).toBe(0.99);
    expect(sent.stop).toEqual(['END']);
    expect(sent.stream_options).toBeUndefined();
    expect(sent.messages[0].content[1].image_url.url).toBe('iVBORw0K');
    expect(sent.messages[0].content[2].image_url.url).toBe('https://example.com/cat.png');
    expect(JSON.parse(adapter.buildRequest(input({ top_p: 0.5 })).body as string).top_p).toBe(0.5);
  });

  it('serves chat only', () => {
    expect(() => adapter.buildRequest(input({}, { relayMode: 'embeddings', path: '/v1/embeddings' }))).toThrow(UnsupportedRelayModeError);
  });

  it('reads the usage of a plain answer', () => {
    const result = adapter.parseResponse(input(), { status: 200, contentType: 'application/json', body: fixture('zhipu', 'v4-chat.json') });
    expect(result).toMatchObject({ ok: true, usage: { prompt_tokens: 11, completion_tokens: 9, total_tokens: 20 } });
  });

  it('replays the recorded stream split at every byte boundary with the same output and usage', () => {
    const bytes = fixture('zhipu', 'v4-stream.sse');
    const whole = runStream(adapter.createStreamTransformer(input({ stream: true }, { isStream: true })), [bytes]);
    expect(whole.summary).toMatchObject({ end: 'done', usage: { prompt_tokens: 11, completion_tokens: 9 } });
    const events = dataEvents(whole.output) as Array<Record<string, any>>;
    expect(
      events
        .slice(0, -1)
        .map((event) => event.choices[0]?.delta?.content ?? '')
        .join(''),
    ).toBe('你好！有什么可以帮你的吗？');
    expect(events.at(-1)).toBe('[DONE]');
    for (const pieces of everySplit(bytes)) {
      const run = runStream(adapter.createStreamTransformer(input({ stream: true }, { isStream: true })), pieces);
      expect(run.output).toBe(whole.output);
      expect(run.summary.usage).toEqual(whole.summary.usage);
    }
  });

  it('maps a refused token to 401 and a rate limit to 429 with Zhipu’s message and code', () => {
    expect(adapter.mapError(401, fixture('zhipu', 'v4-error-auth.json'))).toEqual({
      ok: false,
      status: 401,
      error: { message: '身份验证失败。', type: 'upstream_error', param: null, code: '1000' },
    });
    expect(adapter.mapError(429, fixture('zhipu', 'v4-error-rate-limit.json'))).toMatchObject({ status: 429, error: { code: '1302' } });
  });

  it('is the registry’s adapter for type 26', () => {
    expect(createUpstreamRegistry().get(26).name).toBe('zhipu_v4');
  });
});
