import OpenAI from 'openai';
import type { RecordedRequest } from '../fakes/http-fake';
import { AnthropicMessagesFake } from '../fakes/upstreams/anthropic-messages-fake';
import { AzureOpenAIUpstreamFake } from '../fakes/upstreams/azure-openai-upstream-fake';
import { GeminiApiFake } from '../fakes/upstreams/gemini-api-fake';
import { OllamaUpstreamFake } from '../fakes/upstreams/ollama-upstream-fake';
import { OpenAIUpstreamFake } from '../fakes/upstreams/openai-upstream-fake';
import { createTestApp, type TestApp } from '../support/app';
import { createChannel, listen, routable, sdk, userWithToken } from './relay-support';
import { type Caller, rootCaller } from './users-support';

/**
 * The relay-providers specs' app: a local fake of each provider's wire protocol, and for every supported channel type
 * (docs/providers.md) one row of the table below with a working channel and one its upstream refuses.
 */
export type Fake = OpenAIUpstreamFake | AnthropicMessagesFake | GeminiApiFake;

export interface Provider {
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

/** What the relay-providers specs share once their app is up (filled in by the fixture's beforeAll). */
export interface RelayProvidersContext {
  target: TestApp;
  /** The relay's /v1 base URL. */
  baseURL: string;
  /** The user the specs relay as, with a limited token. */
  user: Caller & { key: string; tokenId: number };
  /** The official SDK with the user's key. */
  client: OpenAI;
  openai: OpenAIUpstreamFake;
  azure: AzureOpenAIUpstreamFake;
  ollama: OllamaUpstreamFake;
  claude: AnthropicMessagesFake;
  gemini: GeminiApiFake;
}

export const messages: OpenAI.ChatCompletionMessageParam[] = [
  { role: 'system', content: 'You are a test.' },
  { role: 'user', content: 'Say hello.' },
];

/**
 * Registers the relay-providers app for the enclosing describe (the fakes, both channels of every row, a user with a
 * limited token) and returns the context and the provider table. Call it first in the describe, so its beforeAll
 * runs before the spec's own.
 */
export function relayProvidersFixture() {
  const context = {
    openai: new OpenAIUpstreamFake(),
    azure: new AzureOpenAIUpstreamFake(),
    ollama: new OllamaUpstreamFake(),
    claude: new AnthropicMessagesFake(),
    gemini: new GeminiApiFake(),
  } as RelayProvidersContext;
  const { openai, azure, ollama, claude, gemini } = context;

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
        // The upstream repeats the key it was sent; the relay redacts the channel's key before the client sees it.
        message: expect.stringMatching(/^Incorrect API key provided: \*\*\*\. .* \(request id: /),
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
    const target = (context.target = await createTestApp());
    const baseURL = (context.baseURL = await listen(target));
    const root = await rootCaller(target);
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
    const user = (context.user = await userWithToken(target, 'providers', 100_000_000, {
      unlimited_quota: false,
      remain_quota: 50_000_000,
    }));
    context.client = sdk(baseURL, user.key);
    for (const provider of providers) {
      await routable(target, user.key, baseURL, provider.model);
      await routable(target, user.key, baseURL, provider.failure.model);
    }
  });

  afterAll(async () => {
    await context.target?.close();
    await Promise.all([openai.close(), azure.close(), ollama.close(), claude.close(), gemini.close()]);
  });

  return { context, providers };
}
