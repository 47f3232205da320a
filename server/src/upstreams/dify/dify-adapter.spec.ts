import {
  channel,
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
import { MissingBaseUrlError, UnsupportedRelayModeError } from '../upstream-errors';
import { createDifyAdapter } from './dify-adapter';

const difyChannel = channel({ type: 37, key: 'app-key', baseUrl: 'https://dify.example.com' });
const input = chatInputFor(difyChannel, 'dify', 'Hi');
const adapter = (difyDebug = true) => createDifyAdapter(testSettings({ difyDebug }));

describe('Dify adapter (type 37)', () => {
  describe('request', () => {
    it('posts the flattened conversation to /v1/chat-messages with the app key as Bearer', () => {
      const request = adapter().buildRequest(
        input({
          messages: [
            { role: 'system', content: 'Be terse.' },
            { role: 'user', content: 'Hi' },
            { role: 'assistant', content: 'Hello' },
            { role: 'tool', content: [{ type: 'text', text: '42' }] },
          ],
          user: 'alice',
        }),
      );
      expect(request.url).toBe('https://dify.example.com/v1/chat-messages');
      expect(request.headers).toEqual({ 'content-type': 'application/json', authorization: 'Bearer app-key' });
      expect(JSON.parse(request.body as string)).toEqual({
        inputs: {},
        query: 'SYSTEM: \nBe terse.\nUSER: \nHi\nASSISTANT: \nHello\nUSER: \n42\n',
        response_mode: 'blocking',
        user: 'alice',
        auto_generate_name: false,
      });
      const streamed = adapter().buildRequest(input({ stream: true }, { isStream: true }));
      expect(JSON.parse(streamed.body as string)).toMatchObject({ response_mode: 'streaming', user: 'api-user' });
      expect(streamed.headers.accept).toBe('text/event-stream');
    });

    it('needs a base URL and serves chat only', () => {
      expect(() => adapter().buildRequest(input({}, { channel: { ...difyChannel, baseUrl: null } }))).toThrow(MissingBaseUrlError);
      expect(() => adapter().buildRequest(input({}, { relayMode: 'completions', path: '/v1/completions' }))).toThrow(
        UnsupportedRelayModeError,
      );
    });
  });

  describe('response', () => {
    it('converts a blocking answer with metadata.usage, the conversation id as the id', () => {
      const result = adapter().parseResponse(input(), jsonAnswer(fixture('dify', 'chat.json')));
      expect(result).toMatchObject({ ok: true, usage: { prompt_tokens: 1033, completion_tokens: 128, total_tokens: 1161 } });
      expect(JSON.parse((result as { body: string }).body)).toEqual({
        id: '45701982-8118-4bc5-8e9b-64562b4555f2',
        object: 'chat.completion',
        created: 1705407629,
        model: 'dify',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: 'iPhone 13 Pro Max specs are listed here:...' },
            logprobs: null,
            finish_reason: 'stop',
          },
        ],
        usage: { prompt_tokens: 1033, completion_tokens: 128, total_tokens: 1161 },
      });
    });

    it('maps Dify’s error body by its message', () => {
      expect(adapter().mapError(401, fixture('dify', 'error-unauthorized.json'))).toEqual({
        ok: false,
        status: 401,
        error: { message: 'Access token is invalid', type: 'upstream_error', param: '401', code: 'bad_response_status_code' },
      });
    });
  });

  it('keeps a rate limit at 429 with Dify’s message', () => {
    const body = Buffer.from(
      JSON.stringify({ code: 'too_many_requests', message: 'Too many requests. Please try again later.', status: 429 }),
    );
    expect(adapter().mapError(429, body)).toMatchObject({ status: 429, error: { message: 'Too many requests. Please try again later.' } });
  });

  describe('stream', () => {
    const streamInput = (clientWantsUsage = false) => input({ stream: true }, { isStream: true, clientWantsUsage });

    it('with DIFY_DEBUG off: streams message and agent_message text, skips workflow and agent_thought events, and ends at message_end with its usage', () => {
      const run = runStream(adapter(false).createStreamTransformer(streamInput(true)), [fixture('dify', 'chat-stream.sse')]);
      const { chunk, usage } = streamChunks('45701982-8118-4bc5-8e9b-64562b4555f2', 'dify');
      expect(dataEvents(run.output)).toEqual([
        chunk({ role: 'assistant', content: '' }),
        chunk({ content: ' I' }),
        chunk({ content: '’m' }),
        chunk({ content: ' glad to meet you! 😊' }),
        chunk({}, 'stop'),
        usage(1033, 135),
        '[DONE]',
      ]);
    });

    const chunksOf = (name: string, difyDebug = true) => {
      const run = runStream(adapter(difyDebug).createStreamTransformer(streamInput(true)), [fixture('dify', name)], { requestId: 'rid' });
      const all = [...dataEvents(run.output), ...dataEvents(run.trailer)] as Array<Record<string, any> | string>;
      // The content chunks (the usage chunk has no choices), and everything at the end.
      const events = all.filter((event): event is Record<string, any> => typeof event === 'object' && event.choices?.length > 0);
      return { run, events, all, trailer: dataEvents(run.trailer) };
    };

    it('a chatflow: workflow_started and node_started shown as new-api shows them (DIFY_DEBUG), node_finished, message_file and workflow_finished silent, message_end’s usage charged', () => {
      const { run, events, all } = chunksOf('chatflow-stream.sse');
      const id = '6a3b1c2e-3a0c-4a5e-9d1e-5f7b2c8e9a01';
      expect(new Set(events.map((event) => event.id))).toEqual(new Set([id]));
      expect(events.map((event) => event.choices[0]?.delta?.content ?? null)).toEqual([
        '',
        'Workflow: f3a9d2b7-1c6e-4e8f-a5b0-2d7c9e1f4a68\n',
        'Node: 1716179000001\n',
        'Node: llm\n',
        'Hello',
        ' from the flow.',
        null,
      ]);
      expect(events.at(-1)!.choices[0].finish_reason).toBe('stop');
      expect(all.at(-1)).toBe('[DONE]');
      expect(run.summary).toMatchObject({
        end: 'done',
        finishReason: 'stop',
        usage: { prompt_tokens: 21, completion_tokens: 5, total_tokens: 26 },
      });
    });

    it('a chatflow with DIFY_DEBUG off: only the answer text', () => {
      const { events, run } = chunksOf('chatflow-stream.sse', false);
      expect(events.map((event) => event.choices[0]?.delta?.content ?? null)).toEqual(['', 'Hello', ' from the flow.', null]);
      expect(run.summary.usage).toMatchObject({ prompt_tokens: 21, completion_tokens: 5 });
    });

    it('an agent: agent_thought (thoughts, tool calls, observations) stays out of the answer as in new-api, agent_message is the text', () => {
      const { events, run } = chunksOf('agent-stream.sse');
      expect(events.map((event) => event.choices[0]?.delta?.content ?? null)).toEqual([
        '',
        'It is 18°C',
        ' with light rain in Paris.',
        null,
      ]);
      expect(events[0].id).toBe('0b7e2d4a-9c1f-4e6b-a3d8-5f2c7e1b9a60');
      expect(run.summary).toMatchObject({ end: 'done', usage: { prompt_tokens: 412, completion_tokens: 37, total_tokens: 449 } });
    });

    it('a failed workflow (workflow_finished status failed) ends the stream with its error for the client, no usage from Dify', () => {
      const { run, trailer } = chunksOf('chatflow-stream-failed.sse');
      expect(run.summary).toMatchObject({ end: 'upstream_error', usage: null });
      expect(trailer).toEqual([
        {
          error: {
            message: '[openai] Error: API request failed with status code 429: Rate limit reached (request id: rid)',
            type: 'dify_error',
            param: '',
            code: 'workflow_failed',
          },
        },
      ]);
    });

    it('gives the same output however the bytes are split', () => {
      for (const name of [
        'chat-stream.sse',
        'chat-stream-error.sse',
        'chatflow-stream.sse',
        'agent-stream.sse',
        'chatflow-stream-failed.sse',
      ]) {
        const bytes = fixture('dify', name);
        const whole = runStream(adapter().createStreamTransformer(streamInput(true)), [bytes], { requestId: 'r' });
        for (const pieces of everySplit(bytes))
          expect(runStream(adapter().createStreamTransformer(streamInput(true)), pieces, { requestId: 'r' })).toEqual(whole);
        for (const pieces of randomSplits(bytes, 20))
          expect(runStream(adapter().createStreamTransformer(streamInput(true)), pieces, { requestId: 'r' })).toEqual(whole);
      }
    });

    it('ends an error event with an error for the client (new-api stopped silently), billing the delivered text', () => {
      const run = runStream(adapter().createStreamTransformer(streamInput()), [fixture('dify', 'chat-stream-error.sse')], {
        requestId: 'rid',
      });
      expect(run.summary).toMatchObject({ end: 'upstream_error', usage: null, completionText: 'Once upon' });
      expect(dataEvents(run.trailer)).toEqual([
        {
          error: {
            message: '[openai] Rate Limit Error, Rate limit reached for gpt-4o (request id: rid)',
            type: 'dify_error',
            param: '',
            code: 'completion_request_error',
          },
        },
      ]);
    });

    it('reports a body closed before message_end as a cut', () => {
      const bytes = fixture('dify', 'chat-stream.sse');
      const run = runStream(adapter().createStreamTransformer(streamInput()), [
        bytes.subarray(0, bytes.indexOf('data: {"event": "message_end"')),
      ]);
      expect(run.summary).toMatchObject({ end: 'cut', usage: null });
    });
  });
});
