import { createHash, createHmac } from 'node:crypto';
import {
  channel,
  chatInputFor,
  dataEvents,
  everySplit,
  FIXED_CREATED as created,
  fixture,
  jsonAnswer,
  randomSplits,
  runStream,
  streamChunks,
  testSettings,
} from '../testing/upstream-test-kit';
import { UnsupportedRelayModeError } from '../upstream-errors';
import { TencentKeyError } from './tencent-api';
import { createTencentAdapter } from './tencent-adapter';

const tencentChannel = channel({ type: 23, key: '1300000000|AKIDtest|secret-key', baseUrl: null });
const input = chatInputFor(tencentChannel, 'hunyuan-lite', 'Say hello.');
const adapter = () => createTencentAdapter(testSettings());

/** The signature written out step by step from Tencent's documentation, independently of tencent-sign.ts. */
function expectedAuthorization(host: string, body: string): string {
  const hex = (value: string) => createHash('sha256').update(value).digest('hex');
  const date = new Date(created * 1000).toISOString().slice(0, 10);
  const canonical = `POST\n/\n\ncontent-type:application/json\nhost:${host}\nx-tc-action:chatcompletions\n\ncontent-type;host;x-tc-action\n${hex(body)}`;
  const toSign = `TC3-HMAC-SHA256\n${created}\n${date}/hunyuan/tc3_request\n${hex(canonical)}`;
  const kDate = createHmac('sha256', 'TC3secret-key').update(date).digest();
  const kService = createHmac('sha256', kDate).update('hunyuan').digest();
  const kSigning = createHmac('sha256', kService).update('tc3_request').digest();
  const signature = createHmac('sha256', kSigning).update(toSign).digest('hex');
  return `TC3-HMAC-SHA256 Credential=AKIDtest/${date}/hunyuan/tc3_request, SignedHeaders=content-type;host;x-tc-action, Signature=${signature}`;
}

describe('Tencent Hunyuan adapter (type 23)', () => {
  describe('request', () => {
    it('posts a PascalCase ChatCompletions body to / with the TC3-HMAC-SHA256 headers', () => {
      const request = adapter().buildRequest(
        input({
          temperature: 0,
          top_p: 0.8,
          messages: [
            { role: 'system', content: 'Be terse.' },
            { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
          ],
        }),
      );
      expect(request.url).toBe('https://hunyuan.tencentcloudapi.com/');
      expect(JSON.parse(request.body as string)).toEqual({
        Model: 'hunyuan-lite',
        Messages: [
          { Role: 'system', Content: 'Be terse.' },
          { Role: 'user', Content: 'Hi' },
        ],
        Stream: false,
        TopP: 0.8,
        Temperature: 0,
      });
      expect(request.headers).toEqual({
        'content-type': 'application/json',
        authorization: expectedAuthorization('hunyuan.tencentcloudapi.com', request.body as string),
        'x-tc-action': 'ChatCompletions',
        'x-tc-version': '2023-09-01',
        'x-tc-timestamp': String(created),
      });
    });

    it('signs for the host of the channel base URL and asks for SSE when streaming', () => {
      const request = adapter().buildRequest(
        input({ stream: true }, { isStream: true, channel: { ...tencentChannel, baseUrl: 'http://127.0.0.1:9999' } }),
      );
      expect(request.url).toBe('http://127.0.0.1:9999/');
      expect(JSON.parse(request.body as string).Stream).toBe(true);
      expect(request.headers.authorization).toBe(expectedAuthorization('127.0.0.1:9999', request.body as string));
      expect(request.headers.accept).toBe('text/event-stream');
    });

    it('refuses a key that is not AppId|SecretId|SecretKey, and modes other than chat', () => {
      expect(() => adapter().buildRequest(input({}, { channel: { ...tencentChannel, key: 'AKIDtest|secret' } }))).toThrow(TencentKeyError);
      expect(() => adapter().buildRequest(input({}, { relayMode: 'embeddings', path: '/v1/embeddings' }))).toThrow(
        UnsupportedRelayModeError,
      );
    });
  });

  describe('response', () => {
    it('converts the answer with Response.Usage', () => {
      const result = adapter().parseResponse(input(), jsonAnswer(fixture('tencent', 'chat.json')));
      expect(result).toMatchObject({ ok: true, usage: { prompt_tokens: 4, completion_tokens: 9, total_tokens: 13 } });
      expect(JSON.parse((result as { body: string }).body)).toEqual({
        id: 'chatcmpl-e0a2a8f6-3c5e-4f1a-9f1b-0c3d2e1f4a5b',
        object: 'chat.completion',
        created: 1741600000,
        model: 'hunyuan-lite',
        choices: [
          { index: 0, message: { role: 'assistant', content: '你好！有什么可以帮你的吗？' }, logprobs: null, finish_reason: 'stop' },
        ],
        usage: { prompt_tokens: 4, completion_tokens: 9, total_tokens: 13 },
      });
    });

    it.each([
      [
        'error-signature.json',
        401,
        'AuthFailure.SignatureFailure',
        expect.stringMatching(/^The provided credentials could not be validated/),
      ],
      ['error-limit.json', 429, 'LimitExceeded', '超过配额限制。'],
    ])('answers the HTTP-200 error %s with status %i so channel health and retries see it', (name, status, code, message) => {
      expect(adapter().parseResponse(input(), jsonAnswer(fixture('tencent', name)))).toEqual({
        ok: false,
        status,
        error: { message, type: 'tencent_error', param: '', code },
      });
    });

    it('maps a non-2xx body from a proxy by the common rules', () => {
      expect(adapter().mapError(502, Buffer.from('{"message":"bad gateway"}'))).toMatchObject({
        status: 502,
        error: { message: 'bad gateway' },
      });
    });
  });

  it('recognises an error body answered to a stream request, so the relay treats it as a failed attempt', () => {
    expect(adapter().refusedStream!(input(), jsonAnswer(fixture('tencent', 'error-signature.json')))).toMatchObject({
      ok: false,
      status: 401,
      error: { code: 'AuthFailure.SignatureFailure' },
    });
    expect(adapter().refusedStream!(input(), jsonAnswer(fixture('tencent', 'chat.json')))).toBeNull();
  });

  describe('stream', () => {
    const streamInput = (clientWantsUsage = false) => input({ stream: true }, { isStream: true, clientWantsUsage });

    it('turns Delta events into chunks; the finishing event carries the usage', () => {
      const run = runStream(adapter().createStreamTransformer(streamInput(true)), [fixture('tencent', 'chat-stream.sse')]);
      const { chunk, usage } = streamChunks('chatcmpl-7f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5f', 'hunyuan-lite');
      expect(dataEvents(run.output)).toEqual([
        chunk({ role: 'assistant', content: '' }),
        chunk({ content: '你好' }),
        chunk({ content: '！有什么' }),
        chunk({ content: '可以帮你的吗？' }),
        chunk({}, 'stop'),
        usage(4, 9),
        '[DONE]',
      ]);
      expect(run.summary).toMatchObject({ end: 'done', finishReason: 'stop' });
    });

    it('gives the same output however the bytes are split', () => {
      for (const name of ['chat-stream.sse', 'chat-stream-moderation.sse', 'error-signature.json']) {
        const bytes = fixture('tencent', name);
        const whole = runStream(adapter().createStreamTransformer(streamInput(true)), [bytes], { requestId: 'r' });
        for (const pieces of everySplit(bytes))
          expect(runStream(adapter().createStreamTransformer(streamInput(true)), pieces, { requestId: 'r' })).toEqual(whole);
        for (const pieces of randomSplits(bytes, 20))
          expect(runStream(adapter().createStreamTransformer(streamInput(true)), pieces, { requestId: 'r' })).toEqual(whole);
      }
    });

    it('ends with an error event for a moderation stop, billing the delivered text', () => {
      const run = runStream(adapter().createStreamTransformer(streamInput()), [fixture('tencent', 'chat-stream-moderation.sse')], {
        requestId: 'rid',
      });
      expect(run.summary).toMatchObject({ end: 'upstream_error', completionText: 'Once upon' });
      expect(dataEvents(run.trailer)).toEqual([
        { error: { message: '内容安全审核不通过 (request id: rid)', type: 'tencent_error', param: '', code: '2001' } },
      ]);
    });

    it('reads a JSON error body answered to a stream request as an upstream error with nothing forwarded', () => {
      const run = runStream(adapter().createStreamTransformer(streamInput()), [fixture('tencent', 'error-signature.json')], {
        requestId: 'rid',
      });
      expect(run.summary).toMatchObject({ end: 'upstream_error', eventsForwarded: 0, error: { code: 'AuthFailure.SignatureFailure' } });
      expect(run.output).not.toContain('[DONE]');
    });

    it('reports a body closed before the finishing event as a cut', () => {
      const bytes = fixture('tencent', 'chat-stream.sse');
      const run = runStream(adapter().createStreamTransformer(streamInput()), [bytes.subarray(0, bytes.lastIndexOf('data:'))]);
      expect(run.summary).toMatchObject({ end: 'cut', usage: null, completionText: '你好！有什么可以帮你的吗？' });
    });
  });
});
