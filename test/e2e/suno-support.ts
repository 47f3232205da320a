import { SunoPoller } from '#server/relay/suno/suno-poller';
import { SunoApiFake } from '../fakes/upstreams/suno-api-fake';
import { createTestApp, type TestApp } from '../support/app';
import { createChannel, listen, userWithToken } from './relay-support';
import { type TaskRelayAnswer, taskRelayCall } from './task-support';
import { type Caller, projected, rootCaller } from './users-support';

export { eventsOfType, tokenBalance } from './task-support';

/** What the suno-* specs share once their app is up (filled in by the fixture's beforeAll). */
export interface SunoContext {
  target: TestApp;
  /** The server's root URL (no /v1). */
  base: string;
  root: Caller;
  suno: SunoApiFake;
  channelId: number;
  alice: Caller & { key: string; tokenId: number };
  bob: Caller & { key: string; tokenId: number };
}

export const ALICE_QUOTA = 10_000_000;
export const ALICE_TOKEN_QUOTA = 5_000_000;
/** suno_music's default price, 0.1 dollars at 500 000 quota units a dollar and group ratio 1. */
export const MUSIC_QUOTA = 50_000;
/** suno_lyrics's default price, 0.01 dollars. */
export const LYRICS_QUOTA = 5_000;

/** Registers the app, a Suno API fake with a type-36 channel on it, alice (limited token) and bob. */
export function sunoFixture() {
  const context = { suno: new SunoApiFake() } as SunoContext;
  beforeAll(async () => {
    await context.suno.start();
    context.target = await createTestApp();
    context.base = (await listen(context.target)).replace(/\/v1$/, '');
    context.root = await rootCaller(context.target);
    context.channelId = await createChannel(context.target, context.root, {
      type: 36,
      name: 'fake-suno',
      key: context.suno.key,
      baseUrl: context.suno.baseUrl,
      models: ['suno_music', 'suno_lyrics'],
    });
    context.alice = await userWithToken(context.target, 'sunoalice', ALICE_QUOTA, {
      unlimited_quota: false,
      remain_quota: ALICE_TOKEN_QUOTA,
    });
    context.bob = await userWithToken(context.target, 'sunobob', ALICE_QUOTA);
    await projected(context.target);
  });
  afterAll(async () => {
    await context.target?.close();
    await context.suno.close();
  });
  return context;
}

/** A JSON call to a Suno relay route with a key. */
export async function suno(
  context: SunoContext,
  method: 'GET' | 'POST',
  path: string,
  key: string,
  body?: unknown,
): Promise<TaskRelayAnswer> {
  return taskRelayCall(`${context.base}${path}`, method, { authorization: `Bearer ${key}` }, body);
}

export function sunoPoller(target: TestApp): SunoPoller {
  return target.app.get(SunoPoller, { strict: false });
}

/** A poller run, then the read models caught up. */
export async function pollSuno(target: TestApp) {
  const report = await sunoPoller(target).run();
  await projected(target);
  return report;
}
