import { OpenAIUpstreamFake } from '../fakes/upstreams/openai-upstream-fake';
import { createTestApp, type TestApp } from '../support/app';
import { type PrivateRedis, startPrivateRedis } from '../support/private-services';
import { createChannel, listen } from './relay-support';
import { rootCaller } from './users-support';

/** An api + projector app on a redis-server of its own (to kill, freeze or restart), relaying to a fake OpenAI. */
export interface PrivateRedisApp {
  readonly upstream: OpenAIUpstreamFake;
  readonly redis: PrivateRedis;
  readonly target: TestApp;
  /** http://127.0.0.1:port, without /v1. */
  readonly origin: string;
  /** A chat completion for gpt-3.5-turbo with `key`. */
  chat(key: string, maxTokens?: number): Promise<Response>;
  /** Stops the upstream and removes the redis-server (the app is the spec's to close). */
  release(): Promise<void>;
}

/** Starts it, with `env` for the app (quota blocks held for 10 minutes unless `env` says otherwise). */
export async function startPrivateRedisApp(env: Record<string, string>): Promise<PrivateRedisApp> {
  const upstream = new OpenAIUpstreamFake();
  await upstream.start();
  const redis = await startPrivateRedis();
  const target = await createTestApp({
    roles: ['api', 'projector'],
    redisUrl: redis.url,
    env: { RELAY_QUOTA_BLOCK_IDLE_MS: '600000', ...env },
  });
  const origin = (await listen(target)).replace(/\/v1$/, '');
  const root = await rootCaller(target);
  await createChannel(target, root, { type: 1, name: 'fake-openai', baseUrl: upstream.baseUrl, models: ['gpt-3.5-turbo'] });
  return {
    upstream,
    redis,
    target,
    origin,
    chat: (key, maxTokens) =>
      fetch(`${origin}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'Hello' }], max_tokens: maxTokens }),
      }),
    async release() {
      await redis.destroy();
      await upstream.close();
    },
  };
}
