import { channel, chatInputFor, dataEvents, everySplit, fixture, runStream, testSettings } from '../testing/upstream-test-kit';
import type { UpstreamCall, UpstreamRequest } from '../upstream-adapter';
import { UnsupportedRelayModeError, UpstreamCallFailure, UpstreamLocalError } from '../upstream-errors';
import { createUpstreamRegistry } from '../upstream-registry';
import { createBaiduAdapter } from './baidu-adapter';
import { baiduModelPath } from './baidu-endpoints';

const KEY = 'client-id|client-secret';
const baiduChannel = channel({ type: 15, key: KEY, baseUrl: 'http://baidu.fake:8080/' });
const TOKEN = '24.6c5e1ff107f0e8bcef8c46d3424a0e78.2592000.1485516651.282335-8574074';
const input = chatInputFor(baiduChannel, 'ERNIE-4.0-8K', 'Hello');
const json = (name: string, status = 200) => ({ status, contentType: 'application/json', body: fixture('baidu', name) });

/** A token endpoint answering from fixtures, recording what it was asked. */
function tokenEndpoint(answers: Array<{ name: string; status?: number }> = [{ name: 'token.json' }]) {
  const calls: UpstreamRequest[] = [];
  const call: UpstreamCall = async (request) => {
    calls.push(request);
    const answer = answers[Math.min(calls.length - 1, answers.length - 1)];
    return json(answer.name, answer.status ?? 200);
  };
  return { calls, call };
}

describe('Baidu Wenxin adapter (type 15)', () => {
  describe('access token', () => {
    it('exchanges API Key|Secret Key on the channel’s base URL and puts the token in ?access_token=', async () => {
      const adapter = createBaiduAdapter(testSettings());
      const { calls, call } = tokenEndpoint();
      const prepared = await adapter.prepare!(input(), call);
      expect(calls).toHaveLength(1);
      expect(calls[0]).toMatchObject({
        method: 'POST',
        url: 'http://baidu.fake:8080/oauth/2.0/token?grant_type=client_credentials&client_id=client-id&client_secret=client-secret',
      });
      const request = adapter.buildRequest(prepared);
      expect(request.url).toBe(`http://baidu.fake:8080/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/completions_pro?access_token=${TOKEN}`);
      expect(request.headers.authorization).toBeUndefined();
    });

    it('defaults to aip.baidubce.com for both calls when the channel has no base URL', async () => {
      const adapter = createBaiduAdapter(testSettings());
      const { calls, call } = tokenEndpoint();
      const prepared = await adapter.prepare!(input({}, { channel: { ...baiduChannel, baseUrl: null } }), call);
      expect(calls[0].origin).toBe('https://aip.baidubce.com');
      expect(adapter.buildRequest(prepared).origin).toBe('https://aip.baidubce.com');
    });

    it('caches the token per key, refreshes it in the background within the last hour, and exchanges again once expired', async () => {
      let now = 1_000_000_000;
      const adapter = createBaiduAdapter(testSettings({ now: () => now }));
      const { calls, call } = tokenEndpoint();
      await adapter.prepare!(input(), call);
      await adapter.prepare!(input(), call);
      expect(calls).toHaveLength(1);
      await adapter.prepare!(input({}, { channel: { ...baiduChannel, key: 'other|secret' } }), call);
      expect(calls).toHaveLength(2);
      now += 2_592_000_000 - 1_800_000; // half an hour before expiry: served from cache, refreshed behind
      expect((await adapter.prepare!(input(), call)).credential).toBe(TOKEN);
      expect(calls).toHaveLength(3);
      await Promise.resolve();
      now += 2_592_000_000 + 1; // the refreshed token has expired too
      await adapter.prepare!(input(), call);
      expect(calls).toHaveLength(4);
    });

    it('shares one exchange between concurrent requests', async () => {
      const adapter = createBaiduAdapter(testSettings());
      const { calls, call } = tokenEndpoint();
      await Promise.all([adapter.prepare!(input(), call), adapter.prepare!(input(), call), adapter.prepare!(input(), call)]);
      expect(calls).toHaveLength(1);
    });

    it('makes the exchange a detached call with its own 5 s timeout, in the foreground and in the background', async () => {
      let now = 1_000_000_000;
      const adapter = createBaiduAdapter(testSettings({ now: () => now }));
      const options: Array<Parameters<UpstreamCall>[1]> = [];
      const { call } = tokenEndpoint();
      const recording: UpstreamCall = (request, callOptions) => {
        options.push(callOptions);
        return call(request, callOptions);
      };
      await adapter.prepare!(input(), recording);
      now += 2_592_000_000 - 1_800_000; // the background refresh
      await adapter.prepare!(input(), recording);
      expect(options).toEqual([{ detached: { timeoutMs: 5_000 } }, { detached: { timeoutMs: 5_000 } }]);
    });

    it('a refused exchange is the channel’s 401 failure; a malformed key fails locally', async () => {
      const adapter = createBaiduAdapter(testSettings());
      const { call } = tokenEndpoint([{ name: 'token-error.json', status: 401 }]);
      const error = await adapter.prepare!(input(), call).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(UpstreamCallFailure);
      expect((error as UpstreamCallFailure).failure).toEqual({
        ok: false,
        status: 401,
        error: { message: 'invalid_client: unknown client id', type: 'baidu_error', param: '', code: 'invalid_client' },
      });
      for (const key of ['no-separator', '|secret', 'id|', 'a|b|c']) {
        await expect(adapter.prepare!(input({}, { channel: { ...baiduChannel, key } }), call)).rejects.toBeInstanceOf(UpstreamLocalError);
      }
    });

    it('forgets a token Baidu calls invalid (110), so the next request exchanges again', async () => {
      const adapter = createBaiduAdapter(testSettings());
      const { calls, call } = tokenEndpoint();
      const prepared = await adapter.prepare!(input(), call);
      expect(adapter.parseResponse(prepared, json('error-token-invalid.json'))).toEqual({
        ok: false,
        status: 401,
        error: { message: 'Access token invalid or no longer valid', type: 'baidu_error', param: '', code: 110 },
      });
      await adapter.prepare!(input(), call);
      expect(calls).toHaveLength(2);
    });
  });

  describe('requests', () => {
    it('maps models to endpoints from the table, others to their lower-cased name, embeddings to embeddings/', () => {
      expect(baiduModelPath('ERNIE-Bot-turbo')).toBe('/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/eb-instant');
      expect(baiduModelPath('ERNIE-Speed-128K')).toBe('/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/ernie-speed-128k');
      expect(baiduModelPath('ERNIE-4.0-Turbo-8K')).toBe('/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/ernie-4.0-turbo-8k');
      expect(baiduModelPath('Embedding-V1')).toBe('/rpc/2.0/ai_custom/v1/wenxinworkshop/embeddings/embedding-v1');
      expect(baiduModelPath('bge-large-zh')).toBe('/rpc/2.0/ai_custom/v1/wenxinworkshop/embeddings/bge_large_zh');
      expect(baiduModelPath('tao-8k')).toBe('/rpc/2.0/ai_custom/v1/wenxinworkshop/embeddings/tao_8k');
    });

    it('converts the chat: system to the top level, penalty_score, max_output_tokens ≥ 2, user_id, zero values dropped', () => {
      const adapter = createBaiduAdapter(testSettings());
      const body = JSON.parse(
        adapter.buildRequest(
          input(
            {
              messages: [
                { role: 'system', content: 'Be brief.' },
                {
                  role: 'user',
                  content: [
                    { type: 'text', text: 'Hi ' },
                    { type: 'text', text: 'there' },
                  ],
                },
              ],
              temperature: 0,
              top_p: 0.8,
              frequency_penalty: 1.2,
              max_tokens: 1,
              user: 'u-1',
              stream: true,
            },
            { isStream: true, credential: TOKEN },
          ),
        ).body as string,
      );
      expect(body).toEqual({
        messages: [{ role: 'user', content: 'Hi there' }],
        system: 'Be brief.',
        top_p: 0.8,
        penalty_score: 1.2,
        max_output_tokens: 2,
        user_id: 'u-1',
        stream: true,
      });
    });

    it('sends embeddings as {input: [texts]} and refuses other modes', () => {
      const adapter = createBaiduAdapter(testSettings());
      const request = adapter.buildRequest(
        input({ input: 'hello' }, { relayMode: 'embeddings', path: '/v1/embeddings', upstreamModel: 'Embedding-V1', credential: TOKEN }),
      );
      expect(JSON.parse(request.body as string)).toEqual({ input: ['hello'] });
      expect(request.path).toContain('/embeddings/embedding-v1?access_token=');
      expect(() => adapter.buildRequest(input({}, { relayMode: 'images-generations', credential: TOKEN }))).toThrow(
        UnsupportedRelayModeError,
      );
    });
  });

  describe('answers', () => {
    const adapter = createBaiduAdapter(testSettings());

    it('converts a chat answer with Baidu’s usage', () => {
      const result = adapter.parseResponse(input(), json('chat.json'));
      expect(result).toMatchObject({ ok: true, usage: { prompt_tokens: 4, completion_tokens: 14, total_tokens: 18 } });
      const body = JSON.parse((result as { body: string }).body);
      expect(body).toMatchObject({
        id: 'as-bcmt5ct4iy',
        object: 'chat.completion',
        model: 'ERNIE-4.0-8K',
        choices: [{ index: 0, message: { role: 'assistant', content: '您好，我是文心一言，有什么可以帮您？' }, finish_reason: 'stop' }],
      });
    });

    it('converts embeddings, as floats or as base64 float32', () => {
      const embeddingInput = input({ input: ['a', 'b'] }, { relayMode: 'embeddings', upstreamModel: 'Embedding-V1' });
      const plain = adapter.parseResponse(embeddingInput, json('embeddings.json'));
      expect(plain).toMatchObject({ ok: true, usage: { prompt_tokens: 7, completion_tokens: 0 } });
      expect(JSON.parse((plain as { body: string }).body).data[1]).toEqual({
        object: 'embedding',
        index: 1,
        embedding: [0.25, -0.5, 0.125],
      });
      const base64 = adapter.parseResponse(
        { ...embeddingInput, body: { input: ['a', 'b'], encoding_format: 'base64' } },
        json('embeddings.json'),
      );
      const vector = Buffer.from(JSON.parse((base64 as { body: string }).body).data[1].embedding, 'base64');
      expect([vector.readFloatLE(0), vector.readFloatLE(4), vector.readFloatLE(8)]).toEqual([0.25, -0.5, 0.125]);
    });

    it('maps a request limit to 429', () => {
      expect(adapter.parseResponse(input(), json('error-qps.json'))).toMatchObject({ ok: false, status: 429, error: { code: 18 } });
    });

    it('replays the recorded stream split at every byte boundary: same chunks, usage = total − prompt', () => {
      const bytes = fixture('baidu', 'stream.sse');
      const streamInput = input({ stream: true }, { isStream: true, clientWantsUsage: true });
      const fresh = () => createBaiduAdapter(testSettings()).createStreamTransformer(streamInput);
      const whole = runStream(fresh(), [bytes]);
      expect(whole.summary).toMatchObject({ end: 'done', finishReason: 'stop', usage: { prompt_tokens: 5, completion_tokens: 12 } });
      const events = dataEvents(whole.output) as any[];
      expect(events.map((event) => (event === '[DONE]' ? event : (event.choices[0]?.delta?.content ?? null)))).toEqual([
        '你好！',
        '有什么我可以帮助你的吗？',
        null,
        null,
        '[DONE]',
      ]);
      expect(events[3].usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 12 });
      for (const pieces of everySplit(bytes)) {
        const run = runStream(fresh(), pieces);
        expect(run.output).toBe(whole.output);
      }
    });

    it('ends a stream Baidu refused with a JSON error body as an upstream error, and a stream without is_end as cut', () => {
      const refused = runStream(adapter.createStreamTransformer(input({}, { isStream: true })), [fixture('baidu', 'error-qps.json')]);
      expect(refused.summary).toMatchObject({ end: 'upstream_error', error: { code: 18, type: 'baidu_error' } });
      const cut = fixture('baidu', 'stream.sse');
      const partial = runStream(adapter.createStreamTransformer(input({}, { isStream: true })), [cut.subarray(0, cut.indexOf('\n\n') + 2)]);
      expect(partial.summary).toMatchObject({ end: 'cut', usage: null, promptTokens: 5, completionText: '你好！' });
    });
  });

  it('is the registry’s adapter for type 15', () => {
    expect(createUpstreamRegistry().get(15).name).toBe('baidu');
  });
});
