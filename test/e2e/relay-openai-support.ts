import type OpenAI from 'openai';
import { AnthropicMessagesFake } from '../fakes/upstreams/anthropic-messages-fake';
import { GeminiApiFake } from '../fakes/upstreams/gemini-api-fake';
import { OpenAIUpstreamFake } from '../fakes/upstreams/openai-upstream-fake';
import { createTestApp, type TestApp } from '../support/app';
import { createChannel, listen, routable, sdk, userWithToken } from './relay-support';
import { type Caller, rootCaller } from './users-support';

/** What the relay-openai specs share once their app is up (filled in by the fixture's beforeAll). */
export interface RelayOpenAIContext {
  target: TestApp;
  /** The relay's /v1 base URL. */
  baseURL: string;
  root: Caller;
  alice: Caller & { key: string; tokenId: number };
  /** The official SDK with alice's key. */
  client: OpenAI;
  openai: OpenAIUpstreamFake;
  anthropic: AnthropicMessagesFake;
  gemini: GeminiApiFake;
}

/**
 * Registers the relay-openai app for the enclosing describe (an OpenAI, an Anthropic and a Gemini fake, a channel on
 * each, alice with a limited token) and returns the context. Call it first in the describe, so its beforeAll runs
 * before the spec's own.
 */
export function relayOpenAIFixture() {
  const context = {
    openai: new OpenAIUpstreamFake(),
    // Both answer with the providers' recorded responses, so the real wire bytes go through the relay.
    anthropic: new AnthropicMessagesFake({ recorded: true }),
    gemini: new GeminiApiFake({ recorded: true }),
  } as RelayOpenAIContext;
  const { openai, anthropic, gemini } = context;

  beforeAll(async () => {
    await Promise.all([openai.start(), anthropic.start(), gemini.start()]);
    const target = (context.target = await createTestApp());
    const baseURL = (context.baseURL = await listen(target));
    const root = (context.root = await rootCaller(target));
    await createChannel(target, root, {
      type: 1,
      name: 'fake-openai',
      baseUrl: openai.baseUrl,
      models: ['gpt-3.5-turbo', 'gpt-4o-mini', 'text-embedding-3-small', 'gpt-3.5-turbo-instruct', 'mapped-model'],
      modelMapping: { 'mapped-model': 'gpt-4o-mini' },
    });
    await createChannel(target, root, {
      type: 14,
      name: 'fake-claude',
      key: anthropic.apiKey,
      baseUrl: anthropic.baseUrl,
      models: ['claude-3-haiku-20240307'],
    });
    await createChannel(target, root, {
      type: 24,
      name: 'fake-gemini',
      key: gemini.apiKey,
      baseUrl: gemini.baseUrl,
      models: ['gemini-1.5-flash-latest'],
      other: 'v1beta',
    });
    const alice = (context.alice = await userWithToken(target, 'alice', 1_000_000, { unlimited_quota: false, remain_quota: 500_000 }));
    context.client = sdk(baseURL, alice.key);
    await routable(target, alice.key, baseURL, 'gemini-1.5-flash-latest');
  });

  afterAll(async () => {
    await context.target?.close();
    await Promise.all([openai.close(), anthropic.close(), gemini.close()]);
  });

  return { context };
}
