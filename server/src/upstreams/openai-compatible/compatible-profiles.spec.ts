import { ChannelType } from '../channel-types';
import { createOpenAIAdapter } from '../openai/openai-adapter';
import { channel, chatInput, testSettings } from '../testing/upstream-test-kit';
import type { UpstreamRequestInput } from '../upstream-adapter';
import { createUpstreamRegistry } from '../upstream-registry';
import { InvalidApiTypeError, MissingBaseUrlError, UnsupportedRelayModeError } from '../upstream-errors';

const registry = createUpstreamRegistry(testSettings());
const text = (body: string | Uint8Array | undefined) => (typeof body === 'string' ? body : Buffer.from(body!).toString('utf8'));
const streamBody = {
  model: 'm',
  messages: [{ role: 'user', content: 'Hi' }],
  stream: true,
  stream_options: { include_usage: true },
  temperature: 0,
};
const input = (type: number, overrides: Partial<UpstreamRequestInput> = {}) =>
  chatInput({ channel: channel({ type, key: 'family-key' }), body: { model: 'm', messages: [] }, upstreamModel: 'm', ...overrides });

describe('the OpenAI-compatible family', () => {
  it.each([
    [ChannelType.Zhinao360, '360', 'https://ai.360.cn/v1/chat/completions'],
    [ChannelType.Moonshot, 'moonshot', 'https://api.moonshot.cn/v1/chat/completions'],
    [ChannelType.Yi, 'yi', 'https://api.lingyiwanwu.com/v1/chat/completions'],
    [ChannelType.SiliconCloud, 'siliconcloud', 'https://api.siliconflow.cn/v1/chat/completions'],
    [ChannelType.FastGPT, 'fastgpt', 'https://fastgpt.run/api/openapi/v1/chat/completions'],
  ])('type %i (%s) calls its default base URL + the client path with a Bearer key', (type, name, url) => {
    const adapter = registry.get(type);
    expect(adapter.name).toBe(name);
    const request = adapter.buildRequest(input(type));
    expect(request.url).toBe(url);
    expect(request.headers).toEqual({ 'content-type': 'application/json', authorization: 'Bearer family-key' });
  });

  it.each([ChannelType.Custom, ChannelType.Zhinao360, ChannelType.Moonshot, ChannelType.Yi, ChannelType.SiliconCloud])(
    'type %i forwards the stream body as sent but without stream_options, which it was never sent by new-api',
    (type) => {
      const base = type === ChannelType.Custom ? { baseUrl: 'https://llm.example.com/v1/chat/completions' } : {};
      const request = registry
        .get(type)
        .buildRequest(input(type, { channel: channel({ type, ...base }), body: streamBody, isStream: true, clientWantsUsage: true }));
      const { stream_options: _dropped, ...expected } = streamBody;
      expect(JSON.parse(text(request.body))).toEqual(expected);
    },
  );

  it('uses a channel base URL over the default, with its path prefix and the client query', () => {
    const request = registry
      .get(ChannelType.Moonshot)
      .buildRequest(input(ChannelType.Moonshot, { channel: channel({ type: 25, baseUrl: 'http://proxy:8080/moonshot/' }), query: 'a=1' }));
    expect(request.url).toBe('http://proxy:8080/moonshot/v1/chat/completions?a=1');
    expect(request.origin).toBe('http://proxy:8080');
  });

  describe('Custom (8)', () => {
    const custom = (baseUrl: string | null, overrides: Partial<UpstreamRequestInput> = {}) =>
      registry
        .get(ChannelType.Custom)
        .buildRequest(input(ChannelType.Custom, { channel: channel({ type: 8, baseUrl }), upstreamModel: 'qwen-max', ...overrides }));

    it('uses the base URL as the whole URL, {model} replaced, its own query kept and the client path not appended', () => {
      const request = custom('https://llm.example.com/deploy/{model}/chat?tenant=7', { path: '/v1/chat/completions', query: 'x=1' });
      expect(request.url).toBe('https://llm.example.com/deploy/qwen-max/chat?tenant=7');
      expect(request.headers.authorization).toBe('Bearer sk-upstream-key');
    });

    it('fails locally without a base URL', () => {
      expect(() => custom(null)).toThrow(MissingBaseUrlError);
    });
  });

  it('SiliconCloud serves chat, embeddings and rerank only; Jina embeddings and rerank only', () => {
    const silicon = registry.get(ChannelType.SiliconCloud);
    expect(silicon.buildRequest(input(40, { relayMode: 'rerank', path: '/v1/rerank' })).url).toBe('https://api.siliconflow.cn/v1/rerank');
    expect(() => silicon.buildRequest(input(40, { relayMode: 'images-generations', path: '/v1/images/generations' }))).toThrow(
      UnsupportedRelayModeError,
    );
    expect(() => registry.get(ChannelType.Jina).buildRequest(input(38))).toThrow(UnsupportedRelayModeError);
  });

  it('falls back to the generic OpenAI protocol for a type without a profile, and refuses type 21', () => {
    const request = registry
      .get(ChannelType.FastGPT + 100)
      .buildRequest(input(122, { channel: channel({ type: 122, baseUrl: 'https://other.example.com' }) }));
    expect(request.url).toBe('https://other.example.com/v1/chat/completions');
    expect(() => registry.get(ChannelType.AIProxyLibrary)).toThrow(InvalidApiTypeError);
  });
});

describe('OpenAI (1)', () => {
  const adapter = createOpenAIAdapter(testSettings());

  it('sends the Bearer key and OpenAI-Organization, to api.openai.com by default', () => {
    const request = adapter.buildRequest(input(1, { channel: channel({ openaiOrganization: 'org-123' }) }));
    expect(request.url).toBe('https://api.openai.com/v1/chat/completions');
    expect(request.headers).toEqual({
      'content-type': 'application/json',
      authorization: 'Bearer sk-upstream-key',
      'openai-organization': 'org-123',
    });
  });

  it('forces include_usage on streams and keeps temperature 0', () => {
    const body = { ...streamBody, stream_options: undefined };
    const request = adapter.buildRequest(input(1, { body, isStream: true }));
    expect(JSON.parse(text(request.body))).toMatchObject({ temperature: 0, stream_options: { include_usage: true } });
  });

  it('rewrites max_tokens to max_completion_tokens for o-series models only', () => {
    const o3 = adapter.buildRequest(input(1, { body: { model: 'o3-mini', messages: [], max_tokens: 9 }, upstreamModel: 'o3-mini' }));
    expect(JSON.parse(text(o3.body))).toEqual({ model: 'o3-mini', messages: [], max_completion_tokens: 9 });
    const gpt = adapter.buildRequest(input(1, { body: { model: 'gpt-4o', messages: [], max_tokens: 9 }, upstreamModel: 'gpt-4o' }));
    expect(JSON.parse(text(gpt.body))).toEqual({ model: 'gpt-4o', messages: [], max_tokens: 9 });
  });

  it('maps an invalid key to 401 with the upstream error object kept', () => {
    const body = Buffer.from(
      JSON.stringify({
        error: { message: 'Incorrect API key provided: sk-bad.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' },
      }),
    );
    expect(adapter.mapError(401, body)).toEqual({
      ok: false,
      status: 401,
      error: { message: 'Incorrect API key provided: sk-bad.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' },
    });
  });
});
