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
import { MissingBaseUrlError, UnsupportedRelayModeError } from '../upstream-errors';
import { createPalmAdapter } from './palm-adapter';

const palmChannel = channel({ type: 11, key: 'palm-key', baseUrl: 'https://generativelanguage.googleapis.com' });
const input = chatInputFor(palmChannel, 'PaLM-2', 'Say hello.');
const adapter = () => createPalmAdapter(testSettings());

describe('PaLM 2 adapter (type 11)', () => {
  describe('request', () => {
    it('calls chat-bison-001:generateMessage with x-goog-api-key, user turns as author 0 and system as context', () => {
      const request = adapter().buildRequest(
        input({
          messages: [
            { role: 'system', content: 'Be terse.' },
            { role: 'user', content: 'Hi' },
            { role: 'assistant', content: 'Hello' },
            { role: 'user', content: [{ type: 'text', text: 'Again' }] },
          ],
          temperature: 0,
          top_p: 0.9,
          top_k: 40,
          max_tokens: 5,
          n: 2,
        }),
      );
      expect(request.url).toBe('https://generativelanguage.googleapis.com/v1beta2/models/chat-bison-001:generateMessage');
      expect(request.headers).toEqual({ 'content-type': 'application/json', 'x-goog-api-key': 'palm-key' });
      expect(JSON.parse(request.body as string)).toEqual({
        prompt: {
          context: 'Be terse.',
          messages: [
            { author: '0', content: 'Hi' },
            { author: '1', content: 'Hello' },
            { author: '0', content: 'Again' },
          ],
        },
        temperature: 0,
        topP: 0.9,
        topK: 40,
        candidateCount: 2,
      });
    });

    it('needs a base URL and serves chat only', () => {
      expect(() => adapter().buildRequest(input({}, { channel: { ...palmChannel, baseUrl: '' } }))).toThrow(MissingBaseUrlError);
      expect(() => adapter().buildRequest(input({}, { relayMode: 'embeddings', path: '/v1/embeddings' }))).toThrow(
        UnsupportedRelayModeError,
      );
    });
  });

  describe('response', () => {
    it('converts the candidates; usage is left to the local count', () => {
      const result = adapter().parseResponse(input(), jsonAnswer(fixture('palm', 'message.json')));
      expect(result).toMatchObject({ ok: true, usage: null, completionText: 'Hello! How can I help you today?' });
      expect(JSON.parse((result as { body: string }).body)).toEqual({
        id: 'chatcmpl-id1',
        object: 'chat.completion',
        created,
        model: 'PaLM-2',
        choices: [
          { index: 0, message: { role: 'assistant', content: 'Hello! How can I help you today?' }, logprobs: null, finish_reason: 'stop' },
        ],
      });
    });

    it('answers a filtered answer (no candidates) as an error with the filter reason', () => {
      expect(adapter().parseResponse(input(), jsonAnswer(fixture('palm', 'message-filtered.json')))).toEqual({
        ok: false,
        status: 200,
        error: { message: 'No candidates returned (filtered: OTHER)', type: 'palm_error', param: '', code: 'no_candidates' },
      });
    });

    it('answers an invalid API key with 401 so the channel is disabled', () => {
      expect(adapter().mapError(400, fixture('palm', 'error-invalid-key.json'))).toEqual({
        ok: false,
        status: 401,
        error: { message: 'API key not valid. Please pass a valid API key.', type: 'INVALID_ARGUMENT', param: null, code: 400 },
      });
    });
  });

  it('keeps a quota error at 429 with Google’s status as the type', () => {
    const body = Buffer.from(
      JSON.stringify({ error: { code: 429, message: 'Resource has been exhausted (e.g. check quota).', status: 'RESOURCE_EXHAUSTED' } }),
    );
    expect(adapter().mapError(429, body)).toEqual({
      ok: false,
      status: 429,
      error: { message: 'Resource has been exhausted (e.g. check quota).', type: 'RESOURCE_EXHAUSTED', param: null, code: 429 },
    });
  });

  describe('stream (made from the whole answer)', () => {
    const streamInput = (clientWantsUsage = false) => input({ stream: true }, { isStream: true, clientWantsUsage });

    it('sends the role, the whole text and the finish once the answer is read, then the locally counted usage', () => {
      const transformer = adapter().createStreamTransformer(streamInput(true));
      expect(transformer.push(fixture('palm', 'message.json'))).toBeNull();
      const summary = transformer.finish('eof');
      expect(summary).toMatchObject({ end: 'done', usage: null, completionText: 'Hello! How can I help you today?' });
      const trailer = transformer.trailer({ usage: { prompt_tokens: 5, completion_tokens: 9, total_tokens: 14 } }) as string;
      const { identity, usage } = streamChunks('chatcmpl-id1', 'PaLM-2');
      expect(dataEvents(trailer)).toEqual([
        { ...identity, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
        { ...identity, choices: [{ index: 0, delta: { content: 'Hello! How can I help you today?' }, finish_reason: null }] },
        { ...identity, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
        usage(5, 9),
        '[DONE]',
      ]);
    });

    it('gives the same output however the bytes are split; a filtered answer and a cut body are errors', () => {
      for (const name of ['message.json', 'message-filtered.json']) {
        const bytes = fixture('palm', name);
        const whole = runStream(adapter().createStreamTransformer(streamInput()), [bytes], { requestId: 'r' });
        for (const pieces of everySplit(bytes))
          expect(runStream(adapter().createStreamTransformer(streamInput()), pieces, { requestId: 'r' })).toEqual(whole);
        for (const pieces of randomSplits(bytes, 10))
          expect(runStream(adapter().createStreamTransformer(streamInput()), pieces, { requestId: 'r' })).toEqual(whole);
      }
      const filtered = runStream(adapter().createStreamTransformer(streamInput()), [fixture('palm', 'message-filtered.json')]);
      expect(filtered.summary).toMatchObject({ end: 'upstream_error', error: { code: 'no_candidates' } });
      const bytes = fixture('palm', 'message.json');
      const cut = runStream(adapter().createStreamTransformer(streamInput()), [bytes.subarray(0, 20)], { cause: 'connection_error' });
      expect(cut.summary).toMatchObject({ end: 'cut', eventsForwarded: 0 });
    });
  });
});
