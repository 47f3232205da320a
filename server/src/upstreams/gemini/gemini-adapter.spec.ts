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
import { parseConfig } from '../../config/app-config';
import { createUpstreamRegistry } from '../upstream-registry';
import { GEMINI_HARM_CATEGORIES } from './build-gemini-request';
import { createGeminiAdapter } from './gemini-adapter';

const geminiChannel = channel({ type: 24, key: 'AIza-test-key', baseUrl: null, other: null });
const input = chatInputFor(geminiChannel, 'gemini-2.0-flash', 'Hello');
const adapter = (settings = testSettings()) => createGeminiAdapter(settings);
const built = (body: Record<string, unknown>, overrides: Partial<UpstreamRequestInput> = {}) =>
  builtBody(adapter(), input(body, overrides));

describe('Gemini adapter (type 24)', () => {
  describe('request', () => {
    it('calls generateContent on v1beta (or the channel version) with x-goog-api-key, and streamGenerateContent?alt=sse for streams', () => {
      const plain = adapter().buildRequest(input());
      expect(plain.url).toBe('https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:generateContent');
      expect(plain.headers).toEqual({ 'content-type': 'application/json', 'x-goog-api-key': 'AIza-test-key' });
      expect(plain.url).not.toContain('key=');
      const stream = adapter().buildRequest(
        input({ stream: true }, { isStream: true, channel: { ...geminiChannel, other: 'v1', baseUrl: 'http://fake:9000/' } }),
      );
      expect(stream.url).toBe('http://fake:9000/v1/models/gemini-2.0-flash:streamGenerateContent?alt=sse');
      expect(stream.headers.accept).toBe('text/event-stream');
    });

    it('puts system messages in systemInstruction (no injected "Okay" turn) and maps roles and merges turns', () => {
      const body = built({
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'developer', content: [{ type: 'text', text: 'Use metric.' }] },
          { role: 'user', content: 'Hi' },
          { role: 'user', content: 'there' },
          { role: 'assistant', content: 'Hello!' },
          { role: 'user', content: 'Weather?' },
        ],
      });
      expect(body.systemInstruction).toEqual({ parts: [{ text: 'Be brief.' }, { text: 'Use metric.' }] });
      expect(body.contents).toEqual([
        { role: 'user', parts: [{ text: 'Hi' }, { text: 'there' }] },
        { role: 'model', parts: [{ text: 'Hello!' }] },
        { role: 'user', parts: [{ text: 'Weather?' }] },
      ]);
      expect(body.safetySettings).toEqual(GEMINI_HARM_CATEGORIES.map((category) => ({ category, threshold: 'BLOCK_NONE' })));
    });

    it('maps sampling fields into generationConfig, zero values kept, and stop into stopSequences', () => {
      expect(built({ temperature: 0, top_p: 0.5, max_tokens: 100, stop: 'END', seed: 0, n: 1 }).generationConfig).toEqual({
        temperature: 0,
        topP: 0.5,
        maxOutputTokens: 100,
        stopSequences: ['END'],
        seed: 0,
        candidateCount: 1,
      });
      expect(built({ max_completion_tokens: 7, response_format: { type: 'json_object' } }).generationConfig).toEqual({
        maxOutputTokens: 7,
        responseMimeType: 'application/json',
      });
      expect(built({}).generationConfig).toBeUndefined();
    });

    it('converts tools (schemas cleaned), tool_choice, assistant tool calls and tool results', () => {
      const body = built({
        messages: [
          { role: 'user', content: 'Weather in Boston?' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Boston"}' } }],
          },
          { role: 'tool', tool_call_id: 'call_1', content: '{"temp":21}' },
        ],
        tools: [
          {
            type: 'function',
            function: {
              name: 'get_weather',
              description: 'Weather now',
              parameters: {
                $schema: 'x',
                type: 'object',
                additionalProperties: false,
                properties: { location: { type: 'string', additionalProperties: false } },
                required: ['location'],
              },
            },
          },
        ],
        tool_choice: { type: 'function', function: { name: 'get_weather' } },
      });
      expect(body.tools).toEqual([
        {
          functionDeclarations: [
            {
              name: 'get_weather',
              description: 'Weather now',
              parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
            },
          ],
        },
      ]);
      expect(body.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } });
      expect(body.contents).toEqual([
        { role: 'user', parts: [{ text: 'Weather in Boston?' }] },
        { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { location: 'Boston' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { content: '{"temp":21}' } } }] },
      ]);
    });

    it('inlines data-URL images and images the relay fetched, and refers to others by fileData', () => {
      const content = [
        { type: 'text', text: 'What is this?' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
        { type: 'image_url', image_url: 'https://example.com/cat.webp' },
        { type: 'image_url', image_url: { url: 'https://example.com/dog.jpg' } },
      ];
      const media = new Map([['https://example.com/dog.jpg', { mimeType: 'image/jpeg', data: 'ZG9n' }]]);
      const body = built({ messages: [{ role: 'user', content }] }, { media });
      expect(body.contents[0].parts).toEqual([
        { text: 'What is this?' },
        { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
        { fileData: { mimeType: 'image/webp', fileUri: 'https://example.com/cat.webp' } },
        { inlineData: { mimeType: 'image/jpeg', data: 'ZG9n' } },
      ]);
      expect(() => built({ messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: {} }] }] })).toThrow(
        ConvertRequestError,
      );
    });

    it('serves chat only', () => {
      expect(() => adapter().buildRequest(input({}, { relayMode: 'embeddings', path: '/v1/embeddings' }))).toThrow(
        UnsupportedRelayModeError,
      );
    });

    it('sends GEMINI_SAFETY_SETTING as the threshold of every harm category (BLOCK_NONE unset or blank)', () => {
      const thresholds = (env: Record<string, string>) => {
        const registry = createUpstreamRegistry({ geminiSafetyThreshold: parseConfig(env).GEMINI_SAFETY_SETTING });
        const body = JSON.parse(registry.get(24).buildRequest(input()).body as string) as {
          safetySettings: Array<{ category: string; threshold: string }>;
        };
        expect(body.safetySettings.map((setting) => setting.category)).toEqual([...GEMINI_HARM_CATEGORIES]);
        return [...new Set(body.safetySettings.map((setting) => setting.threshold))];
      };
      expect(thresholds({ GEMINI_SAFETY_SETTING: 'BLOCK_ONLY_HIGH' })).toEqual(['BLOCK_ONLY_HIGH']);
      expect(thresholds({ GEMINI_SAFETY_SETTING: '  ' })).toEqual(['BLOCK_NONE']);
      expect(thresholds({})).toEqual(['BLOCK_NONE']);
      const body = JSON.parse(
        createUpstreamRegistry({ geminiSafetyThreshold: 'OFF' }).get(24).buildRequest(input()).body as string,
      ) as Record<string, any>;
      expect(body.safetySettings[0].threshold).toBe('OFF');
    });
  });

  describe('response', () => {
    it('converts a text answer with its usage and the upstream model name', () => {
      const result = adapter().parseResponse(input(), jsonAnswer(fixture('gemini', 'generate-content.json')));
      expect(result).toMatchObject({
        ok: true,
        status: 200,
        passthrough: false,
        usage: { prompt_tokens: 2, completion_tokens: 11, total_tokens: 13 },
        completionText: null,
      });
      expect(JSON.parse((result as { body: string }).body)).toEqual(
        chatCompletion({
          id: 'chatcmpl-5S3QZ5vYLqSbnvgP3q3FuAs',
          model: 'gemini-2.0-flash',
          message: { role: 'assistant', content: 'Hello! 👋 How can I help you today?\n' },
          finishReason: 'stop',
          usage: { prompt_tokens: 2, completion_tokens: 11, total_tokens: 13 },
        }),
      );
    });

    it('converts function calls to tool_calls, counts thinking as completion and reports cached tokens', () => {
      const result = adapter().parseResponse(input(), jsonAnswer(fixture('gemini', 'generate-content-function-call.json')));
      const body = JSON.parse((result as { body: string }).body);
      expect(body.choices[0]).toEqual({
        index: 0,
        message: {
          role: 'assistant',
          content: 'Let me look that up.',
          tool_calls: [{ id: 'call_id1', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Boston, MA"}' } }],
        },
        logprobs: null,
        finish_reason: 'tool_calls',
      });
      expect(result).toMatchObject({
        usage: {
          prompt_tokens: 64,
          completion_tokens: 118,
          total_tokens: 182,
          prompt_tokens_details: { cached_tokens: 32 },
          completion_tokens_details: { reasoning_tokens: 100 },
        },
      });
    });

    it('maps MAX_TOKENS to length (new-api said stop for everything)', () => {
      const body = JSON.parse(
        (adapter().parseResponse(input(), jsonAnswer(fixture('gemini', 'generate-content-max-tokens.json'))) as { body: string }).body,
      );
      expect(body.choices[0].finish_reason).toBe('length');
    });

    it('answers a blocked prompt (no candidates) with the new-api error and the upstream status, not retried', () => {
      expect(adapter().parseResponse(input(), jsonAnswer(fixture('gemini', 'generate-content-blocked.json')))).toEqual({
        ok: false,
        status: 200,
        error: { message: 'No candidates returned (prompt blocked: PROHIBITED_CONTENT)', type: 'server_error', param: '', code: 500 },
      });
    });

    it.each([
      [
        'error-invalid-key.json',
        400,
        { message: 'API key not valid. Please pass a valid API key.', type: 'INVALID_ARGUMENT', param: null, code: 400 },
      ],
      [
        'error-quota.json',
        429,
        { message: 'Resource has been exhausted (e.g. check quota).', type: 'RESOURCE_EXHAUSTED', param: null, code: 429 },
      ],
      ['error-not-found.json', 404, expect.objectContaining({ type: 'NOT_FOUND', code: 404 })],
    ])('maps %s to status %i and the OpenAI error shape', (name, status, error) => {
      expect(adapter().mapError(status, fixture('gemini', name))).toEqual({ ok: false, status, error });
      expect(adapter().parseResponse(input(), jsonAnswer(fixture('gemini', name), status))).toEqual({ ok: false, status, error });
    });
  });

  describe('stream', () => {
    const streamInput = (clientWantsUsage = false) => input({ stream: true }, { isStream: true, clientWantsUsage });

    it('emits a role chunk, text chunks with the upstream model, a finish chunk, then the usage chunk if asked and [DONE]', () => {
      const run = runStream(adapter().createStreamTransformer(streamInput(true)), [fixture('gemini', 'stream-text.sse')]);
      const { identity, usage } = streamChunks('chatcmpl-id1', 'gemini-2.0-flash');
      expect(dataEvents(run.output)).toEqual([
        { ...identity, choices: [{ index: 0, delta: { role: 'assistant', content: 'Sure' }, finish_reason: null }] },
        {
          ...identity,
          choices: [{ index: 0, delta: { content: ', here is a haiku about the sea:\n\nWaves fold into foam,\n' }, finish_reason: null }],
        },
        {
          ...identity,
          choices: [{ index: 0, delta: { content: 'salt wind carries gull voices—\nthe tide keeps its time. 🌊\n' }, finish_reason: null }],
        },
        { ...identity, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
        usage(9, 31),
        '[DONE]',
      ]);
      expect(run.summary).toMatchObject({
        end: 'done',
        usage: { prompt_tokens: 9, completion_tokens: 31, total_tokens: 40 },
        finishReason: 'stop',
        eventsForwarded: 4,
      });
    });

    it('gives the same output however the bytes are split', () => {
      for (const name of ['stream-text.sse', 'stream-function-call.sse', 'stream-error.sse']) {
        const bytes = fixture('gemini', name);
        const whole = runStream(adapter().createStreamTransformer(streamInput(true)), [bytes], { requestId: 'r' });
        for (const pieces of everySplit(bytes, 7))
          expect(runStream(adapter().createStreamTransformer(streamInput(true)), pieces, { requestId: 'r' })).toEqual(whole);
        for (const pieces of randomSplits(bytes, 20))
          expect(runStream(adapter().createStreamTransformer(streamInput(true)), pieces, { requestId: 'r' })).toEqual(whole);
      }
    });

    it('emits parallel function calls as tool_calls with their own indexes and finish_reason tool_calls', () => {
      const run = runStream(adapter().createStreamTransformer(streamInput()), [fixture('gemini', 'stream-function-call.sse')]);
      const events = dataEvents(run.output) as Array<Record<string, any>>;
      expect(events[0].choices[0].delta).toEqual({
        role: 'assistant',
        tool_calls: [
          {
            index: 0,
            id: 'call_id2',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"location":"Boston, MA","unit":"celsius"}' },
          },
          { index: 1, id: 'call_id3', type: 'function', function: { name: 'get_time', arguments: '{"timezone":"America/New_York"}' } },
        ],
      });
      expect(events[1].choices[0].finish_reason).toBe('tool_calls');
      expect(run.summary).toMatchObject({ end: 'done', toolCallCount: 2, usage: { prompt_tokens: 73, completion_tokens: 22 } });
    });

    it('ends with the error event of an error mid-stream, billing the prompt it reported and the text delivered (not 0 completion)', () => {
      const run = runStream(adapter().createStreamTransformer(streamInput()), [fixture('gemini', 'stream-error.sse')], {
        requestId: 'rid',
      });
      expect(run.summary).toMatchObject({ end: 'upstream_error', usage: null, promptTokens: 9, completionText: 'The first' });
      expect(dataEvents(run.trailer)).toEqual([
        {
          error: {
            message: 'The model is overloaded. Please try again later. (request id: rid)',
            type: 'UNAVAILABLE',
            param: null,
            code: 503,
          },
        },
      ]);
      expect(run.output).not.toContain('[DONE]');
    });

    it('reports a body closed before any finishReason as a cut, with the prompt count only', () => {
      const bytes = fixture('gemini', 'stream-text.sse');
      const cut = bytes.subarray(0, bytes.indexOf('salt wind'));
      const run = runStream(adapter().createStreamTransformer(streamInput()), [cut], { cause: 'connection_error' });
      expect(run.summary).toMatchObject({ end: 'cut', usage: null, promptTokens: 9 });
      expect(dataEvents(run.trailer)).toEqual([{ error: expect.objectContaining({ code: 'upstream_stream_cut' }) }]);
    });

    it('fails a stream whose prompt was blocked', () => {
      const blocked = Buffer.from(
        `data: ${JSON.stringify({ promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 5, totalTokenCount: 5 } })}\n\n`,
      );
      const run = runStream(adapter().createStreamTransformer(streamInput()), [blocked]);
      expect(run.summary).toMatchObject({
        end: 'upstream_error',
        error: { message: 'No candidates returned (prompt blocked: SAFETY)', type: 'server_error' },
      });
    });
  });
});
