import {
  channel,
  chatInput,
  dataEvents,
  fixture,
  jsonAnswer,
  jsonFixture,
  randomSplits,
  runStream,
  testSettings,
} from '../testing/upstream-test-kit';
import type { UpstreamRequestInput } from '../upstream-adapter';
import { ConvertRequestError, UnsupportedRelayModeError } from '../upstream-errors';
import { createOllamaAdapter, OLLAMA_BASE_URL } from './ollama-adapter';

const ollamaChannel = channel({ type: 4, key: 'ignored-key', baseUrl: 'http://gpu-box:11434' });
const chat = (overrides: Partial<UpstreamRequestInput> = {}) =>
  chatInput({
    channel: ollamaChannel,
    body: { model: 'llama3.2', messages: [{ role: 'user', content: 'Hello' }] },
    upstreamModel: 'llama3.2',
    ...overrides,
  });
const embed = (body: Record<string, unknown>) =>
  chatInput({
    channel: ollamaChannel,
    relayMode: 'embeddings',
    path: '/v1/embeddings',
    body: { model: 'all-minilm', ...body },
    upstreamModel: 'all-minilm',
  });
const adapter = () => createOllamaAdapter(testSettings());
const text = (body: string | Uint8Array | undefined) => (typeof body === 'string' ? body : Buffer.from(body!).toString('utf8'));

describe('Ollama adapter (type 4)', () => {
  describe('chat through the OpenAI-compatible API', () => {
    it("posts to the client's path on the channel base URL (default localhost:11434) with no auth header", () => {
      const request = adapter().buildRequest(chat());
      expect(request.url).toBe('http://gpu-box:11434/v1/chat/completions');
      expect(request.headers).toEqual({ 'content-type': 'application/json' });
      expect(adapter().buildRequest(chat({ channel: { ...ollamaChannel, baseUrl: null } })).url).toBe(
        `${OLLAMA_BASE_URL}/v1/chat/completions`,
      );
    });

    it('forwards every field, max_tokens and temperature 0 included (new-api dropped max_tokens), and asks for stream usage', () => {
      const body = {
        model: 'llama3',
        messages: [{ role: 'user', content: 'Hi' }],
        max_tokens: 64,
        temperature: 0,
        stop: ['END'],
        stream: true,
        keep_alive: '5m',
      };
      const request = adapter().buildRequest(chat({ body, upstreamModel: 'llama3.2', isStream: true }));
      expect(JSON.parse(text(request.body))).toEqual({ ...body, model: 'llama3.2', stream_options: { include_usage: true } });
      expect(request.headers.accept).toBe('text/event-stream');
    });

    it('passes a chat answer through with its usage', () => {
      expect(adapter().parseResponse(chat(), jsonAnswer(fixture('ollama', 'chat-completion.json')))).toMatchObject({
        ok: true,
        passthrough: true,
        usage: { prompt_tokens: 27, completion_tokens: 8, total_tokens: 35 },
      });
    });

    it('bills the usage chunk of a stream and forwards it only when the client asked', () => {
      const bytes = fixture('ollama', 'chat-stream-with-usage.sse');
      const hidden = runStream(adapter().createStreamTransformer(chat({ isStream: true })), [bytes]);
      expect(hidden.summary).toMatchObject({
        end: 'done',
        usage: { prompt_tokens: 27, completion_tokens: 3, total_tokens: 30 },
        completionText: 'Hello!',
      });
      expect(hidden.output).not.toContain('"usage"');
      const shown = runStream(adapter().createStreamTransformer(chat({ isStream: true, clientWantsUsage: true })), [bytes]);
      expect(shown.output).toBe(bytes.toString());
      for (const pieces of randomSplits(bytes, 20)) {
        expect(runStream(adapter().createStreamTransformer(chat({ isStream: true, clientWantsUsage: true })), pieces)).toEqual(shown);
      }
    });

    it('maps the model-not-found errors of both APIs', () => {
      expect(adapter().mapError(404, fixture('ollama', 'error-openai-model-not-found.json'))).toEqual({
        ok: false,
        status: 404,
        error: { message: 'model "llama9" not found, try pulling it first', type: 'api_error', param: null, code: null },
      });
      expect(adapter().mapError(404, fixture('ollama', 'error-model-not-found.json'))).toEqual({
        ok: false,
        status: 404,
        error: {
          message: 'model "llama9" not found, try pulling it first',
          type: 'upstream_error',
          param: '404',
          code: 'bad_response_status_code',
        },
      });
    });

    it('refuses modes Ollama does not serve', () => {
      expect(() => adapter().buildRequest(chat({ relayMode: 'images-generations', path: '/v1/images/generations' }))).toThrow(
        UnsupportedRelayModeError,
      );
    });
  });

  describe('embeddings through the native /api/embed', () => {
    it('sends {model, input} (a list or one string) and dimensions', () => {
      const request = adapter().buildRequest(embed({ input: ['a', 'b'], dimensions: 4, encoding_format: 'float' }));
      expect(request.url).toBe('http://gpu-box:11434/api/embed');
      expect(request.headers).toEqual({ 'content-type': 'application/json' });
      expect(JSON.parse(text(request.body))).toEqual({ model: 'all-minilm', input: ['a', 'b'], dimensions: 4 });
      expect(JSON.parse(text(adapter().buildRequest(embed({ input: 'one' })).body))).toEqual({ model: 'all-minilm', input: 'one' });
    });

    it('refuses token-array input, which /api/embed cannot take', () => {
      expect(() => adapter().buildRequest(embed({ input: [[1, 2, 3]] }))).toThrow(ConvertRequestError);
    });

    it("answers OpenAI's embeddings list with one item per input and the prompt_eval_count as usage", () => {
      const result = adapter().parseResponse(
        embed({ input: ['a', 'b'], encoding_format: 'float' }),
        jsonAnswer(fixture('ollama', 'embed.json')),
      );
      const vectors = jsonFixture<{ embeddings: number[][] }>('ollama', 'embed.json').embeddings;
      expect(result).toMatchObject({
        ok: true,
        status: 200,
        passthrough: false,
        contentType: 'application/json',
        usage: { prompt_tokens: 8, completion_tokens: 0, total_tokens: 8 },
      });
      expect(JSON.parse(text((result as { body: string }).body))).toEqual({
        object: 'list',
        data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
        model: 'all-minilm',
        usage: { prompt_tokens: 8, total_tokens: 8 },
      });
    });

    it('encodes the vectors as base64 float32 when asked (the openai SDK default)', () => {
      const result = adapter().parseResponse(
        embed({ input: ['a', 'b'], encoding_format: 'base64' }),
        jsonAnswer(fixture('ollama', 'embed.json')),
      );
      const data = JSON.parse(text((result as { body: string }).body)).data as Array<{ embedding: string }>;
      const decoded = Buffer.from(data[0].embedding, 'base64');
      expect(decoded.length).toBe(16);
      expect(decoded.readFloatLE(0)).toBeCloseTo(0.010071029, 6);
      expect(decoded.readFloatLE(12)).toBeCloseTo(0.04692972, 6);
    });

    it('maps an /api/embed error and an unreadable body', () => {
      expect(
        adapter().parseResponse(embed({ input: 'x' }), jsonAnswer(fixture('ollama', 'error-model-not-found.json'), 404)),
      ).toMatchObject({
        ok: false,
        status: 404,
        error: { message: 'model "llama9" not found, try pulling it first' },
      });
      expect(adapter().parseResponse(embed({ input: 'x' }), jsonAnswer('not json'))).toMatchObject({
        ok: false,
        status: 500,
        error: { code: 'unmarshal_response_body_failed' },
      });
    });
  });

  it('streams with the OpenAI error event when the body is cut', () => {
    const bytes = fixture('ollama', 'chat-stream-with-usage.sse');
    const run = runStream(adapter().createStreamTransformer(chat({ isStream: true })), [bytes.subarray(0, 200)], {
      cause: 'connection_error',
    });
    expect(run.summary.end).toBe('cut');
    expect(dataEvents(run.trailer)).toEqual([{ error: expect.objectContaining({ code: 'upstream_stream_cut' }) }]);
  });
});
