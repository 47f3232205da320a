import OpenAI from 'openai';
import { countPromptTokens } from '#server/relay/pipeline/relay-request';
import { countTextTokens } from '#server/relay/tokenizer/token-counter';
import type { RecordedRequest } from '../fakes/http-fake';
import { AnthropicMessagesFake } from '../fakes/upstreams/anthropic-messages-fake';
import { AzureOpenAIUpstreamFake } from '../fakes/upstreams/azure-openai-upstream-fake';
import { GeminiApiFake } from '../fakes/upstreams/gemini-api-fake';
import { OllamaUpstreamFake } from '../fakes/upstreams/ollama-upstream-fake';
import { OpenAIUpstreamFake } from '../fakes/upstreams/openai-upstream-fake';
import { createTestApp, type TestApp } from '../support/app';
import { chargeCount, chargesOf, createChannel, listen, routable, sdk, userWithToken } from './relay-support';
import { type Caller, rootCaller } from './users-support';

jest.setTimeout(90_000);

/**
 * Every supported channel type (docs/providers.md) through the relay with the official SDK, each against a local fake that speaks
 * its provider's wire protocol: a plain and a streamed chat charged exactly once with the tokens the provider
 * reported (or, where the provider is not asked for stream usage, the relay's local count), the request each
 * provider must receive (URL, credentials), and an upstream error mapped to the status and shape the client sees.
 */

type Fake = OpenAIUpstreamFake | AnthropicMessagesFake | GeminiApiFake;

interface Provider {
  type: number;
  label: string;
  model: string;
  /** The fake this type talks to. */
  fake: () => Fake;
  /** Base URL of the channel. */
  baseUrl: () => string;
  key: string;
  other?: string;
  /** The path and query the fake must receive. */
  path: (stream: boolean) => string;
  /** The credential headers the fake must receive. */
  auth: (request: RecordedRequest) => void;
  /** Usage the provider reports for a plain and a streamed answer; 'local' when the relay must count the stream. */
  usage: { plain: [number, number]; stream: [number, number] | 'local' };
  reply: () => string;
  /** The failing variant: a channel whose upstream refuses it, and what the client must get. */
  failure: {
    model: string;
    key?: string;
    status: number;
    errorClass: abstract new (...args: never[]) => InstanceType<typeof OpenAI.APIError>;
    error: Record<string, unknown>;
  };
}

const FAMILY_KEY = 'family-key';
const REVOKED = 'revoked-key';
const invalidKeyError = {
  message: `Incorrect API key provided: ${REVOKED}. You can find your API key at https://platform.openai.com/account/api-keys.`,
  type: 'invalid_request_error',
  param: null,
  code: 'invalid_api_key',
};

describe('relay: every supported provider through the official SDK', () => {
  let target: TestApp;
  let baseURL: string;
  let root: Caller;
  let client: OpenAI;
  let user: Caller & { key: string; tokenId: number };
  const openai = new OpenAIUpstreamFake();
  const azure = new AzureOpenAIUpstreamFake();
  const ollama = new OllamaUpstreamFake();
  const claude = new AnthropicMessagesFake();
  const gemini = new GeminiApiFake();

  const bearer = (key: string) => (request: RecordedRequest) => {
    expect(request.headers.authorization).toBe(`Bearer ${key}`);
  };
  const family = (type: number, label: string, model: string, prefix: string): Provider => ({
    type,
    label,
    model,
    fake: () => openai,
    baseUrl: () => `${openai.baseUrl}${prefix}`,
    key: FAMILY_KEY,
    path: () => `${prefix}/v1/chat/completions`,
    auth: bearer(FAMILY_KEY),
    usage: { plain: [12, 7], stream: 'local' },
    reply: () => openai.reply,
    failure: {
      model: `${model}-revoked`,
      key: REVOKED,
      status: 401,
      errorClass: OpenAI.AuthenticationError,
      error: {
        type: 'invalid_request_error',
        code: 'invalid_api_key',
        message: expect.stringMatching(/^Incorrect API key provided: revoked-key\. .* \(request id: /),
      },
    },
  });

  const providers: Provider[] = [
    { ...family(1, 'OpenAI', 'gpt-4o-mini', ''), usage: { plain: [12, 7], stream: [12, 7] } },
    {
      type: 3,
      label: 'Azure OpenAI',
      model: 'gpt-3.5-turbo',
      fake: () => azure,
      baseUrl: () => azure.baseUrl,
      key: 'azure-key',
      other: '2024-02-15-preview',
      path: () => '/openai/deployments/gpt-35-turbo/chat/completions?api-version=2024-02-15-preview',
      auth: (request) => {
        expect(request.headers['api-key']).toBe('azure-key');
        expect(request.headers.authorization).toBeUndefined();
      },
      usage: { plain: [12, 7], stream: 'local' },
      reply: () => azure.reply,
      failure: {
        model: 'gpt-4',
        key: REVOKED,
        status: 401,
        errorClass: OpenAI.AuthenticationError,
        error: { type: 'upstream_error', code: '401' },
      },
    },
    {
      type: 4,
      label: 'Ollama',
      model: 'llama3.2',
      fake: () => ollama,
      baseUrl: () => ollama.baseUrl,
      key: 'unused',
      path: () => '/v1/chat/completions',
      auth: (request) => expect(request.headers.authorization).toBeUndefined(),
      usage: { plain: [12, 7], stream: [12, 7] },
      reply: () => ollama.reply,
      // Ollama has no auth: its refusal is a model that was never pulled.
      failure: {
        model: 'llama9',
        status: 404,
        errorClass: OpenAI.NotFoundError,
        error: { type: 'api_error', message: expect.stringMatching(/^model "llama9" not found, try pulling it first \(request id: /) },
      },
    },
    {
      ...family(8, 'Custom', 'custom-llm', ''),
      baseUrl: () => `${openai.baseUrl}/custom/{model}/chat/completions`,
      path: () => '/custom/custom-llm/chat/completions',
    },
    {
      type: 14,
      label: 'Anthropic Claude',
      model: 'claude-3-5-haiku-20241022',
      fake: () => claude,
      baseUrl: () => claude.baseUrl,
      key: 'claude-key',
      path: () => '/v1/messages',
      auth: (request) => {
        expect(request.headers['x-api-key']).toBe('claude-key');
        expect(request.headers['anthropic-version']).toBe('2023-06-01');
        expect(request.headers.authorization).toBeUndefined();
      },
      usage: { plain: [21, 9], stream: [21, 9] },
      reply: () => claude.reply,
      failure: {
        model: 'claude-3-opus-20240229',
        key: REVOKED,
        status: 401,
        errorClass: OpenAI.AuthenticationError,
        error: { type: 'authentication_error', message: expect.stringMatching(/^invalid x-api-key \(request id: /) },
      },
    },
    family(19, '360', '360gpt-pro', '/zhinao'),
    {
      type: 24,
      label: 'Google Gemini',
      model: 'gemini-2.0-flash',
      fake: () => gemini,
      baseUrl: () => gemini.baseUrl,
      key: 'gemini-key',
      path: (stream) => `/v1beta/models/gemini-2.0-flash:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
      auth: (request) => {
        expect(request.headers['x-goog-api-key']).toBe('gemini-key');
        expect(request.url).not.toContain('key=');
      },
      usage: { plain: [5, 8], stream: [5, 8] },
      reply: () => gemini.reply,
      failure: {
        model: 'gemini-1.5-pro',
        key: REVOKED,
        status: 400,
        errorClass: OpenAI.BadRequestError,
        error: { type: 'INVALID_ARGUMENT', code: '400', message: expect.stringMatching(/^API key not valid/) },
      },
    },
    family(25, 'Moonshot', 'moonshot-v1-8k', '/moonshot'),
    family(31, 'Yi', 'yi-large', '/yi'),
    family(40, 'SiliconCloud', 'Qwen/Qwen2.5-7B-Instruct', '/siliconflow'),
  ];

  beforeAll(async () => {
    await Promise.all([openai.start(), azure.start(), ollama.start(), claude.start(), gemini.start()]);
    openai.authorize = (request) =>
      request.headers.authorization === `Bearer ${FAMILY_KEY}` ? null : { status: 401, body: { error: invalidKeyError } };
    azure.deployments = new Set(['gpt-35-turbo', 'gpt-4']);
    ollama.models = new Set(['llama3.2:latest', 'nomic-embed-text:latest']);
    target = await createTestApp();
    baseURL = await listen(target);
    root = await rootCaller(target);
    for (const provider of providers) {
      await createChannel(target, root, {
        type: provider.type,
        name: `${provider.label} ok`,
        baseUrl: provider.baseUrl(),
        key: provider.key,
        other: provider.other,
        models: provider.type === 4 ? [provider.model, 'nomic-embed-text'] : [provider.model],
      });
      await createChannel(target, root, {
        type: provider.type,
        name: `${provider.label} refused`,
        baseUrl: provider.type === 8 ? `${openai.baseUrl}/custom/{model}/chat/completions` : provider.baseUrl(),
        key: provider.failure.key ?? provider.key,
        other: provider.other,
        models: [provider.failure.model],
      });
    }
    user = await userWithToken(target, 'providers', 100_000_000, { unlimited_quota: false, remain_quota: 50_000_000 });
    client = sdk(baseURL, user.key);
    for (const provider of providers) {
      await routable(target, user.key, baseURL, provider.model);
      await routable(target, user.key, baseURL, provider.failure.model);
    }
  });

  afterAll(async () => {
    await target?.close();
    await Promise.all([openai.close(), azure.close(), ollama.close(), claude.close(), gemini.close()]);
  });

  const messages: OpenAI.ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You are a test.' },
    { role: 'user', content: 'Say hello.' },
  ];

  async function expectOneCharge(requestId: string, model: string, tokens: [number, number], isStream: boolean) {
    const charges = await chargesOf(target, requestId);
    expect(charges).toHaveLength(1);
    expect(charges[0].streamId).toBe(`account-${user.id}`);
    expect(charges[0].data).toMatchObject({
      modelName: model,
      promptTokens: tokens[0],
      completionTokens: tokens[1],
      isStream,
      tokenId: user.tokenId,
    });
    expect(charges[0].data.quota).toBeGreaterThan(0);
  }

  describe.each(providers.map((provider) => [provider.type, provider.label, provider] as const))(
    'type %i (%s)',
    (_type, _label, provider) => {
      it('answers a plain chat, calls the provider URL with its credentials and charges the reported usage once', async () => {
        const fake = provider.fake();
        const before = fake.requests.length;
        const { data, response } = await client.chat.completions.create({ model: provider.model, messages, temperature: 0 }).withResponse();
        expect(data.choices[0].message.content).toBe(provider.reply());
        expect(data.choices[0].finish_reason).toBe('stop');
        expect(data.usage).toMatchObject({ prompt_tokens: provider.usage.plain[0], completion_tokens: provider.usage.plain[1] });

        expect(fake.requests).toHaveLength(before + 1);
        const upstream = fake.requests[before];
        expect(upstream.url).toBe(provider.path(false));
        provider.auth(upstream);
        const sent = JSON.parse(upstream.body) as Record<string, any>;
        if (provider.type === 14)
          expect(sent).toMatchObject({ model: provider.model, system: 'You are a test.', temperature: 0, max_tokens: 4096 });
        else if (provider.type === 24)
          expect(sent).toMatchObject({ systemInstruction: { parts: [{ text: 'You are a test.' }] }, generationConfig: { temperature: 0 } });
        else expect(sent).toMatchObject({ model: provider.model, messages, temperature: 0 });

        await expectOneCharge(response.headers.get('x-oneapi-request-id')!, provider.model, provider.usage.plain, false);
      });

      it('streams the answer, hands the client the usage it asked for, and charges it once', async () => {
        const fake = provider.fake();
        const before = fake.requests.length;
        const body = { model: provider.model, messages, stream: true as const, stream_options: { include_usage: true } };
        const { data: stream, response } = await client.chat.completions.create(body).withResponse();
        let text = '';
        let finish: string | null | undefined;
        let usage: OpenAI.CompletionUsage | null | undefined;
        for await (const chunk of stream) {
          text += chunk.choices[0]?.delta?.content ?? '';
          finish = chunk.choices[0]?.finish_reason ?? finish;
          if (chunk.usage) usage = chunk.usage;
        }
        expect(text).toBe(provider.reply());
        expect(finish).toBe('stop');

        const upstream = fake.requests[before];
        expect(upstream.url).toBe(provider.path(true));
        provider.auth(upstream);
        const sent = JSON.parse(upstream.body) as Record<string, any>;
        // Only OpenAI and Ollama are asked for stream usage; the others would reject or ignore stream_options.
        if (provider.type === 1 || provider.type === 4) expect(sent.stream_options).toEqual({ include_usage: true });
        else expect(sent.stream_options).toBeUndefined();

        const expected: [number, number] =
          provider.usage.stream === 'local'
            ? [countPromptTokens('chat', body as never, provider.model), countTextTokens(provider.reply(), provider.model)]
            : provider.usage.stream;
        expect(usage).toMatchObject({ prompt_tokens: expected[0], completion_tokens: expected[1] });
        await expectOneCharge(response.headers.get('x-oneapi-request-id')!, provider.model, expected, true);
      });

      it('maps the upstream refusal to the status and error shape the client sees, charging nothing', async () => {
        const charges = await chargeCount(target);
        const error = await client.chat.completions.create({ model: provider.failure.model, messages }).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(provider.failure.errorClass);
        const apiError = error as InstanceType<typeof OpenAI.APIError>;
        expect(apiError.status).toBe(provider.failure.status);
        expect(apiError.error).toMatchObject({ message: expect.stringMatching(/ \(request id: [\w-]+\)$/), ...provider.failure.error });
        expect(await chargeCount(target)).toBe(charges);
      });
    },
  );

  describe('provider specifics', () => {
    it('Azure: the deployment never sees stream_options, so an old api-version does not refuse the stream', async () => {
      const before = azure.requests.length;
      const stream = await client.chat.completions.create({
        model: 'gpt-3.5-turbo',
        messages,
        stream: true,
        stream_options: { include_usage: true },
      });
      for await (const chunk of stream) void chunk;
      expect(azure.requests.slice(before).map((request) => JSON.parse(request.body).stream_options)).toEqual([undefined]);
    });

    it("Azure: a client's ?api-version= wins over the channel's", async () => {
      const before = azure.requests.length;
      const response = await fetch(`${baseURL}/chat/completions?api-version=2024-06-01`, {
        method: 'POST',
        headers: { authorization: `Bearer ${user.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-3.5-turbo', messages }),
      });
      expect(response.status).toBe(200);
      expect(azure.requests[before].url).toBe('/openai/deployments/gpt-35-turbo/chat/completions?api-version=2024-06-01');
    });

    it('Ollama: embeddings go to the native /api/embed and come back as an OpenAI list, charged with prompt_eval_count', async () => {
      const before = ollama.requests.length;
      const { data, response } = await client.embeddings.create({ model: 'nomic-embed-text', input: ['a', 'bb'] }).withResponse();
      expect(ollama.requests[before].url).toBe('/api/embed');
      expect(JSON.parse(ollama.requests[before].body)).toEqual({ model: 'nomic-embed-text', input: ['a', 'bb'] });
      expect(data.object).toBe('list');
      expect(data.data.map((item) => item.index)).toEqual([0, 1]);
      // The SDK asked for base64 and decoded it: the vectors are the fake's, as float32.
      expect(data.data[1].embedding).toEqual([0.5, -0.5, Math.fround(0.02), 0.125]);
      expect(data.usage).toEqual({ prompt_tokens: 8, total_tokens: 8 });
      const charges = await chargesOf(target, response.headers.get('x-oneapi-request-id')!);
      expect(charges).toHaveLength(1);
      expect(charges[0].data).toMatchObject({ modelName: 'nomic-embed-text', promptTokens: 8, completionTokens: 0 });
    });

    it('Ollama: max_tokens reaches the upstream (new-api dropped it)', async () => {
      const before = ollama.requests.length;
      await client.chat.completions.create({ model: 'llama3.2', messages, max_tokens: 33 });
      expect(JSON.parse(ollama.requests[before].body)).toMatchObject({ max_tokens: 33 });
    });

    it('Gemini: an error event mid-stream ends the stream with an error event and bills the prompt and the text delivered', async () => {
      gemini.errorAfterEvents = 2;
      const response = await fetch(`${baseURL}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${user.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gemini-2.0-flash', messages, stream: true }),
      });
      expect(response.status).toBe(200);
      const events = (await response.text())
        .split('\n\n')
        .filter(Boolean)
        .map((event) => event.replace(/^data: /, ''));
      expect(events).not.toContain('[DONE]');
      expect(JSON.parse(events.at(-1)!)).toEqual({
        error: {
          message: expect.stringMatching(/^The model is overloaded\. Please try again later\. \(request id: /),
          type: 'UNAVAILABLE',
          param: null,
          code: 503,
        },
      });
      const delivered = events
        .slice(0, -1)
        .map((event) => (JSON.parse(event).choices?.[0]?.delta?.content as string | undefined) ?? '')
        .join('');
      expect(delivered).toBe(
        gemini.reply
          .split(/(?<=\s)/)
          .slice(0, 2)
          .join(''),
      );
      const [charge, ...rest] = await chargesOf(target, response.headers.get('x-oneapi-request-id')!);
      expect(rest).toHaveLength(0);
      // The prompt count Gemini reported, and the delivered text counted locally (not the 0 completion of its partial usage).
      expect(charge.data).toMatchObject({
        promptTokens: 5,
        completionTokens: countTextTokens(delivered, 'gemini-2.0-flash'),
        isStream: true,
      });
      expect(charge.data.completionTokens).toBeGreaterThan(0);
    });

    it('Anthropic: an overloaded upstream (529) reaches the client as a 5xx with the Claude error type, charging nothing', async () => {
      const charges = await chargeCount(target);
      claude.failNext(529, 'overloaded_error', 'Overloaded');
      const error = await client.chat.completions
        .create({ model: 'claude-3-5-haiku-20241022', messages })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.InternalServerError);
      expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(529);
      expect((error as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({
        type: 'overloaded_error',
        message: expect.stringMatching(/^Overloaded \(request id: /),
      });
      expect(await chargeCount(target)).toBe(charges);
    });

    it('Anthropic: a rate limit (429) gets the new-api saturation message', async () => {
      claude.failNext(429, 'rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit');
      const error = await client.chat.completions
        .create({ model: 'claude-3-5-haiku-20241022', messages })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.RateLimitError);
      expect((error as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({
        type: 'rate_limit_error',
        message: expect.stringMatching(/^当前分组上游负载已饱和，请稍后再试 \(request id: /),
      });
    });
  });
});
