import type OpenAI from 'openai';
import { OpenAIAudioUpstreamFake } from '../fakes/upstreams/openai-audio-upstream-fake';
import { OpenAIUpstreamFake } from '../fakes/upstreams/openai-upstream-fake';
import { createTestApp, type TestApp } from '../support/app';
import { admission, chargeCount, createChannel, listen, routable, sdk, userWithToken } from './relay-support';
import { type Caller, projected, rootCaller } from './users-support';

/** What the relay-routes specs share once their app is up (filled in by the fixture's beforeAll). */
export interface RelayRoutesContext {
  target: TestApp;
  /** `${origin}/v1` */
  baseURL: string;
  origin: string;
  root: Caller;
  alice: Caller & { key: string; tokenId: number };
  /** The official SDK with alice's key. */
  client: OpenAI;
  openai: OpenAIUpstreamFake;
  audio: OpenAIAudioUpstreamFake;
}

type Available = { user: number; token: number | null };
const sameAvailable = (a: Available, b: Available) => a.user === b.user && a.token === b.token;

export const requestIdOf = (response: { headers: Headers }) => response.headers.get('x-oneapi-request-id')!;

/**
 * Registers the relay-routes app for the enclosing describe (an OpenAI fake, an audio fake, their channels and alice
 * with a limited token) and returns the context and the helpers bound to it. Call it first in the describe, so its
 * beforeAll runs before the spec's own.
 */
export function relayRoutesFixture() {
  const context = { openai: new OpenAIUpstreamFake(), audio: new OpenAIAudioUpstreamFake() } as RelayRoutesContext;
  const { openai, audio } = context;

  beforeAll(async () => {
    await Promise.all([openai.start(), audio.start()]);
    const target = (context.target = await createTestApp());
    context.baseURL = await listen(target);
    context.origin = context.baseURL.replace(/\/v1$/, '');
    const root = (context.root = await rootCaller(target));
    await createChannel(target, root, {
      type: 1,
      name: 'fake-openai',
      baseUrl: openai.baseUrl,
      models: ['gpt-3.5-turbo', 'text-embedding-ada-002', 'text-moderation-stable', 'omni-moderation-latest', 'dall-e-2', 'dall-e-3'],
    });
    await createChannel(target, root, {
      type: 1,
      name: 'fake-openai-audio',
      baseUrl: audio.baseUrl,
      models: ['whisper-1', 'tts-1', 'gpt-4o-transcribe', 'my-whisper'],
      modelMapping: { 'my-whisper': 'whisper-1' },
    });
    await createChannel(target, root, {
      type: 38,
      name: 'fake-jina',
      baseUrl: openai.baseUrl,
      models: ['jina-reranker-v2-base-multilingual'],
    });
    await createChannel(target, root, { type: 1, name: 'fake-openai-vip', baseUrl: openai.baseUrl, models: ['gpt-4o-mini'], group: 'vip' });
    context.alice = await userWithToken(target, 'alice', 10_000_000, { unlimited_quota: false, remain_quota: 5_000_000 });
    context.client = sdk(context.baseURL, context.alice.key);
    await routable(target, context.alice.key, context.baseURL, 'jina-reranker-v2-base-multilingual');
  });

  afterAll(async () => {
    await context.target?.close();
    await Promise.all([openai.close(), audio.close()]);
  });

  async function post(path: string, body: string | Buffer | FormData, headers: Record<string, string> = {}, key = context.alice.key) {
    const sent: Record<string, string> = { authorization: `Bearer ${key}` };
    // A FormData body sets its own multipart Content-Type (with the boundary).
    if (typeof body === 'string' || Buffer.isBuffer(body)) sent['content-type'] = 'application/json';
    return fetch(`${context.origin}${path}`, { method: 'POST', headers: { ...sent, ...headers }, body });
  }

  /**
   * Runs `refused` requests and checks that none reached an upstream, appended a QuotaConsumed or kept quota
   * reserved. Admission's figure can move for a moment after earlier requests (an idle quota block drains back to
   * Redis), so it is read once it holds still, and compared until it matches again: a request that charged or leaked
   * a reservation leaves it lower for good.
   */
  async function nothingCharged(refused: () => Promise<void>): Promise<void> {
    const { target } = context;
    await projected(target);
    const charges = await chargeCount(target);
    const upstreamCalls = openai.requests.length + audio.requests.length;
    // Three reads 100 ms apart that agree (at most 5 s).
    const available = await availableWhen((_now, same) => same >= 2, 50);
    await refused();
    expect(await chargeCount(target)).toBe(charges);
    expect(openai.requests.length + audio.requests.length).toBe(upstreamCalls);
    // Back to the figure before (at most 3 s); a charge or a leaked reservation keeps it lower.
    expect(await availableWhen((now) => sameAvailable(now, available), 30)).toEqual(available);
  }

  /** Alice's available quota, read every 100 ms until `done(latest, reads in a row that agreed)` or `tries` run out. */
  async function availableWhen(done: (now: Available, same: number) => boolean, tries: number): Promise<Available> {
    const { target, alice } = context;
    let last = await admission(target).available(alice.id, alice.tokenId);
    for (let same = 0, n = 0; n < tries && !done(last, same); n++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const now = await admission(target).available(alice.id, alice.tokenId);
      same = sameAvailable(now, last) ? same + 1 : 0;
      last = now;
    }
    return last;
  }

  return { context, post, nothingCharged };
}

export async function expectRelayError(response: Response, status: number, error: Record<string, unknown>): Promise<void> {
  const body = (await response.json()) as { error: Record<string, unknown> };
  expect({ status: response.status, error: body.error }).toMatchObject({ status, error });
  expect(String(body.error.message)).toMatch(new RegExp(`\\(request id: ${requestIdOf(response)}\\)$`));
}
