import {
  builtBody,
  channel,
  chatCompletion,
  chatInputFor,
  dataEvents,
  everySplit,
  fixture,
  jsonAnswer,
  randomSplits,
  runStream,
  streamChunks,
  testSettings,
} from '../testing/upstream-test-kit';
import type { UpstreamRequestInput } from '../upstream-adapter';
import { ConvertRequestError, UnsupportedRelayModeError } from '../upstream-errors';
import { createCohereAdapter } from './cohere-adapter';

const cohereChannel = channel({ type: 34, key: 'co-key', baseUrl: null });
const input = chatInputFor(cohereChannel, 'command-r', 'Say hello.');
const adapter = () => createCohereAdapter(testSettings());
const built = (body: Record<string, unknown>, overrides: Partial<UpstreamRequestInput> = {}) =>
  builtBody(adapter(), input(body, overrides));
const rerankInput = (body: Record<string, unknown>) =>
  input(body, { relayMode: 'rerank', path: '/v1/rerank', upstreamModel: 'rerank-english-v3.0' });

describe('Cohere adapter (type 34)', () => {
  describe('request', () => {
    it('posts chat to /v1/chat with the key as Bearer, on the channel base URL when set', () => {
      const request = adapter().buildRequest(input());
      expect(request.url).toBe('https://api.cohere.ai/v1/chat');
      expect(request.headers).toEqual({ 'content-type': 'application/json', accept: 'application/json', authorization: 'Bearer co-key' });
      expect(adapter().buildRequest(input({}, { channel: { ...cohereChannel, baseUrl: 'http://fake:1/' } })).url).toBe(
        'http://fake:1/v1/chat',
      );
    });

    it('sends the last user message as message and everything before it, earlier user turns included, as chat_history', () => {
      expect(
        built({
          messages: [
            { role: 'system', content: 'Be terse.' },
            { role: 'user', content: 'First' },
            { role: 'assistant', content: 'One' },
            { role: 'user', content: [{ type: 'text', text: 'Second' }] },
          ],
          temperature: 0,
          top_p: 0.5,
          top_k: 3,
          seed: 7,
          stop: 'END',
          max_tokens: 20,
        }),
      ).toEqual({
        model: 'command-r',
        message: 'Second',
        chat_history: [
          { role: 'SYSTEM', message: 'Be terse.' },
          { role: 'USER', message: 'First' },
          { role: 'CHATBOT', message: 'One' },
        ],
        max_tokens: 20,
        temperature: 0,
        p: 0.5,
        k: 3,
        seed: 7,
        stop_sequences: ['END'],
      });
      expect(built({ stream: true }, { isStream: true })).toEqual({
        model: 'command-r',
        message: 'Say hello.',
        max_tokens: 4000,
        stream: true,
      });
    });

    it('sends rerank to /v1/rerank with the documents returned, top_n only when asked', () => {
      const request = adapter().buildRequest(
        rerankInput({ model: 'rerank', query: 'capital of Germany', documents: ['Paris', 'Berlin'], top_n: 2 }),
      );
      expect(request.url).toBe('https://api.cohere.ai/v1/rerank');
      expect(JSON.parse(request.body as string)).toEqual({
        model: 'rerank-english-v3.0',
        query: 'capital of Germany',
        documents: ['Paris', 'Berlin'],
        top_n: 2,
        return_documents: true,
      });
      expect(() => adapter().buildRequest(rerankInput({ query: 'q', documents: [] }))).toThrow(ConvertRequestError);
    });

    it('serves chat and rerank only', () => {
      expect(() => adapter().buildRequest(input({}, { relayMode: 'embeddings', path: '/v1/embeddings' }))).toThrow(
        UnsupportedRelayModeError,
      );
    });
  });

  describe('response', () => {
    it('converts a chat answer with usage from meta.billed_units', () => {
      const result = adapter().parseResponse(input(), jsonAnswer(fixture('cohere', 'chat.json')));
      expect(result).toMatchObject({
        ok: true,
        usage: { prompt_tokens: 11, completion_tokens: 9, total_tokens: 20 },
        completionText: null,
      });
      expect(JSON.parse((result as { body: string }).body)).toEqual(
        chatCompletion({
          id: 'chatcmpl-5a1a6e0e-8c7f-4b8e-9b8f-2d1f0c3b9a11',
          model: 'command-r',
          message: { role: 'assistant', content: 'Hello! How can I help you today?' },
          finishReason: 'stop',
          usage: { prompt_tokens: 11, completion_tokens: 9, total_tokens: 20 },
        }),
      );
    });

    it('maps MAX_TOKENS to length and ERROR to an error with the upstream status', () => {
      const body = (reason: string) => JSON.stringify({ response_id: 'r', text: 'x', finish_reason: reason, meta: {} });
      const length = adapter().parseResponse(input(), jsonAnswer(body('MAX_TOKENS')));
      expect(JSON.parse((length as { body: string }).body).choices[0].finish_reason).toBe('length');
      expect(length).toMatchObject({ usage: null, completionText: 'x' });
      expect(adapter().parseResponse(input(), jsonAnswer(body('ERROR')))).toEqual({
        ok: false,
        status: 200,
        error: { message: 'Cohere stopped: ERROR', type: 'cohere_error', param: '', code: 'ERROR' },
      });
    });

    it('converts rerank to the Jina-style answer; search units are not tokens, so the relay counts the prompt', () => {
      const result = adapter().parseResponse(rerankInput({ query: 'q', documents: ['a'] }), jsonAnswer(fixture('cohere', 'rerank.json')));
      expect(result).toMatchObject({ ok: true, usage: null, completionText: '' });
      expect(JSON.parse((result as { body: string }).body)).toEqual({
        id: '07734bd2-2473-4f07-94e1-0d9f0e6843cf',
        model: 'rerank-english-v3.0',
        results: [
          { index: 1, relevance_score: 0.9990564, document: { text: 'Berlin is the capital of Germany.' } },
          { index: 0, relevance_score: 0.032629214, document: { text: 'Paris is the capital of France.' } },
        ],
      });
      const withTokens = adapter().parseResponse(
        rerankInput({ query: 'q', documents: ['a'] }),
        jsonAnswer(JSON.stringify({ results: [], meta: { billed_units: { input_tokens: 30 } } })),
      );
      expect(withTokens).toMatchObject({ usage: { prompt_tokens: 30, completion_tokens: 0, total_tokens: 30 } });
      expect(JSON.parse((withTokens as { body: string }).body).usage).toEqual({ prompt_tokens: 30, total_tokens: 30 });
    });

    it.each([
      ['error-unauthorized.json', 401, 'invalid api token'],
      ['error-rate-limit.json', 429, expect.stringMatching(/^You are using a Trial key/)],
    ])('maps %s (status %i) with Cohere’s message', (name, status, message) => {
      const expected = {
        ok: false,
        status,
        error: { message, type: 'upstream_error', param: String(status), code: 'bad_response_status_code' },
      };
      expect(adapter().mapError(status, fixture('cohere', name))).toEqual(expected);
      expect(adapter().parseResponse(input(), jsonAnswer(fixture('cohere', name), status))).toEqual(expected);
    });
  });

  describe('stream (newline-delimited JSON)', () => {
    const streamInput = (clientWantsUsage = false) => input({ stream: true }, { isStream: true, clientWantsUsage });

    it('turns the events into role, text and finish chunks, with usage from the stream-end billed_units', () => {
      const run = runStream(adapter().createStreamTransformer(streamInput(true)), [fixture('cohere', 'chat-stream.jsonl')]);
      const { chunk, usage } = streamChunks('chatcmpl-8e4a3d5c-77b1-4f4a-9a35-1c2e8b0f6d42', 'command-r');
      expect(dataEvents(run.output)).toEqual([
        chunk({ role: 'assistant', content: '' }),
        chunk({ content: 'Hello' }),
        chunk({ content: '!' }),
        chunk({ content: ' How can I help' }),
        chunk({ content: ' you today? 😊' }),
        chunk({}, 'stop'),
        usage(11, 10),
        '[DONE]',
      ]);
      expect(run.summary).toMatchObject({ end: 'done', finishReason: 'stop', completionText: 'Hello! How can I help you today? 😊' });
    });

    it('gives the same output however the bytes are split', () => {
      for (const name of ['chat-stream.jsonl', 'chat-stream-max-tokens.jsonl', 'chat-stream-error.jsonl']) {
        const bytes = fixture('cohere', name);
        const whole = runStream(adapter().createStreamTransformer(streamInput(true)), [bytes], { requestId: 'r' });
        for (const pieces of everySplit(bytes))
          expect(runStream(adapter().createStreamTransformer(streamInput(true)), pieces, { requestId: 'r' })).toEqual(whole);
        for (const pieces of randomSplits(bytes, 20))
          expect(runStream(adapter().createStreamTransformer(streamInput(true)), pieces, { requestId: 'r' })).toEqual(whole);
      }
    });

    it('maps MAX_TOKENS to length with its usage', () => {
      const run = runStream(adapter().createStreamTransformer(streamInput()), [fixture('cohere', 'chat-stream-max-tokens.jsonl')]);
      expect(run.summary).toMatchObject({ end: 'done', finishReason: 'length', usage: { prompt_tokens: 6, completion_tokens: 4 } });
    });

    it('ends a stream-end ERROR with an error event and no [DONE], billing the delivered text', () => {
      const run = runStream(adapter().createStreamTransformer(streamInput()), [fixture('cohere', 'chat-stream-error.jsonl')], {
        requestId: 'rid',
      });
      expect(run.summary).toMatchObject({ end: 'upstream_error', usage: null, completionText: 'Once upon' });
      expect(dataEvents(run.trailer)).toEqual([
        {
          error: {
            message: 'internal server error, this has been reported to our developers (request id: rid)',
            type: 'cohere_error',
            param: '',
            code: 'ERROR',
          },
        },
      ]);
    });

    it('reports a body closed before stream-end as a cut', () => {
      const bytes = fixture('cohere', 'chat-stream.jsonl');
      const run = runStream(adapter().createStreamTransformer(streamInput()), [bytes.subarray(0, bytes.indexOf('"stream-end"'))]);
      expect(run.summary).toMatchObject({ end: 'cut', usage: null });
      expect(dataEvents(run.trailer)).toEqual([{ error: expect.objectContaining({ code: 'upstream_stream_cut' }) }]);
    });
  });
});
