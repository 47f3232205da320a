import { newEvent, systemActor } from '#server/ledger/event-envelope';
import { deterministicEventId } from '#server/ledger/event-ids';
import { accountStream } from '#server/ledger/streams';
import { QUOTA_CONSUMED, type QuotaConsumedData } from '#server/modules/accounts/index';
import { createTestApp, type TestApp } from '../support/app';
import { type Caller, call, eventStore, projected, rootCaller, seedCaller } from './users-support';

/** One relay charge as the log specs settle it. */
export interface Charge {
  requestId: string;
  user: Caller;
  tokenId: number;
  tokenName: string;
  model: string;
  channelPath: number[];
  group: string;
  quota: number;
  prompt: number;
  completion: number;
  at: number;
  stream?: boolean;
}

export type ChargeName = 'a1' | 'a2' | 'a3' | 'b1' | 'b2';

/** What the log-API specs share once their app is up (filled in by the fixture's beforeAll). */
export interface LogsApiContext {
  target: TestApp;
  root: Caller;
  alice: Caller;
  bob: Caller;
  /** Three charges of alice's and two of bob's, settled and projected; alice also has a new-user gift row (type 4). */
  charges: Record<ChargeName, Charge>;
}

function consumedData(charge: Charge): QuotaConsumedData {
  return {
    requestId: charge.requestId,
    userId: charge.user.id,
    tokenId: charge.tokenId,
    tokenName: charge.tokenName,
    group: charge.group,
    modelName: charge.model,
    upstreamModel: charge.model,
    channelId: charge.channelPath[charge.channelPath.length - 1],
    channelName: `channel-${charge.channelPath[charge.channelPath.length - 1]}`,
    channelPath: charge.channelPath,
    relayMode: 'chat',
    promptTokens: charge.prompt,
    completionTokens: charge.completion,
    cachedTokens: 0,
    modelRatio: 0.075,
    completionRatio: 4,
    groupRatio: 1,
    modelPrice: -1,
    quota: charge.quota,
    tokenUnlimited: false,
    isStream: charge.stream ?? false,
    useTimeSeconds: 2,
    firstTokenMs: charge.stream ? 300 : 0,
    createdAt: charge.at,
    username: charge.user.username,
  };
}

/**
 * Registers the log-API app for the enclosing describe (root, alice and bob, alice's new-user gift and five charges
 * settled relative to `now`) and returns the context and the helpers bound to it. Call it first in the describe, so
 * its beforeAll runs before the spec's own.
 */
export function logsApiFixture() {
  const context = {} as LogsApiContext;
  const now = Math.floor(Date.now() / 1000);

  /** Appends a charge as the relay settles one: account stream, 'any', id derived from the request id. */
  async function settle(charge: Charge): Promise<void> {
    const event = newEvent(QUOTA_CONSUMED, consumedData(charge) as unknown as Record<string, unknown>, {
      id: deterministicEventId('relay-request', charge.requestId),
      metadata: { correlationId: charge.requestId, actor: systemActor(), reasonCode: 'relay_request', clientIp: '10.0.0.1' },
    });
    await eventStore(context.target).appendToStream(accountStream(charge.user.id), [event], { expectedRevision: 'any' });
  }

  beforeAll(async () => {
    const target = (context.target = await createTestApp());
    context.root = await rootCaller(target);
    const alice = (context.alice = await seedCaller(target, { username: 'alice' }));
    const bob = (context.bob = await seedCaller(target, { username: 'bob' }));
    // A system row (type 4) for alice: the new-user gift, as registration appends it.
    await eventStore(target).appendToStream(accountStream(alice.id), [
      newEvent(
        'QuotaGranted',
        { amount: 1000, kind: 'new_user', username: 'alice', quotaDisplay: { inCurrency: false, quotaPerUnit: 500000 } },
        {
          id: deterministicEventId('test-grant', 'alice'),
          metadata: { correlationId: 'grant-alice', actor: systemActor(), reasonCode: 'new_user' },
        },
      ),
    ]);
    context.charges = {
      a1: {
        requestId: 'req-a1',
        user: alice,
        tokenId: 11,
        tokenName: 'a-key',
        model: 'gpt-4o-mini',
        channelPath: [1],
        group: 'default',
        quota: 100,
        prompt: 10,
        completion: 5,
        at: now - 7200,
      },
      a2: {
        requestId: 'req-a2',
        user: alice,
        tokenId: 11,
        tokenName: 'a-key',
        model: 'gpt-4o',
        channelPath: [1, 2],
        group: 'vip',
        quota: 200,
        prompt: 20,
        completion: 10,
        at: now - 3600,
        stream: true,
      },
      a3: {
        requestId: 'req-a3',
        user: alice,
        tokenId: 12,
        tokenName: 'a-other',
        model: 'gpt-4o-mini',
        channelPath: [1],
        group: 'default',
        quota: 300,
        prompt: 30,
        completion: 15,
        at: now - 10,
      },
      b1: {
        requestId: 'req-b1',
        user: bob,
        tokenId: 21,
        tokenName: 'b-key',
        model: 'gpt-4o',
        channelPath: [2],
        group: 'default',
        quota: 400,
        prompt: 40,
        completion: 20,
        at: now - 5,
      },
      b2: {
        requestId: 'req-b2',
        user: bob,
        tokenId: 21,
        tokenName: 'b-key',
        model: 'claude-3-haiku',
        channelPath: [3],
        group: 'vip',
        quota: 500,
        prompt: 50,
        completion: 25,
        at: now - 172800,
      },
    };
    for (const charge of Object.values(context.charges)) await settle(charge);
    await projected(target);
  });

  afterAll(async () => {
    await context.target?.close();
  });

  const list = async (caller: Caller, path: string) => {
    const response = await call(context.target, caller, 'get', path).expect(200);
    expect(response.body.success).toBe(true);
    return response.body.data as { items: Array<Record<string, unknown>>; total: number; page: number; page_size: number };
  };
  /** The charges (by name) among a page's type 2 rows, told apart by their quota. */
  const requestIds = (items: Array<Record<string, unknown>>) =>
    items.filter((item) => item.type === 2).map((item) => Object.entries(context.charges).find(([, c]) => c.quota === item.quota)?.[0]);

  return { context, now, settle, list, requestIds };
}
