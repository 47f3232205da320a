import { MidjourneyPoller } from '#server/relay/midjourney/midjourney-poller';
import { MidjourneyProxyFake } from '../fakes/upstreams/midjourney-proxy-fake';
import { createTestApp, type TestApp } from '../support/app';
import { createChannel, listen, userWithToken } from './relay-support';
import { type Caller, dataSource, projected, rootCaller } from './users-support';

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
): Promise<{ status: number; body: any; requestId: string }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (options.secretHeader) headers['mj-api-secret'] = key;
  else headers.authorization = `Bearer ${key}`;
  const response = await fetch(`${context.base}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: the text
  }
  return { status: response.status, body: parsed, requestId: response.headers.get('x-oneapi-request-id') ?? '' };
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

export async function eventsOfType(target: TestApp, type: string): Promise<Array<{ stream_id: string; event_id: string; data: any }>> {
  return dataSource(target).query('SELECT stream_id, event_id, data FROM events WHERE type = $1 ORDER BY position', [type]);
}

export async function tokenBalance(target: TestApp, tokenId: number): Promise<{ remain_quota: number; used_quota: number }> {
  const rows: Array<Record<string, string>> = await dataSource(target).query(
    'SELECT remain_quota, used_quota FROM token_balances WHERE token_id = $1',
    [tokenId],
  );
  return { remain_quota: Number(rows[0].remain_quota), used_quota: Number(rows[0].used_quota) };
}
