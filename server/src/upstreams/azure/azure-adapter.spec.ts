import { channel, chatInput, dataEvents, fixture, randomSplits, runStream, testSettings } from '../testing/upstream-test-kit';
import type { UpstreamRequestInput } from '../upstream-adapter';
import { MissingBaseUrlError, UnsupportedRelayModeError } from '../upstream-errors';
import { createAzureAdapter } from './azure-adapter';
import { AZURE_DEFAULT_API_VERSION, azureApiVersion, azureDeploymentName } from './azure-urls';

const azureChannel = channel({
  type: 3,
  key: 'azure-key-123',
  baseUrl: 'https://tollgate-test.openai.azure.com/',
  other: '2024-02-15-preview',
});
const input = (overrides: Partial<UpstreamRequestInput> = {}) =>
  chatInput({
    channel: azureChannel,
    body: { model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'Hello' }] },
    upstreamModel: 'gpt-3.5-turbo',
    ...overrides,
  });
const adapter = () => createAzureAdapter(testSettings());
const text = (body: string | Uint8Array | undefined) => (typeof body === 'string' ? body : Buffer.from(body!).toString('utf8'));

describe('Azure OpenAI adapter (type 3)', () => {
  describe('request', () => {
    it('calls the deployment URL (model without dots) with the api-version of the channel and the api-key header', () => {
      const request = adapter().buildRequest(input());
      expect(request.url).toBe(
        'https://tollgate-test.openai.azure.com/openai/deployments/gpt-35-turbo/chat/completions?api-version=2024-02-15-preview',
      );
      expect(request.origin).toBe('https://tollgate-test.openai.azure.com');
      expect(request.method).toBe('POST');
      expect(request.headers).toEqual({ 'content-type': 'application/json', 'api-key': 'azure-key-123' });
      expect(request.headers.authorization).toBeUndefined();
    });

    it("prefers the client's ?api-version=, then the channel's other, then the console default", () => {
      expect(adapter().buildRequest(input({ query: 'foo=1&api-version=2024-06-01' })).path).toBe(
        '/openai/deployments/gpt-35-turbo/chat/completions?api-version=2024-06-01',
      );
      expect(azureApiVersion('api-version=', '2024-02-01')).toBe('2024-02-01');
      expect(azureApiVersion('', null)).toBe(AZURE_DEFAULT_API_VERSION);
      const noOther = adapter().buildRequest(input({ channel: { ...azureChannel, other: null } }));
      expect(noOther.path).toBe('/openai/deployments/gpt-35-turbo/chat/completions?api-version=2023-06-01-preview');
    });

    it('maps every relay mode onto the same deployment, embeddings and images included', () => {
      const embeddings = adapter().buildRequest(
        input({
          relayMode: 'embeddings',
          path: '/v1/embeddings',
          body: { model: 'text-embedding-3.5', input: 'x' },
          upstreamModel: 'text-embedding-3.5',
        }),
      );
      expect(embeddings.path).toBe('/openai/deployments/text-embedding-35/embeddings?api-version=2024-02-15-preview');
      const images = adapter().buildRequest(
        input({
          relayMode: 'images-generations',
          path: '/v1/images/generations',
          body: { model: 'dall-e-3', prompt: 'cat' },
          upstreamModel: 'dall-e-3',
        }),
      );
      expect(images.path).toBe('/openai/deployments/dall-e-3/images/generations?api-version=2024-02-15-preview');
      expect(azureDeploymentName('gpt-4.1-mini')).toBe('gpt-41-mini');
    });

    it('keeps a Cloudflare AI Gateway base URL, which already names the deployments path', () => {
      const request = adapter().buildRequest(
        input({ channel: { ...azureChannel, baseUrl: 'https://gateway.ai.cloudflare.com/v1/acct/gw/azure-openai/res' } }),
      );
      expect(request.url).toBe(
        'https://gateway.ai.cloudflare.com/v1/acct/gw/azure-openai/res/gpt-35-turbo/chat/completions?api-version=2024-02-15-preview',
      );
    });

    it('forwards the body as sent (temperature 0, unknown fields) and removes stream_options, which older api-versions reject', () => {
      const body = {
        model: 'gpt-3.5-turbo',
        messages: [{ role: 'user', content: 'Hello' }],
        stream: true,
        stream_options: { include_usage: true },
        temperature: 0,
        seed: 0,
        stop: ['\n'],
        max_tokens: 20,
        data_sources: [{ type: 'azure_search' }],
      };
      const request = adapter().buildRequest(input({ body, isStream: true, clientWantsUsage: true }));
      const { stream_options: _dropped, ...expected } = body;
      expect(JSON.parse(text(request.body))).toEqual(expected);
      expect(request.headers.accept).toBe('text/event-stream');
    });

    it('renames max_tokens for o-series deployments', () => {
      const request = adapter().buildRequest(input({ body: { model: 'o1-mini', messages: [], max_tokens: 50 }, upstreamModel: 'o1-mini' }));
      expect(JSON.parse(text(request.body))).toEqual({ model: 'o1-mini', messages: [], max_completion_tokens: 50 });
    });

    it('fails locally without a base URL (Azure has no default) and for rerank', () => {
      expect(() => adapter().buildRequest(input({ channel: { ...azureChannel, baseUrl: null } }))).toThrow(MissingBaseUrlError);
      expect(() => adapter().buildRequest(input({ relayMode: 'rerank', path: '/v1/rerank' }))).toThrow(UnsupportedRelayModeError);
    });
  });

  describe('response', () => {
    it('passes the answer through and reads its usage', () => {
      const body = fixture('azure', 'chat-completion.json');
      expect(adapter().parseResponse(input(), { status: 200, contentType: 'application/json', body })).toEqual({
        ok: true,
        status: 200,
        body,
        contentType: 'application/json',
        passthrough: true,
        usage: { prompt_tokens: 18, completion_tokens: 9, total_tokens: 27 },
        completionText: null,
      });
    });

    it.each([
      [
        'error-unauthorized.json',
        401,
        { type: 'upstream_error', code: '401', message: expect.stringMatching(/^Access denied due to invalid subscription key/) },
      ],
      ['error-rate-limit.json', 429, { type: 'upstream_error', code: '429' }],
      ['error-deployment-not-found.json', 404, { type: 'upstream_error', code: 'DeploymentNotFound' }],
      ['error-content-filter.json', 400, { type: 'upstream_error', param: 'prompt', code: 'content_filter' }],
    ])('maps %s to status %i and the OpenAI error shape', (name, status, error) => {
      const result = adapter().mapError(status, fixture('azure', name));
      expect(result).toEqual({ ok: false, status, error: expect.objectContaining(error) });
      expect(adapter().parseResponse(input(), { status, contentType: 'application/json', body: fixture('azure', name) })).toEqual(result);
    });
  });

  describe('stream', () => {
    const streamInput = (clientWantsUsage: boolean) =>
      input({ isStream: true, clientWantsUsage, body: { model: 'gpt-3.5-turbo', messages: [], stream: true } });
    const bytes = fixture('azure', 'chat-stream.sse');

    it('forwards content-filter chunks, ignores the nested filter "error", and reports no usage (counted locally)', () => {
      const run = runStream(adapter().createStreamTransformer(streamInput(false)), [bytes]);
      expect(run.summary).toMatchObject({
        end: 'done',
        error: null,
        usage: null,
        completionText: 'Hello there!',
        finishReason: 'stop',
        eventsForwarded: 5,
      });
      expect(run.trailer).toBe('data: [DONE]\n\n');
    });

    it("names the relay's usage chunk after the answer, not after Azure's empty prompt-filter chunk", () => {
      const counted = { prompt_tokens: 8, completion_tokens: 3, total_tokens: 11 };
      const run = runStream(adapter().createStreamTransformer(streamInput(true)), [bytes], { usage: counted });
      expect(dataEvents(run.trailer)).toEqual([
        {
          id: 'chatcmpl-B9AzureStream7',
          object: 'chat.completion.chunk',
          created: 1741580100,
          model: 'gpt-35-turbo',
          system_fingerprint: null,
          choices: [],
          usage: counted,
        },
        '[DONE]',
      ]);
      for (const pieces of randomSplits(bytes, 30))
        expect(runStream(adapter().createStreamTransformer(streamInput(true)), pieces, { usage: counted })).toEqual(run);
    });

    it('ends a stream cut mid-answer with an error event', () => {
      const cut = bytes.subarray(0, bytes.indexOf('" there!"'));
      const run = runStream(adapter().createStreamTransformer(streamInput(false)), [cut], { cause: 'connection_error', requestId: 'rid' });
      expect(run.summary.end).toBe('cut');
      expect(dataEvents(run.trailer)).toEqual([
        { error: expect.objectContaining({ code: 'upstream_stream_cut', message: expect.stringMatching(/\(request id: rid\)$/) }) },
      ]);
    });
  });
});
