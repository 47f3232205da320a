import { OpenAIUpstreamFake } from '../fakes/upstreams/openai-upstream-fake';
import { createTestApp, type TestApp } from '../support/app';
import { createChannel, listen, routable, userWithToken } from './relay-support';
import { type Caller, dataSource, projected, rootCaller } from './users-support';
import { chargeOfRow } from '#test/support/quota-consumed-fixture';

/**
 * Shared steps of test/e2e/overspend-*.spec.ts: an upstream that ignores max_tokens (it reports `completionTokens`
 * whatever the client asked for), many requests held in flight at once, and what the ledger and read models then hold.
 */
export interface OverspendContext {
  target: TestApp;
  baseURL: string;
  root: Caller;
  openai: OpenAIUpstreamFake;
}

export const MODEL = 'gpt-3.5-turbo';

export function overspendFixture() {
  const context = { openai: new OpenAIUpstreamFake() } as OverspendContext;
  beforeAll(async () => {
    await context.openai.start();
    context.target = await createTestApp();
    context.baseURL = await listen(context.target);
    context.root = await rootCaller(context.target);
    await createChannel(context.target, context.root, {
      type: 1,
      name: 'ignores-max-tokens',
      baseUrl: context.openai.baseUrl,
      models: [MODEL],
    });
  });
  afterAll(async () => {
    await context.target?.close();
    await context.openai.close();
  });
  return context;
}

export type Holder = Caller & { key: string; tokenId: number };

export async function holder(
  context: OverspendContext,
  name: string,
  quota: number,
  token: { remain_quota?: number } = {},
): Promise<Holder> {
  const limited = token.remain_quota !== undefined;
  const user = await userWithToken(context.target, name, quota, { unlimited_quota: !limited, remain_quota: token.remain_quota ?? 0 });
  await routable(context.target, user.key, context.baseURL, MODEL);
  return user;
}

export interface Burst {
  /** Request ids of the answers that came back 200. */
  answered: string[];
  /** Status codes of the others. */
  refused: number[];
}

/**
 * Sends `count` chat requests at once, holds every one the relay lets through at the upstream until all have either
 * arrived there or been refused (so all the admitted ones are in flight together), then lets them answer.
 */
export async function burst(context: OverspendContext, caller: Holder, count: number, body: Record<string, unknown>): Promise<Burst> {
  const { openai } = context;
  let release!: () => void;
  openai.hold = new Promise<void>((resolve) => (release = resolve));
  const arrivedBefore = openai.requests.length;
  let refusedSoFar = 0;
  const sent = Array.from({ length: count }, async () => {
    const response = await fetch(`${context.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${caller.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], ...body }),
    });
    const text = await response.text();
    if (response.status !== 200) refusedSoFar++;
    return { status: response.status, requestId: response.headers.get('x-oneapi-request-id'), text };
  });
  const deadline = Date.now() + 60_000;
  while (openai.requests.length - arrivedBefore + refusedSoFar < count) {
    if (Date.now() > deadline)
      throw new Error(`burst: ${openai.requests.length - arrivedBefore} arrived, ${refusedSoFar} refused of ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const inFlight = openai.requests.length - arrivedBefore;
  openai.hold = null;
  release();
  const results = await Promise.all(sent);
  const answered = results.filter((result) => result.status === 200).map((result) => result.requestId!);
  expect(answered).toHaveLength(inFlight);
  return { answered, refused: results.filter((result) => result.status !== 200).map((result) => result.status) };
}

export interface Charge {
  requestId: string;
  quota: number;
  completionTokens: number;
  tokenId: number;
  billingCapped?: boolean;
}

/** The QuotaConsumed events of a user, once every answered charge is in the ledger and projected. */
export async function chargesOfUser(context: OverspendContext, userId: number): Promise<Charge[]> {
  await projected(context.target);
  const rows: Array<{ event_id: string; stream_id: string; data: unknown }> = await dataSource(context.target).query(
    `SELECT event_id, stream_id, data FROM events WHERE type = 'QuotaConsumed' AND stream_id = $1 ORDER BY position`,
    [`account-${userId}`],
  );
  return rows.map((row) => chargeOfRow(row) as Charge);
}

export async function accountQuota(context: OverspendContext, userId: number): Promise<number> {
  const rows: Array<{ quota: string }> = await dataSource(context.target).query('SELECT quota FROM account_balances WHERE user_id = $1', [
    userId,
  ]);
  return Number(rows[0].quota);
}

export async function tokenRemain(context: OverspendContext, tokenId: number): Promise<number> {
  const rows: Array<{ remain: string }> = await dataSource(context.target).query(
    'SELECT remain_quota AS remain FROM token_balances WHERE token_id = $1',
    [tokenId],
  );
  return Number(rows[0].remain);
}

/** Exactly the answered requests are charged, once each. */
export function expectChargedExactly(charges: Charge[], answered: string[]): void {
  expect(charges.map((charge) => charge.requestId).sort()).toEqual([...answered].sort());
}

export const sum = (charges: Charge[]) => charges.reduce((total, charge) => total + charge.quota, 0);
