import { createHmac } from 'node:crypto';
import type { UpstreamRequestInput } from '../upstream-adapter';
import { DEFAULT_UPSTREAM_SETTINGS } from '../upstream-registry';
import { createSparkAdapter } from './spark-adapter';
import { parseSparkKey, signedSparkUrl, sparkDomain, sparkVersion } from './spark-request';

const now = Date.UTC(2026, 0, 2, 3, 4, 5);
const adapter = createSparkAdapter({ ...DEFAULT_UPSTREAM_SETTINGS, now: () => now, newId: () => 'id' });
const input = (overrides: Partial<UpstreamRequestInput> = {}): UpstreamRequestInput => ({
  channel: { type: 18, key: 'app|secret|key', baseUrl: null, other: 'v2.1', openaiOrganization: null },
  relayMode: 'chat',
  path: '/v1/chat/completions',
  query: '',
  body: { model: 'SparkDesk-v3.1', messages: [{ role: 'user', content: 'hi' }], top_k: 3, n: 2 },
  upstreamModel: 'SparkDesk-v3.1',
  isStream: false,
  clientWantsUsage: false,
  ...overrides,
});

const frame = (content: string, status: number, usage?: [number, number]) =>
  JSON.stringify({
    header: { code: 0, message: 'Success', sid: 's', status },
    payload: {
      choices: { status, seq: 0, text: [{ content, role: 'assistant', index: 0 }] },
      ...(usage ? { usage: { text: { prompt_tokens: usage[0], completion_tokens: usage[1], total_tokens: usage[0] + usage[1] } } } : {}),
    },
  });

describe('spark adapter (type 18)', () => {
  it('reads the key, the version (query, model, other, v1.1) and its domain', () => {
    expect(parseSparkKey('a|b|c')).toEqual({ appId: 'a', apiSecret: 'b', apiKey: 'c' });
    expect(() => parseSparkKey('a|b')).toThrow('APPID|APISecret|APIKey');
    expect(sparkVersion(input({ query: 'api-version=v4.0' }))).toBe('v4.0');
    expect(sparkVersion(input())).toBe('v3.1');
    expect(sparkVersion(input({ upstreamModel: 'SparkDesk' }))).toBe('v2.1');
    expect(sparkVersion(input({ upstreamModel: 'SparkDesk', channel: { ...input().channel, other: null } }))).toBe('v1.1');
    expect(['v1.1', 'v2.1', 'v3.1', 'v3.5', 'v4.0', 'v9'].map(sparkDomain)).toEqual([
      'general',
      'generalv2',
      'generalv3',
      'generalv3.5',
      '4.0Ultra',
      'generalv9',
    ]);
  });

  it('signs the URL with HMAC-SHA256 of host, date and request line', () => {
    const url = new URL(signedSparkUrl({ appId: 'a', apiSecret: 'secret', apiKey: 'key' }, null, 'v3.5', now));
    expect(`${url.protocol}//${url.host}${url.pathname}`).toBe('wss://spark-api.xf-yun.com/v3.5/chat');
    expect(url.searchParams.get('date')).toBe('Fri, 02 Jan 2026 03:04:05 GMT');
    expect(url.searchParams.get('host')).toBe('spark-api.xf-yun.com');
    const signature = createHmac('sha256', 'secret')
      .update('host: spark-api.xf-yun.com\ndate: Fri, 02 Jan 2026 03:04:05 GMT\nGET /v3.5/chat HTTP/1.1')
      .digest('base64');
    expect(Buffer.from(url.searchParams.get('authorization')!, 'base64').toString()).toBe(
      `api_key="key", algorithm="hmac-sha256", headers="host date request-line", signature="${signature}"`,
    );
    expect(signedSparkUrl({ appId: 'a', apiSecret: 's', apiKey: 'k' }, 'http://127.0.0.1:9/x/', 'v1.1', now)).toMatch(
      /^ws:\/\/127\.0\.0\.1:9\/x\/v1\.1\/chat\?authorization=/,
    );
  });

  it('builds the request frame with the client top_k (not n) and the version domain', () => {
    const request = adapter.buildRequest(input());
    expect(JSON.parse(String(request.body))).toEqual({
      header: { app_id: 'app' },
      parameter: { chat: { domain: 'generalv3', top_k: 3 } },
      payload: { message: { text: [{ role: 'user', content: 'hi' }] } },
    });
    expect(() => adapter.buildRequest(input({ relayMode: 'embeddings' }))).toThrow('not supported');
  });

  it('reads collected frames into one answer with the last frame usage; an error frame is an error', () => {
    const body = Buffer.from([frame('Hel', 0), frame('lo', 2, [5, 2])].map((f) => `data: ${f}\n\n`).join(''));
    const result = adapter.parseResponse(input(), { status: 200, contentType: '', body });
    expect(result).toMatchObject({ ok: true, usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } });
    expect(JSON.parse(String((result as { body: string }).body)).choices[0].message.content).toBe('Hello');
    const cut = adapter.parseResponse(input(), { status: 200, contentType: '', body: Buffer.from(`data: ${frame('Hel', 0)}\n\n`) });
    expect(cut).toMatchObject({ ok: false, error: { code: 'upstream_stream_cut' } });
    expect(adapter.mapError(401, Buffer.from('{"message":"HMAC signature does not match"}'))).toMatchObject({
      status: 401,
      error: { code: 'invalid_api_key', message: 'HMAC signature does not match' },
    });
  });

  it('replays a frame stream split at every byte boundary', () => {
    const bytes = Buffer.from([frame('你好', 0), frame('，世界', 1), frame('', 2, [6, 3])].map((f) => `data: ${f}\n\n`).join(''));
    for (let cut = 0; cut <= bytes.length; cut++) {
      const transformer = adapter.createStreamTransformer(input({ isStream: true }));
      let out = '';
      for (const part of [bytes.subarray(0, cut), bytes.subarray(cut)]) out += String(transformer.push(part) ?? '');
      const summary = transformer.finish('eof');
      expect(summary).toMatchObject({ end: 'done', usage: { prompt_tokens: 6, completion_tokens: 3 }, finishReason: 'stop' });
      expect(summary.completionText).toBe('你好，世界');
      expect(out).toContain('"finish_reason":"stop"');
    }
    const cutShort = adapter.createStreamTransformer(input({ isStream: true }));
    cutShort.push(Buffer.from(`data: ${frame('Hi', 0)}\n\n`));
    expect(cutShort.finish('eof').end).toBe('cut');
  });
});
