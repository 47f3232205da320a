import {
  channel,
  chatInput,
  dataEvents,
  everySplit,
  fixture,
  jsonAnswer,
  randomSplits,
  runStream,
  testSettings,
} from '../testing/upstream-test-kit';
import type { UpstreamRequestInput } from '../upstream-adapter';
import { UnsupportedRelayModeError } from '../upstream-errors';
import { createMiniMaxAdapter } from './minimax-adapter';

const miniMaxChannel = channel({ type: 35, key: 'mm-key', baseUrl: null });
const input = (overrides: Partial<UpstreamRequestInput> = {}) =>
  chatInput({
    channel: miniMaxChannel,
    body: { model: 'abab6.5s-chat', messages: [{ role: 'user', content: 'Hi' }], temperature: 0 },
    upstreamModel: 'abab6.5s-chat',
    ...overrides,
  });
const adapter = () => createMiniMaxAdapter(testSettings());

describe('MiniMax adapter (type 35)', () => {
  it('sends chat, OpenAI-shaped, to the v2 path with the key as Bearer', () => {
    const request = adapter().buildRequest(
      input({ body: { model: 'abab', messages: [], stream: true, stream_options: { include_usage: true } }, isStream: true }),
    );
    expect(request.url).toBe('https://api.minimax.chat/v1/text/chatcompletion_v2');
    expect(request.headers.authorization).toBe('Bearer mm-key');
    const body = JSON.parse(Buffer.from(request.body as Uint8Array).toString());
    expect(body).toMatchObject({ model: 'abab6.5s-chat', stream: true });
    expect(body.stream_options).toBeUndefined();
    expect(adapter().buildRequest(input({ channel: { ...miniMaxChannel, baseUrl: 'http://fake:1/mm' } })).url).toBe(
      'http://fake:1/mm/v1/text/chatcompletion_v2',
    );
  });

  it('serves chat only (the v2 path answers nothing else)', () => {
    expect(() => adapter().buildRequest(input({ relayMode: 'embeddings', path: '/v1/embeddings' }))).toThrow(UnsupportedRelayModeError);
  });

  it('passes the answer through with its usage', () => {
    expect(adapter().parseResponse(input(), jsonAnswer(fixture('minimax', 'chat.json')))).toMatchObject({
      ok: true,
      passthrough: true,
      usage: { prompt_tokens: 66, completion_tokens: 9, total_tokens: 75 },
    });
  });

  it('answers base_resp errors (HTTP 200 from MiniMax) with the status of their code', () => {
    const expected = {
      ok: false,
      status: 401,
      error: {
        message: expect.stringMatching(/^login fail: Please carry the API secret key/),
        type: 'minimax_error',
        param: '',
        code: 1004,
      },
    };
    expect(adapter().parseResponse(input(), jsonAnswer(fixture('minimax', 'error-login.json')))).toEqual(expected);
    const limit = JSON.stringify({ base_resp: { status_code: 1002, status_msg: 'rate limit exceeded(RPM)' } });
    expect(adapter().parseResponse(input(), jsonAnswer(limit))).toMatchObject({ status: 429, error: { code: 1002 } });
  });

  it('recognises a base_resp error answered to a stream request, so the relay treats it as a failed attempt', () => {
    expect(adapter().refusedStream!(input(), jsonAnswer(fixture('minimax', 'error-login.json')))).toMatchObject({
      ok: false,
      status: 401,
      error: { code: 1004 },
    });
    expect(adapter().refusedStream!(input(), jsonAnswer(fixture('minimax', 'chat.json')))).toBeNull();
  });

  describe('stream', () => {
    const streamInput = () => input({ isStream: true, clientWantsUsage: true });

    it('forwards the chunks and bills the usage of the finishing chunk', () => {
      const run = runStream(adapter().createStreamTransformer(streamInput()), [fixture('minimax', 'chat-stream.sse')]);
      const events = dataEvents(run.output) as Array<Record<string, any> | string>;
      expect(events.at(-1)).toBe('[DONE]');
      expect(
        events
          .slice(0, -1)
          .map((event) => (event as Record<string, any>).choices[0]?.delta?.content ?? '')
          .join(''),
      ).toBe('Hello! How can I help?');
      expect(run.summary).toMatchObject({ end: 'done', finishReason: 'stop', usage: { prompt_tokens: 66, completion_tokens: 6 } });
    });

    it('gives the same output however the bytes are split, for the stream and for a JSON error body', () => {
      for (const name of ['chat-stream.sse', 'error-login.json']) {
        const bytes = fixture('minimax', name);
        const whole = runStream(adapter().createStreamTransformer(streamInput()), [bytes], { requestId: 'r' });
        for (const pieces of everySplit(bytes, 3))
          expect(runStream(adapter().createStreamTransformer(streamInput()), pieces, { requestId: 'r' })).toEqual(whole);
        for (const pieces of randomSplits(bytes, 10))
          expect(runStream(adapter().createStreamTransformer(streamInput()), pieces, { requestId: 'r' })).toEqual(whole);
      }
    });

    it('reads a base_resp error answered to a stream request as an upstream error with nothing forwarded', () => {
      const run = runStream(adapter().createStreamTransformer(streamInput()), [fixture('minimax', 'error-login.json')], {
        requestId: 'rid',
      });
      expect(run.summary).toMatchObject({ end: 'upstream_error', eventsForwarded: 0, error: { code: 1004, type: 'minimax_error' } });
      expect(run.output).not.toContain('[DONE]');
    });
  });
});
