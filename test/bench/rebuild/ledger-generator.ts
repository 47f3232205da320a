import { createHash } from 'node:crypto';
import { newEvent, systemActor, userActor } from '#server/ledger/event-envelope';
import { deterministicEventId, uuidV7 } from '#server/ledger/event-ids';
import type { NewEvent } from '#server/ledger/event-store.port';
import { accountStream, channelStream, redemptionStream, tokenStream, topUpStream } from '#server/ledger/streams';
import {
  type AccountCommand,
  type AccountState,
  applyQuotaConsumed,
  decide as decideAccount,
  evolve as evolveAccount,
  initialAccountState,
} from '#server/modules/accounts/account.decider';
import { toNewAccountEvent } from '#server/modules/accounts/account-event-codec';
import type { AccountEvent, QuotaConsumedData } from '#server/modules/accounts/index';
import type { QuotaDisplay } from '#server/modules/accounts/quota-display';
import {
  type ChannelCommand,
  type ChannelState,
  decide as decideChannel,
  evolve as evolveChannel,
  initialChannelState,
} from '#server/modules/channels/channel.decider';
import { toNewChannelEvent } from '#server/modules/channels/channel-event-codec';
import { LOGS_STREAM } from '#server/modules/logs/logs.events';
import { decide as decideLogs } from '#server/modules/logs/logs.decider';
import {
  decide as decideRedemption,
  evolve as evolveRedemption,
  initialRedemptionState,
} from '#server/modules/redemptions/redemption.decider';
import { toNewRedemptionEvent } from '#server/modules/redemptions/redemption-event-codec';
import { decide as decideToken, initialTokenQuotaState } from '#server/modules/tokens/token.decider';
import { toNewTokenEvent } from '#server/modules/tokens/token-event-codec';
import { decide as decideTopUp, evolve as evolveTopUp, initialTopUpState } from '#server/modules/topups/topup.decider';
import { toNewTopUpEvent } from '#server/modules/topups/topup-event-codec';
import { quotaConsumedEvent } from '#server/modules/accounts/index';

/**
 * A realistic ledger for the rebuild benchmark (`npm run bench -- --rebuild`), built through the product's own
 * deciders and event builders, so every payload is what the product writes: registrations (new-user grants, invite
 * gifts and inviter rewards), token allotments, channel status changes, tests and balances, the relay's charges
 * (QuotaConsumed, through the settlement's builder) across many users, tokens, channels and models, redemption codes
 * issued and redeemed, online top-ups ordered, paid and credited, admin quota edits and one log purge.
 * Deterministic for a seed: the same N gives the same ledger.
 */

/** One event as the ledger stores it: the store assigns position and revision the same way (head + 1, stream + 1). */
export interface LedgerRow {
  position: number;
  streamId: string;
  revision: number;
  event: NewEvent;
  createdAt: Date;
}

const DISPLAY: QuotaDisplay = { inCurrency: true, quotaPerUnit: 500_000 };
/** 2026-10-01T00:00:00Z; each event is 2.5 s after the previous one (a million span about 29 days). */
const START_MS = Date.UTC(2026, 9, 1);
const STEP_MS = 2500;

/** Models with new-api's ratios (model ratio, completion ratio) as the charge records them. */
const MODELS: Array<[name: string, modelRatio: number, completionRatio: number, modelPrice: number]> = [
  ['gpt-4o-mini', 0.075, 4, -1],
  ['gpt-4o', 1.25, 4, -1],
  ['gpt-3.5-turbo', 0.25, 1.33, -1],
  ['claude-3-5-sonnet-20241022', 1.5, 5, -1],
  ['gemini-1.5-pro', 1.25, 4, -1],
  ['text-embedding-3-small', 0.01, 1, -1],
  ['deepseek-chat', 0.135, 2, -1],
  ['dall-e-3', 0, 0, 0.04],
];
const GROUPS: Array<[name: string, ratio: number]> = [
  ['default', 1],
  ['vip', 0.8],
  ['svip', 0.6],
];

/** Deterministic pseudo-random numbers (mulberry32). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface User {
  id: number;
  username: string;
  group: string;
  state: AccountState;
  tokens: Array<{ id: number; name: string; unlimited: boolean }>;
}

export interface LedgerMix {
  users: number;
  channels: number;
  /** Counts per event type, filled while generating. */
  types: Map<string, number>;
}

/**
 * Yields the ledger in chunks of `chunk` rows (positions `firstPosition`…), `total` events in all (the last chunk
 * may run a few events over: a top-up or redemption is kept whole).
 */
export function* generateLedger(
  total: number,
  options: { chunk?: number; seed?: number; firstPosition?: number } = {},
): Generator<LedgerRow[], LedgerMix> {
  const chunk = options.chunk ?? 10_000;
  const rand = random(options.seed ?? 20);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)];
  const revisions = new Map<string, number>();
  const types = new Map<string, number>();
  let position = (options.firstPosition ?? 1) - 1;
  let rows: LedgerRow[] = [];
  const now = () => START_MS + position * STEP_MS;
  const push = (streamId: string, event: NewEvent) => {
    const revision = (revisions.get(streamId) ?? -1) + 1;
    revisions.set(streamId, revision);
    position++;
    rows.push({ position, streamId, revision, event, createdAt: new Date(now()) });
    types.set(event.type, (types.get(event.type) ?? 0) + 1);
  };
  const metadata = (correlation: string, reasonCode: string, actor = systemActor()) => ({ correlationId: correlation, reasonCode, actor });

  const userCount = Math.max(50, Math.round(total / 500));
  const channelCount = Math.max(8, Math.min(60, Math.round(total / 20_000)));
  const users: User[] = [];
  const channels: Array<{ id: number; name: string; state: ChannelState }> = [];
  let nextTokenId = 1;
  let nextRedemptionId = 1;
  let nextTrade = 1;
  let purged = false;

  const account = (user: User, command: AccountCommand, id: string, reasonCode: string) => {
    for (const decided of decideAccount(command, user.state) as AccountEvent[]) {
      user.state = evolveAccount(user.state, decided);
      push(
        accountStream(user.id),
        toNewAccountEvent(decided, {
          id,
          metadata: metadata(id, reasonCode),
          annotation: { username: user.username, quotaDisplay: DISPLAY },
        }),
      );
    }
  };
  const channel = (index: number, command: ChannelCommand) => {
    const target = channels[index];
    for (const decided of decideChannel(command, target.state)) {
      target.state = evolveChannel(target.state, decided);
      const id = deterministicEventId('bench-channel', `${target.id}-${position}`);
      push(channelStream(target.id), toNewChannelEvent(decided, { id, metadata: metadata(id, 'channel_admin') }));
    }
  };
  const register = (inviter?: User) => {
    const id = users.length + 1;
    const user: User = {
      id,
      username: `user${id}`,
      group: GROUPS[id % 7 === 0 ? 1 : id % 23 === 0 ? 2 : 0][0],
      state: initialAccountState,
      tokens: [],
    };
    users.push(user);
    account(
      user,
      { type: 'GrantQuota', amount: 500_000, kind: id === 1 ? 'root_initial' : 'new_user' },
      deterministicEventId('bench-register', String(id)),
      'register',
    );
    if (inviter) {
      account(
        user,
        { type: 'GrantQuota', amount: 100_000, kind: 'invitee_gift' },
        deterministicEventId('bench-invitee', String(id)),
        'register',
      );
      account(
        inviter,
        { type: 'RewardInviter', amount: 50_000, inviteeId: id },
        deterministicEventId('bench-inviter', String(id)),
        'register',
      );
    }
    const tokens = 1 + (id % 3);
    for (let t = 0; t < tokens; t++) allot(user, { id: nextTokenId++, name: `key-${id}-${t}`, unlimited: (id + t) % 5 === 0 }, null);
  };
  const allot = (user: User, token: User['tokens'][number], current: { remainQuota: number; unlimited: boolean } | null) => {
    if (!user.tokens.includes(token)) user.tokens.push(token);
    const command = {
      type: 'AllotTokenQuota' as const,
      userId: user.id,
      remainQuota: 200_000 + Math.floor(rand() * 5_000_000),
      unlimited: token.unlimited,
      current,
    };
    for (const decided of decideToken(command, initialTokenQuotaState)) {
      const id = deterministicEventId('bench-token', `${token.id}-${position}`);
      push(tokenStream(token.id), toNewTokenEvent(decided, { id, metadata: metadata(id, 'token_edit', userActor(user.id, 1)) }));
    }
  };
  const charge = (user: User) => {
    const token = pick(user.tokens);
    const [modelName, modelRatio, completionRatio, modelPrice] = MODELS[Math.floor(rand() ** 2 * MODELS.length)];
    const groupRatio = GROUPS.find(([name]) => name === user.group)![1];
    const index = Math.floor(rand() ** 1.5 * channels.length);
    const answering = channels[index];
    const promptTokens = 20 + Math.floor(rand() * 3000);
    const completionTokens = modelName.startsWith('text-embedding') ? 0 : Math.floor(rand() * 1200);
    const quota =
      modelPrice >= 0
        ? Math.round(modelPrice * DISPLAY.quotaPerUnit * groupRatio)
        : Math.ceil((promptTokens + completionTokens * completionRatio) * modelRatio * groupRatio);
    const isStream = rand() < 0.6;
    const useTimeSeconds = Math.floor(rand() * 30);
    // The relay's request ids are UUID v7 made at admission (the charge's event id is then the request id itself).
    const requestId = uuidV7(now() - useTimeSeconds * 1000);
    const data: QuotaConsumedData = {
      requestId,
      userId: user.id,
      username: user.username,
      tokenId: token.id,
      tokenName: token.name,
      group: user.group,
      modelName,
      upstreamModel: modelName,
      channelId: answering.id,
      channelName: answering.name,
      channelPath: rand() < 0.05 && index > 0 ? [channels[0].id, answering.id] : [answering.id],
      relayMode: modelName.startsWith('text-embedding') ? 'embeddings' : modelName === 'dall-e-3' ? 'images-generations' : 'chat',
      promptTokens,
      completionTokens,
      cachedTokens: rand() < 0.2 ? Math.floor(promptTokens / 2) : 0,
      modelRatio,
      completionRatio,
      groupRatio,
      modelPrice,
      quota,
      tokenUnlimited: token.unlimited,
      isStream,
      useTimeSeconds,
      firstTokenMs: isStream ? 150 + Math.floor(rand() * 900) : 0,
      createdAt: Math.floor(now() / 1000) - useTimeSeconds,
      usageSource: rand() < 0.97 ? 'upstream' : 'estimated',
      endReason: rand() < 0.97 ? 'completed' : 'client_gone',
    };
    if (modelName === 'dall-e-3') data.content = '模型价格 0.04 , 大小 1024x1024, 品质 standard';
    // LogConsumeEnabled / DataExportEnabled were switched off for a while (options recorded in the charge).
    if (position % 100_000 > 97_000) data.logConsume = false;
    if (position % 150_000 > 148_000) data.dataExport = false;
    user.state = applyQuotaConsumed(user.state, quota);
    push(
      accountStream(user.id),
      quotaConsumedEvent(data, { userRole: user.id === 1 ? 100 : 1, clientIp: `10.0.${user.id % 250}.${1 + (user.id % 200)}` }).event,
    );
  };
  const topUp = (user: User) => {
    const tradeNo = `USR${user.id}NO${String(nextTrade++).padStart(8, '0')}`;
    const money = 10 * (1 + Math.floor(rand() * 10));
    const stream = topUpStream(tradeNo);
    let order = initialTopUpState;
    const orderEvents = decideTopUp(
      {
        type: 'PlaceTopUpOrder',
        tradeNo,
        userId: user.id,
        username: user.username,
        amount: money,
        quota: money * DISPLAY.quotaPerUnit,
        money,
        paymentMethod: rand() < 0.5 ? 'zfb' : 'wx',
        createdTime: Math.floor(now() / 1000),
      },
      order,
    );
    for (const decided of orderEvents) {
      order = evolveTopUp(order, decided);
      const id = deterministicEventId('bench-topup-order', tradeNo);
      push(stream, toNewTopUpEvent(decided, { id, metadata: metadata(id, 'topup_order', userActor(user.id, 1)) }));
    }
    for (const decided of decideTopUp(
      { type: 'ConfirmTopUpPayment', money, gatewayTradeNo: `G${tradeNo}`, paidTime: Math.floor(now() / 1000) + 30 },
      order,
    )) {
      order = evolveTopUp(order, decided);
      const id = deterministicEventId('bench-topup-paid', tradeNo);
      push(stream, toNewTopUpEvent(decided, { id, metadata: metadata(id, 'topup_paid') }));
    }
    const credit = {
      type: 'QuotaToppedUp' as const,
      data: { amount: order.quota, tradeNo, money: order.paidMoney, paymentMethod: order.paymentMethod },
    };
    user.state = evolveAccount(user.state, credit);
    const id = deterministicEventId('topup-paid', tradeNo);
    push(
      accountStream(user.id),
      toNewAccountEvent(credit, {
        id,
        metadata: metadata(id, 'topup_credit'),
        annotation: { username: user.username, quotaDisplay: DISPLAY },
      }),
    );
  };
  const redeem = (user: User) => {
    const redemptionId = nextRedemptionId++;
    const stream = redemptionStream(redemptionId);
    const key = createHash('sha1').update(`code-${redemptionId}`).digest('hex').slice(0, 32);
    let state = initialRedemptionState;
    const issued = decideRedemption(
      {
        type: 'IssueRedemptionCode',
        id: redemptionId,
        key,
        name: `promo${redemptionId % 50}`,
        quota: 250_000,
        creatorId: 1,
        createdTime: Math.floor(now() / 1000),
      },
      state,
    );
    for (const decided of issued) {
      state = evolveRedemption(state, decided);
      const id = deterministicEventId('bench-redemption-issue', String(redemptionId));
      push(stream, toNewRedemptionEvent(decided, { id, metadata: metadata(id, 'redemption_issue', userActor(1, 100)) }));
    }
    for (const decided of decideRedemption(
      { type: 'RedeemRedemptionCode', userId: user.id, username: user.username, redeemedTime: Math.floor(now() / 1000) },
      state,
    )) {
      const id = deterministicEventId('redemption', String(redemptionId));
      push(stream, toNewRedemptionEvent(decided, { id, metadata: metadata(id, 'redeem', userActor(user.id, 1)) }));
    }
    const credit = { type: 'QuotaRedeemed' as const, data: { amount: 250_000, redemptionId } };
    user.state = evolveAccount(user.state, credit);
    const id = deterministicEventId('redemption-credit', String(redemptionId));
    push(
      accountStream(user.id),
      toNewAccountEvent(credit, { id, metadata: metadata(id, 'redeem'), annotation: { username: user.username, quotaDisplay: DISPLAY } }),
    );
  };

  for (let c = 1; c <= channelCount; c++) channels.push({ id: c, name: `channel-${c}`, state: initialChannelState });
  register();
  while (position < total) {
    const remaining = total - position;
    const roll = rand();
    if (users.length < userCount && (roll < 0.01 || users.length < 5))
      register(users.length > 10 && rand() < 0.3 ? pick(users) : undefined);
    else if (roll < 0.013)
      account(
        pick(users),
        { type: 'AdjustQuotaByAdmin', after: Math.floor(rand() * 20_000_000), adminId: 1 },
        deterministicEventId('bench-admin', String(position)),
        'admin_edit',
      );
    else if (roll < 0.016 && remaining > 4) topUp(pick(users));
    else if (roll < 0.019 && remaining > 4) redeem(pick(users));
    else if (roll < 0.0215) {
      const index = Math.floor(rand() * channels.length);
      const kind = rand();
      if (kind < 0.5)
        channel(index, {
          type: 'RecordChannelTest',
          ok: rand() < 0.9,
          responseTimeMs: 100 + Math.floor(rand() * 2000),
          model: 'gpt-4o-mini',
          error: null,
        });
      else if (kind < 0.65)
        channel(index, {
          type: 'AutoDisableChannel',
          reasonCode: 'upstream_unauthorized',
          message: 'invalid api key',
          evidence: { status: 401 },
        });
      else if (kind < 0.8) channel(index, { type: 'AutoEnableChannel', reasonCode: 'test_passed', message: 'recovered', evidence: {} });
      else if (kind < 0.9) channel(index, { type: 'EnableChannel' });
      else channel(index, { type: 'RecordChannelBalance', balance: Math.round(rand() * 10_000) / 100 });
    } else if (roll < 0.0225) {
      const user = pick(users);
      const token = pick(user.tokens);
      allot(user, token, { remainQuota: 1, unlimited: token.unlimited });
    } else if (!purged && position >= total * 0.6) {
      purged = true;
      // An admin purges the logs older than the first tenth of the ledger's time span.
      const id = deterministicEventId('bench-purge', String(position));
      for (const decided of decideLogs({
        type: 'PurgeLogs',
        targetTimestamp: Math.floor((START_MS + total * 0.1 * STEP_MS) / 1000),
        adminId: 1,
      })) {
        push(LOGS_STREAM, newEvent(decided.type, { ...decided.data }, { id, metadata: metadata(id, 'logs_purge', userActor(1, 100)) }));
      }
    } else {
      // Older users are busier: a user among the first max(20, n·√r) registered, without copying the list.
      const among = users.length > 20 ? Math.max(20, Math.floor(users.length * rand() ** 0.5)) : users.length;
      charge(users[Math.floor(rand() * among)]);
    }
    if (rows.length >= chunk) {
      yield rows;
      rows = [];
    }
  }
  if (rows.length) yield rows;
  return { users: users.length, channels: channels.length, types };
}
