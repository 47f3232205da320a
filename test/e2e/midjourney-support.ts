import { MidjourneyPoller } from '#server/relay/midjourney/midjourney-poller';
import { MidjourneyProxyFake } from '../fakes/upstreams/midjourney-proxy-fake';
import { createTestApp, type TestApp } from '../support/app';
import { createChannel, listen, userWithToken } from './relay-support';
import { type TaskRelayAnswer, taskRelayCall } from './task-support';
import { type Caller, projected, rootCaller } from './users-support';

export { eventsOfType, tokenBalance } from './task-support';

/** What the midjourney-* specs share once their app is up (filled in by the fixture's beforeAll). */
export interface MidjourneyContext {
  target: TestApp;
  /** The server's root URL (no /v1). */
  base: string;
  root: Caller;
  proxy: MidjourneyProxyFake;
  channelId: number;
  alice: Caller & { key: string; tokenId: number };
  bob: Caller & { key: string; tokenId: number };
}

export const ALICE_QUOTA = 10_000_000;
export const ALICE_TOKEN_QUOTA = 5_000_000;
/** mj_imagine's default price, 0.1 dollars at 500 000 quota units a dollar and group ratio 1. */
export const IMAGINE_QUOTA = 50_000;

/** Registers the app, a Midjourney-Proxy fake with a type-2 channel on it, alice (limited token) and bob. */
export function midjourneyFixture() {
  const context = { proxy: new MidjourneyProxyFake() } as MidjourneyContext;
  beforeAll(async () => {
    await context.proxy.start();
    context.target = await createTestApp();
    context.base = (await listen(context.target)).replace(/\/v1$/, '');
    context.root = await rootCaller(context.target);
    context.channelId = await createChannel(context.target, context.root, {
      type: 2,
      name: 'fake-mj',
      key: context.proxy.secret,
      baseUrl: context.proxy.baseUrl,
      models: [
        'mj_imagine',
        'mj_upscale',
        'mj_variation',
        'mj_reroll',
        'mj_describe',
        'mj_blend',
        'mj_modal',
        'mj_zoom',
        'mj_pan',
        'mj_shorten',
        'mj_upload',
        'swap_face',
      ],
    });
    context.alice = await userWithToken(context.target, 'mjalice', ALICE_QUOTA, {
      unlimited_quota: false,
      remain_quota: ALICE_TOKEN_QUOTA,
    });
    context.bob = await userWithToken(context.target, 'mjbob', ALICE_QUOTA);
    await projected(context.target);
  });
  afterAll(async () => {
    await context.target?.close();
    await context.proxy.close();
  });
  return context;
}

/** A JSON call to a relay route with a key (as `Authorization: Bearer`, or as `mj-api-secret` when asked). */
export async function mj(
  context: MidjourneyContext,
  method: 'GET' | 'POST',
  path: string,
  key: string,
  body?: unknown,
  options: { secretHeader?: boolean } = {},
): Promise<TaskRelayAnswer> {
  const headers: Record<string, string> = options.secretHeader ? { 'mj-api-secret': key } : { authorization: `Bearer ${key}` };
  return taskRelayCall(`${context.base}${path}`, method, headers, body);
}

export function poller(target: TestApp): MidjourneyPoller {
  return target.app.get(MidjourneyPoller, { strict: false });
}

/** A poller run, then the read models caught up. */
export async function poll(target: TestApp) {
  const report = await poller(target).run();
  await projected(target);
  return report;
}
