import { createHash } from 'node:crypto';
import { eventMetadata, systemActor } from '../../server/src/ledger/event-envelope';
import type { RecordedEvent } from '../../server/src/ledger/event-store.port';
import { accountStream, channelStream, tokenStream } from '../../server/src/ledger/streams';
import { LOGS_STREAM } from '../../server/src/modules/logs/logs.events';
import { type QuotaConsumedData, quotaConsumedEvent } from '../../server/src/modules/accounts';

/**
 * Ledgers for the projections' batch specs: every event type the four charge-folding projections handle, the
 * relay's QuotaConsumed in all its variants (several users, tokens and channels, unlimited tokens, no token,
 * no channel, logConsume false/true/absent, awkward text), interleaved with grants, admin edits, allotments,
 * channel events, purges and channel-test rows, and replays of events already applied.
 */

export const BASE_TIME = 1_732_600_000;
const display = { inCurrency: true, quotaPerUnit: 500000 };

/** Deterministic pseudo-random numbers (mulberry32): a failing seed reproduces. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A stable uuid per name, so two runs of a seed give the same event ids. */
function uuidOf(name: string): string {
  const hex = createHash('sha1').update(name).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Appends events to an in-memory ledger, assigning positions, stream revisions, ids and times as the store does. */
export class LedgerBuilder {
  readonly events: RecordedEvent[] = [];
  private readonly revisions = new Map<string, number>();

  constructor(private readonly name = 'ledger') {}

  get head(): number {
    return this.events.length;
  }

  append(streamId: string, type: string, data: Record<string, unknown>, secondsAfterBase = this.head): RecordedEvent {
    const revision = (this.revisions.get(streamId) ?? -1) + 1;
    this.revisions.set(streamId, revision);
    const position = this.events.length + 1;
    const event: RecordedEvent = {
      id: uuidOf(`${this.name}-${position}`),
      streamId,
      revision,
      position,
      type,
      data,
      metadata: eventMetadata({ correlationId: `${this.name}-${position}`, reasonCode: 'test', actor: systemActor() }),
      createdAt: new Date((BASE_TIME + secondsAfterBase) * 1000),
    };
    this.events.push(event);
    return event;
  }

  /**
   * A relay charge. Every fourth (heads 1, 5, 9 …) is stored as the relay stores charges now (the codec's compact v3,
   * metadata `{}`), every fourth from head 3 in the compact v2 the relay wrote before; the others in the older shape
   * of the full object (consumed()), so the folds see all three side by side.
   */
  charge(userId: number, overrides: Partial<QuotaConsumedData> = {}): RecordedEvent {
    const data = consumed(userId, this.head, overrides);
    if (this.head % 2 !== 1) return this.append(accountStream(userId), 'QuotaConsumed', data);
    const shape = this.head % 4 === 1 ? 'v3' : 'v2';
    const { streamId, event } = quotaConsumedEvent(data as unknown as QuotaConsumedData, { userRole: 1, clientIp: null }, shape);
    const recorded = this.append(streamId, 'QuotaConsumed', event.data);
    recorded.metadata = event.metadata;
    return recorded;
  }

  grant(userId: number, amount: number, kind: 'new_user' | 'invitee_gift' | 'root_initial' = 'new_user'): RecordedEvent {
    return this.append(accountStream(userId), 'QuotaGranted', { amount, kind, username: `user${userId}`, quotaDisplay: display });
  }

  adminSet(userId: number, before: number, after: number): RecordedEvent {
    return this.append(accountStream(userId), 'QuotaAdjustedByAdmin', {
      before,
      after,
      adminId: 1,
      username: `user${userId}`,
      quotaDisplay: display,
    });
  }

  inviterReward(userId: number, amount: number): RecordedEvent {
    return this.append(accountStream(userId), 'InviterRewarded', {
      amount,
      inviteeId: 99,
      username: `user${userId}`,
      quotaDisplay: display,
    });
  }

  affiliateTransfer(userId: number, amount: number): RecordedEvent {
    return this.append(accountStream(userId), 'AffiliateQuotaTransferred', { amount, username: `user${userId}`, quotaDisplay: display });
  }

  allot(tokenId: number, userId: number, remainQuota: number): RecordedEvent {
    return this.append(tokenStream(tokenId), 'TokenQuotaAllotted', { userId, remainQuota, unlimited: false, before: null });
  }

  channel(channelId: number, type: string, data: Record<string, unknown>): RecordedEvent {
    return this.append(channelStream(channelId), type, data);
  }

  purge(before: number): RecordedEvent {
    return this.append(LOGS_STREAM, 'LogsPurged', { before, adminId: 1 });
  }

  channelTest(channelId: number): RecordedEvent {
    return this.append(LOGS_STREAM, 'ChannelTestLogged', {
      userId: 1,
      username: 'root',
      channelId,
      modelName: 'gpt-4o-mini',
      upstreamModel: 'gpt-4o-mini',
      promptTokens: 8,
      completionTokens: 1,
      quota: 3,
      modelRatio: 0.075,
      completionRatio: 4,
      modelPrice: -1,
      useTimeSeconds: 1,
      createdAt: BASE_TIME + this.head,
    });
  }
}

/**
 * The data of one relayed request, with text that exercises array literals (quotes, braces, commas, unicode). Every
 * other one is in the shape the relay wrote before the wording moved to the projection (its own `content`, `other`
 * and `quotaDisplay`), the rest in today's shape (facts only), so both are folded side by side.
 */
export function consumed(userId: number, i: number, overrides: Partial<QuotaConsumedData> = {}): Record<string, unknown> {
  const tokenId = 100 + userId;
  const legacy =
    i % 2 === 0
      ? {
          content: `模型倍率 1.25，补全倍率 4.00，分组倍率 1.00 "q" {x} NULL`,
          other: { note: `n${i}`, nested: { z: 1, a: [i] } },
          quotaDisplay: display,
        }
      : {};
  return {
    requestId: `req-${userId}-${i}`,
    userId,
    tokenId,
    tokenName: `tok "${userId}", {a,b} \\ é`,
    group: i % 4 ? 'default' : 'vip',
    modelName: i % 2 ? 'gpt-4o' : 'gpt-4o-mini',
    upstreamModel: i % 5 ? (i % 2 ? 'gpt-4o' : 'gpt-4o-mini') : 'gpt-4o-2024-08-06',
    channelId: 1 + (i % 3),
    channelName: 'c',
    channelPath: i % 2 ? [3, 1 + (i % 3)] : [1 + (i % 3)],
    relayMode: 'chat',
    promptTokens: 10 * i,
    completionTokens: i,
    cachedTokens: i % 7,
    modelRatio: 1.25,
    completionRatio: 4,
    groupRatio: 1,
    modelPrice: -1,
    quota: 100 + i,
    tokenUnlimited: false,
    isStream: i % 3 === 0,
    useTimeSeconds: 1 + (i % 4),
    firstTokenMs: 250 + i,
    createdAt: BASE_TIME + i,
    username: `user${userId}`,
    ...legacy,
    ...overrides,
  };
}

const CHANNEL_EVENTS: Array<[string, (i: number) => Record<string, unknown>]> = [
  ['ChannelEnabled', () => ({ previousStatus: 2 })],
  ['ChannelDisabled', () => ({ previousStatus: 1 })],
  ['ChannelAutoDisabled', (i) => ({ reasonCode: 'upstream_unauthorized', message: `bad key ${i}`, evidence: { status: 401 } })],
  ['ChannelAutoEnabled', (i) => ({ reasonCode: 'recovered', message: `ok ${i}`, evidence: {} })],
  ['ChannelTested', (i) => ({ ok: i % 2 === 0, responseTimeMs: 100 + i, model: 'gpt-4o-mini', error: null })],
  ['ChannelBalanceUpdated', (i) => ({ balance: i / 8 })],
];

/**
 * `count` new events drawn at random (mostly charges), some of them followed by a replay of an earlier event
 * (same id, position and revision: what a hand-run replay hands a projection). Returned in the order to apply.
 */
export function randomEvents(builder: LedgerBuilder, rand: () => number, count: number): RecordedEvent[] {
  const pick = <T>(items: readonly T[]) => items[Math.floor(rand() * items.length)];
  const users = [1, 2, 3, 4];
  const out: RecordedEvent[] = [];
  for (let n = 0; n < count; n++) {
    const roll = rand();
    const user = pick(users);
    const i = builder.head;
    if (roll < 0.62) {
      const variant = rand();
      const overrides: Partial<QuotaConsumedData> = {
        tokenId: variant < 0.08 ? 0 : pick([100 + user, 200 + user, 300]), // 300: shared, its owner is whoever comes first
        tokenUnlimited: variant > 0.85,
        channelId: variant > 0.1 && variant < 0.15 ? 0 : pick([1, 2, 3, 4]),
        quota: Math.floor(rand() * 500),
        createdAt: variant > 0.95 ? 0 : BASE_TIME + i, // 0: the row falls back to the ledger time
      };
      if (variant >= 0.3) overrides.logConsume = variant >= 0.45; // absent (older events), false or true
      if (variant > 0.97) overrides.modelName = `m\u0000${'x'.repeat(300)}`; // cleaned and cut by consumeLogRow
      out.push(builder.charge(user, overrides));
    } else if (roll < 0.67)
      out.push(builder.grant(user, 1000 + Math.floor(rand() * 5000), pick(['new_user', 'invitee_gift', 'root_initial'] as const)));
    else if (roll < 0.7) out.push(builder.adminSet(user, 0, Math.floor(rand() * 10000)));
    else if (roll < 0.72) out.push(builder.inviterReward(user, 100));
    else if (roll < 0.74) out.push(builder.affiliateTransfer(user, 50));
    else if (roll < 0.79) out.push(builder.allot(pick([100 + user, 200 + user, 300]), user, Math.floor(rand() * 100000)));
    else if (roll < 0.86) {
      const [type, data] = pick(CHANNEL_EVENTS);
      out.push(builder.channel(pick([1, 2, 3, 4]), type, data(i)));
    } else if (roll < 0.88) out.push(builder.purge(BASE_TIME + Math.floor(rand() * i)));
    else if (roll < 0.91) out.push(builder.channelTest(pick([1, 2, 3])));
    else out.push(builder.charge(user, { tokenId: 100 + user, channelId: 2, quota: 7 }));
    if (rand() < 0.08 && builder.events.length > 1) out.push(pick(builder.events.slice(0, -1)));
  }
  return out;
}

/**
 * The hand-written mixed batch of the specs, after `prefix` (already applied): charges of several users and tokens,
 * unlimited tokens, logConsume false, grants and an admin edit between charges of the same user, a channel status
 * change and a test between charges of the same channel, an allotment between charges of its token, a purge and a
 * channel-test row between charges, and events already applied (from the prefix, and twice within the batch).
 */
export function handWrittenLedger(): { prefix: RecordedEvent[]; batch: RecordedEvent[] } {
  const b = new LedgerBuilder('hand');
  const prefix = [
    b.grant(1, 5000),
    b.grant(2, 9000),
    b.allot(101, 1, 1000),
    b.charge(1, { quota: 10 }),
    b.charge(2, { quota: 20, tokenUnlimited: true }),
    b.channel(2, 'ChannelTested', { ok: true, responseTimeMs: 120, model: 'm', error: null }),
  ];
  const batch: RecordedEvent[] = [];
  batch.push(prefix[3]); // a charge whose revision is already folded: must not count again
  batch.push(b.charge(1, { quota: 11 }), b.charge(2, { quota: 21, logConsume: false }), b.charge(3, { quota: 31, tokenId: 0 }));
  batch.push(b.grant(1, 100, 'invitee_gift'));
  batch.push(b.charge(1, { quota: 12, tokenUnlimited: true }), b.charge(1, { quota: 13, tokenId: 201 }));
  batch.push(b.adminSet(2, 8959, 500));
  batch.push(b.charge(2, { quota: 22, channelId: 0 }), b.charge(4, { quota: 41, logConsume: true }));
  batch.push(b.allot(101, 1, 5000), b.charge(1, { quota: 14 }));
  batch.push(b.channel(1, 'ChannelAutoDisabled', { reasonCode: 'x', message: 'down', evidence: {} }), b.charge(2, { quota: 23 }));
  batch.push(b.purge(BASE_TIME + 8), b.charge(3, { quota: 32, createdAt: BASE_TIME + 1 }), b.channelTest(2));
  const twice = b.charge(4, { quota: 42 });
  batch.push(twice, b.charge(4, { quota: 43 }), twice); // handed over twice within the batch
  batch.push(prefix[0], b.charge(1, { quota: 15 }), prefix[4]); // an old grant and an old unlimited charge again
  return { prefix, batch };
}
