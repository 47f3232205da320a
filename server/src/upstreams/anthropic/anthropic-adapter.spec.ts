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
import { createAnthropicAdapter } from './anthropic-adapter';

const claudeChannel = channel({ type: 14, key: 'sk-ant-test', baseUrl: null });
const input = chatInputFor(claudeChannel, 'claude-3-5-haiku-20241022', 'Hello');
const adapter = () => createAnthropicAdapter(testSettings());
const built = (body: Record<string, unknown>, overrides: Partial<UpstreamRequestInput> = {}) =>
  builtBody(adapter(), input(body, overrides));

describe('Anthropic adapter (type 14)', () => {
  describe('request', () => {
    it('posts every model to /v1/messages with x-api-key and anthropic-version (client header or 2023-06-01)', () => {
      const request = adapter().buildRequest(input());
      expect(request.url).toBe('https://api.anthropic.com/v1/messages');
      expect(request.headers).toEqual({
        'content-type': 'application/json',
        'x-api-key': 'sk-ant-test',
        'anthropic-version': '2023-06-01',
      });
      const custom = adapter().buildRequest(
        input(
          {},
          {
            channel: { ...claudeChannel, baseUrl: 'http://fake:8080/' },
            clientHeaders: { anthropicVersion: '2024-01-01', anthropicBeta: 'prompt-caching-2024-07-31' },
          },
        ),
      );
      expect(custom.url).toBe('http://fake:8080/v1/messages');
      expect(custom.headers).toMatchObject({ 'anthropic-version': '2024-01-01', 'anthropic-beta': 'prompt-caching-2024-07-31' });
      expect(adapter().buildRequest(input({}, { upstreamModel: 'claude-2.1' })).path).toBe('/v1/messages');
    });

    it('defaults max_tokens to 4096, keeps temperature 0, maps stop, top_k and user, and sets stream', () => {
      expect(built({})).toEqual({
        model: 'claude-3-5-haiku-20241022',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }],
        max_tokens: 4096,
      });
      expect(
        built(
          { max_tokens: 50, temperature: 0, top_p: 0.9, top_k: 5, stop: ['\n\nHuman:', 'END'], user: 'u-1', stream: true },
          { isStream: true },
        ),
      ).toMatchObject({
        max_tokens: 50,
        temperature: 0,
        top_p: 0.9,
        top_k: 5,
        stop_sequences: ['\n\nHuman:', 'END'],
        metadata: { user_id: 'u-1' },
        stream: true,
      });
      expect(built({ max_completion_tokens: 12, stop: 'STOP' })).toMatchObject({ max_tokens: 12, stop_sequences: ['STOP'] });
    });

    it('joins every system message into system, merges consecutive turns and opens with a user turn', () => {
      const body = built({
        messages: [
          { role: 'system', content: 'You are terse.' },
          { role: 'assistant', content: 'Earlier answer' },
          { role: 'system', content: [{ type: 'text', text: 'Answer in French.' }] },
          { role: 'user', content: 'One' },
          { role: 'user', content: [{ type: 'text', text: 'Two' }] },
          { role: 'assistant', content: '' },
        ],
      });
      expect(body.system).toBe('You are terse.\n\nAnswer in French.');
      expect(body.messages).toEqual([
        { role: 'user', content: [{ type: 'text', text: '...' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'Earlier answer' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'One' },
            { type: 'text', text: 'Two' },
          ],
        },
        { role: 'assistant', content: [{ type: 'text', text: '...' }] },
      ]);
    });

    it('converts tools, tool_choice, assistant tool calls and tool results (parallel results in one user turn)', () => {
      const body = built({
        messages: [
          { role: 'user', content: 'Weather in SF and NYC?' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"location":"SF"}' } },
              { id: 'toolu_2', type: 'function', function: { name: 'get_weather', arguments: '{"location":"NYC"}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'toolu_1', content: '18C' },
          { role: 'tool', tool_call_id: 'toolu_2', content: [{ type: 'text', text: '25C' }] },
        ],
        tools: [
          {
            type: 'function',
            function: {
              name: 'get_weather',
              description: 'Current weather',
              parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
            },
          },
        ],
        tool_choice: 'required',
        parallel_tool_calls: false,
      });
      expect(body.tools).toEqual([
        {
          name: 'get_weather',
          description: 'Current weather',
          input_schema: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
        },
      ]);
      expect(body.tool_choice).toEqual({ type: 'any', disable_parallel_tool_use: true });
      expect(body.messages).toEqual([
        { role: 'user', content: [{ type: 'text', text: 'Weather in SF and NYC?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { location: 'SF' } },
            { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { location: 'NYC' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: '18C' },
            { type: 'tool_result', tool_use_id: 'toolu_2', content: '25C' },
          ],
        },
      ]);
      expect(
        built({ tools: [{ type: 'function', function: { name: 'f' } }], tool_choice: { type: 'function', function: { name: 'f' } } })
          .tool_choice,
      ).toEqual({ type: 'tool', name: 'f' });
      expect(built({ tool_choice: 'required' }).tool_choice).toBeUndefined();
    });

    it('sends data-URL images as base64 and http images by URL', () => {
      const body = built({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Compare' },
              { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQ' } },
              { type: 'image_url', image_url: 'https://example.com/b.png' },
            ],
          },
        ],
      });
      expect(body.messages[0].content).toEqual([
        { type: 'text', text: 'Compare' },
        { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/4AAQ' } },
        { type: 'image', source: { type: 'url', url: 'https://example.com/b.png' } },
      ]);
      expect(() => built({ messages: [{ role: 'user', content: [{ type: 'input_audio' }] }] })).toThrow(ConvertRequestError);
    });

    it('serves chat only', () => {
      expect(() => adapter().buildRequest(input({}, { relayMode: 'embeddings', path: '/v1/embeddings' }))).toThrow(
        UnsupportedRelayModeError,
      );
    });
  });

  describe('response', () => {
    it('joins all text blocks (new-api kept the first) and reports usage', () => {
      const result = adapter().parseResponse(input(), jsonAnswer(fixture('anthropic', 'message-text.json')));
      expect(result).toMatchObject({
        ok: true,
        status: 200,
        passthrough: false,
        usage: { prompt_tokens: 2095, completion_tokens: 503, total_tokens: 2598 },
        completionText: null,
      });
      expect(JSON.parse((result as { body: string }).body)).toEqual(
        chatCompletion({
          id: 'msg_013Zva2CMHLNnXjNJJKqJ2EF',
          model: 'claude-3-5-sonnet-20241022',
          message: { role: 'assistant', content: 'Hi! My name is Claude. How can I help?' },
          finishReason: 'stop',
          usage: { prompt_tokens: 2095, completion_tokens: 503, total_tokens: 2598 },
        }),
      );
    });

    it('converts tool_use to tool_calls with finish_reason tool_calls, thinking to reasoning_content, cache tokens into prompt_tokens', () => {
      const result = adapter().parseResponse(input(), jsonAnswer(fixture('anthropic', 'message-tool-use.json')));
      const body = JSON.parse((result as { body: string }).body);
      expect(body.choices[0]).toEqual({
        index: 0,
        message: {
          role: 'assistant',
          content: "I'll check the weather.",
          reasoning_content: 'The user wants the weather; I should call the tool.',
          tool_calls: [
            {
              id: 'toolu_01A09q90qw90lq917835lq9',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"location":"San Francisco, CA","unit":"celsius"}' },
            },
          ],
        },
        logprobs: null,
        finish_reason: 'tool_calls',
      });
      expect(result).toMatchObject({
        usage: {
          prompt_tokens: 1884,
          completion_tokens: 96,
          total_tokens: 1980,
          prompt_tokens_details: { cached_tokens: 300, cache_creation_tokens: 1200 },
        },
      });
    });

    it('maps max_tokens to length', () => {
      const body = JSON.parse(
        (adapter().parseResponse(input(), jsonAnswer(fixture('anthropic', 'message-max-tokens.json'))) as { body: string }).body,
      );
      expect(body.choices[0].finish_reason).toBe('length');
    });

    it.each([
      ['error-authentication.json', 401, 'authentication_error', 'invalid x-api-key'],
      ['error-rate-limit.json', 429, 'rate_limit_error', expect.stringMatching(/^Number of request tokens/)],
      ['error-overloaded.json', 529, 'overloaded_error', 'Overloaded'],
      ['error-invalid-request.json', 400, 'invalid_request_error', expect.stringMatching(/^messages: roles must alternate/)],
    ])('maps %s to status %i with the Claude error type', (name, status, type, message) => {
      const expected = { ok: false, status, error: { message, type, param: null, code: null } };
      expect(adapter().mapError(status, fixture('anthropic', name))).toEqual(expected);
      expect(adapter().parseResponse(input(), jsonAnswer(fixture('anthropic', name), status))).toEqual(expected);
    });

    it('answers an error inside a 200 body with type = code = the Claude type and status 200 (not retried)', () => {
      expect(adapter().parseResponse(input(), jsonAnswer(fixture('anthropic', 'error-overloaded.json')))).toEqual({
        ok: false,
        status: 200,
        error: { message: 'Overloaded', type: 'overloaded_error', param: null, code: 'overloaded_error' },
      });
    });
  });

  describe('stream', () => {
    const streamInput = (clientWantsUsage = false) => input({ stream: true }, { isStream: true, clientWantsUsage });

    it('turns Claude events into OpenAI chunks: role, text, finish, then the usage chunk if asked and [DONE]', () => {
      const run = runStream(adapter().createStreamTransformer(streamInput(true)), [fixture('anthropic', 'messages-stream-text.sse')]);
      const { chunk, usage } = streamChunks('msg_01XFDUDYJgAACzvnptvVoYEL', 'claude-3-5-sonnet-20241022');
      expect(dataEvents(run.output)).toEqual([
        chunk({ role: 'assistant', content: '' }),
        chunk({ content: 'Hello' }),
        chunk({ content: '! How can I' }),
        chunk({ content: ' help you ' }),
        chunk({ content: 'today? 😊\n\n' }),
        chunk({ content: 'Sincerely, "Claude"' }),
        chunk({}, 'stop'),
        usage(25, 15),
        '[DONE]',
      ]);
      expect(run.summary).toMatchObject({ end: 'done', usage: { prompt_tokens: 25, completion_tokens: 15 }, finishReason: 'stop' });
    });

    it('gives the same output however the bytes are split', () => {
      for (const name of ['messages-stream-text.sse', 'messages-stream-tool-use.sse', 'messages-stream-error.sse']) {
        const bytes = fixture('anthropic', name);
        const whole = runStream(adapter().createStreamTransformer(streamInput(true)), [bytes], { requestId: 'r' });
        for (const pieces of everySplit(bytes, 11))
          expect(runStream(adapter().createStreamTransformer(streamInput(true)), pieces, { requestId: 'r' })).toEqual(whole);
        for (const pieces of randomSplits(bytes, 20))
          expect(runStream(adapter().createStreamTransformer(streamInput(true)), pieces, { requestId: 'r' })).toEqual(whole);
      }
    });

    it('streams a tool call: id and name first, then argument pieces; bills cache reads as prompt tokens', () => {
      const run = runStream(adapter().createStreamTransformer(streamInput()), [fixture('anthropic', 'messages-stream-tool-use.sse')]);
      const deltas = (dataEvents(run.body) as Array<Record<string, any>>).map((event) => event.choices[0].delta);
      const calls = deltas.filter((delta) => delta.tool_calls).map((delta) => delta.tool_calls[0]);
      expect(calls[0]).toEqual({
        index: 0,
        id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
        type: 'function',
        function: { name: 'get_weather', arguments: '' },
      });
      expect(
        calls
          .slice(1)
          .map((call) => call.function.arguments)
          .join(''),
      ).toBe('{"location": "San Francisco, CA", "unit": "fahrenheit"}');
      expect(run.summary).toMatchObject({
        end: 'done',
        finishReason: 'tool_calls',
        toolCallCount: 1,
        usage: { prompt_tokens: 2520, completion_tokens: 89, prompt_tokens_details: { cached_tokens: 2048 } },
      });
    });

    it('ends with an error event for a mid-stream error (new-api swallowed it), billing the prompt and delivered text', () => {
      const run = runStream(adapter().createStreamTransformer(streamInput()), [fixture('anthropic', 'messages-stream-error.sse')], {
        requestId: 'rid',
      });
      expect(run.summary).toMatchObject({ end: 'upstream_error', usage: null, promptTokens: 12, completionText: 'Once upon' });
      expect(dataEvents(run.trailer)).toEqual([
        { error: { message: 'Overloaded (request id: rid)', type: 'overloaded_error', param: null, code: null } },
      ]);
      expect(run.output).not.toContain('[DONE]');
    });

    it('reports a body closed before message_stop and without a stop reason as a cut', () => {
      const bytes = fixture('anthropic', 'messages-stream-text.sse');
      const run = runStream(adapter().createStreamTransformer(streamInput()), [bytes.subarray(0, bytes.indexOf('event: message_delta'))], {
        cause: 'connection_error',
      });
      expect(run.summary).toMatchObject({ end: 'cut', usage: null, promptTokens: 25 });
      expect(dataEvents(run.trailer)).toEqual([{ error: expect.objectContaining({ code: 'upstream_stream_cut' }) }]);
    });
  });
});
