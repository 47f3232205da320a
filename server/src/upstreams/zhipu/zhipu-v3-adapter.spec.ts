import { channel, chatInputFor, dataEvents, everySplit, FIXED_NOW, fixture, runStream, testSettings } from '../testing/upstream-test-kit';
import { UnsupportedRelayModeError } from '../upstream-errors';
import { createUpstreamRegistry } from '../upstream-registry';
import { signZhipuToken } from './zhipu-jwt';
import { createZhipuV3Adapter } from './zhipu-v3-adapter';

const KEY = 'a1b2c3d4.s3cr3t';
const zhipuChannel = channel({ type: 16, key: KEY });
const input = chatInputFor(zhipuChannel, 'chatglm_turbo', 'Hello');
const adapter = createZhipuV3Adapter(testSettings());

describe('Zhipu ChatGLM v3 adapter (type 16)', () => {
  it('calls invoke, or sse-invoke for streams, on the channel base URL with the JWT and no Bearer', () => {
    const plain = adapter.buildRequest(input());
    expect(plain.url).toBe('https://open.bigmodel.cn/api/paas/v3/model-api/chatglm_turbo/invoke');
    expect(plain.headers.authorization).toBe(signZhipuToken(KEY, FIXED_NOW));
    const stream = adapter.buildRequest(
      input({ stream: true }, { isStream: true, channel: { ...zhipuChannel, baseUrl: 'http://zp.fake' } }),
    );
    expect(stream.url).toBe('http://zp.fake/api/paas/v3/model-api/chatglm_turbo/sse-invoke');
    expect(stream.headers.accept).toBe('text/event-stream');
  });

  it('sends {prompt, temperature, top_p, incremental} with "Okay" after a system message and top_p ≥ 1 as 0.99', () => {
    const body = JSON.parse(
      adapter.buildRequest(
        input({
          messages: [
            { role: 'system', content: 'Be brief.' },
            { role: 'user', content: 'Hi' },
          ],
          temperature: 0.3,
          top_p: 1,
        }),
      ).body as string,
    );
    expect(body).toEqual({
      prompt: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Okay' },
        { role: 'user', content: 'Hi' },
      ],
      incremental: true,
      temperature: 0.3,
      top_p: 0.99,
    });
  });

  it('converts an invoke answer: the quoted content unquoted and unescaped, Zhipu’s usage', () => {
    const result = adapter.parseResponse(input(), {
      status: 200,
      contentType: 'application/json',
      body: fixture('zhipu', 'v3-invoke.json'),
    });
    expect(result).toMatchObject({ ok: true, usage: { prompt_tokens: 6, completion_tokens: 21 } });
    expect(JSON.parse((result as { body: string }).body)).toMatchObject({
      id: '7941066436837384016',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: ' 你好👋！我是人工智能助手智谱清言。\n有什么可以帮你的吗？' },
          finish_reason: 'stop',
        },
      ],
    });
  });

  it('maps success:false to zhipu_error: a refused token is 401 even under HTTP 200', () => {
    const body = fixture('zhipu', 'v3-error-auth.json');
    const expected = {
      ok: false,
      status: 401,
      error: { message: 'Authorization Token非法，请确认Authorization Token正确传递。', type: 'zhipu_error', param: '', code: 1002 },
    };
    expect(adapter.parseResponse(input(), { status: 200, contentType: 'application/json', body })).toEqual(expected);
    expect(adapter.mapError(401, body)).toEqual(expected);
  });

  it('replays the recorded sse-invoke stream split at every byte boundary: text kept as sent, usage from meta', () => {
    const bytes = fixture('zhipu', 'v3-sse-invoke.sse');
    const streamInput = input({ stream: true }, { isStream: true, clientWantsUsage: true });
    const fresh = () => createZhipuV3Adapter(testSettings()).createStreamTransformer(streamInput);
    const whole = runStream(fresh(), [bytes]);
    expect(whole.summary).toMatchObject({
      end: 'done',
      usage: { prompt_tokens: 6, completion_tokens: 12 },
      completionText: ' Hello，我是\n智谱清言👋',
    });
    const events = dataEvents(whole.output) as any[];
    expect(
      events.map((event) =>
        event === '[DONE]' ? event : (event.choices[0]?.delta?.content ?? event.choices[0]?.finish_reason ?? 'usage'),
      ),
    ).toEqual([' Hello', '，我是\n智谱清言', '👋', 'stop', 'usage', '[DONE]']);
    for (const pieces of everySplit(bytes)) expect(runStream(fresh(), pieces).output).toBe(whole.output);
  });

  it('ends on an error event, and a stream without its finish is cut', () => {
    const error = runStream(adapter.createStreamTransformer(input({}, { isStream: true })), [
      Buffer.from('event:error\nid:1\ndata:系统繁忙\n\n'),
    ]);
    expect(error.summary).toMatchObject({ end: 'upstream_error', error: { message: '系统繁忙', type: 'zhipu_error' } });
    const bytes = fixture('zhipu', 'v3-sse-invoke.sse');
    const cut = runStream(adapter.createStreamTransformer(input({}, { isStream: true })), [
      bytes.subarray(0, bytes.indexOf('event:finish')),
    ]);
    expect(cut.summary).toMatchObject({ end: 'cut', usage: null });
  });

  it('serves chat only and is the registry’s adapter for type 16', () => {
    expect(() => adapter.buildRequest(input({}, { relayMode: 'embeddings' }))).toThrow(UnsupportedRelayModeError);
    expect(createUpstreamRegistry().get(16).name).toBe('zhipu');
  });
});
