import type { DataSource } from 'typeorm';
import { compareTables, type SnapshotOptions } from '../../test/support/compare-tables';
import type { RecordedEvent } from '../../server/src/ledger/event-store.port';
import { accountStream } from '../../server/src/ledger/streams';
import { BulkLoad, type BulkProjection } from '../src/runner/bulk-load';
import { LedgerBuilder } from './mixed-ledger';

/**
 * For a projection whose `apply` also writes tables outside its `tables` (which bulk-equivalence's expectSameRows
 * compares): the same events through `apply` one by one on `perEvent` and through a BulkLoad on `bulk` (whose
 * checkpoint the harness's beforeEach set to 0), in pages of `pageSize`; returns the comparison of `tables`.
 */
export async function replayBoth(
  projection: BulkProjection,
  context: { perEvent: DataSource; bulk: DataSource },
  events: readonly RecordedEvent[],
  tables: string[],
  options: SnapshotOptions & { pageSize?: number } = {},
) {
  const handled = new Set<string>(projection.handles);
  const mine = events.filter((event) => handled.has(event.type));
  await context.perEvent.transaction(async (manager) => {
    for (const event of mine) await projection.apply(event, manager);
  });
  const load = await BulkLoad.start(context.bulk, projection, 0);
  const size = options.pageSize ?? 2;
  try {
    for (let start = 0; start < events.length; start += size) await load.feed(events.slice(start, start + size));
  } catch (error) {
    await load.abort();
    throw error;
  }
  await load.finish(events[events.length - 1]?.position ?? 0);
  return compareTables(context.perEvent, context.bulk, tables, options);
}

/**
 * The account events the mixed ledgers and the benchmark's generator leave out or seldom hold, between charges of the
 * same users and tokens: task refunds (limited and unlimited token, one onto a token no charge or allotment made),
 * top-ups, redeemed codes, an inviter reward moved to the quota, admin edits that lower and raise a balance.
 */
export function refundsAndCredits(): RecordedEvent[] {
  const b = new LedgerBuilder('refunds');
  const refund = (userId: number, amount: number, tokenId: number, tokenUnlimited: boolean) =>
    b.append(accountStream(userId), 'QuotaRefunded', {
      amount,
      tokenId,
      tokenUnlimited,
      reason: 'upstream failed',
      taskId: `task-${b.head}`,
      upstreamTaskId: `up-${b.head}`,
      platform: b.head % 2 ? 'midjourney' : 'suno',
      username: `user${userId}`,
    });
  const topUp = (userId: number, amount: number) =>
    b.append(accountStream(userId), 'QuotaToppedUp', { amount, tradeNo: `T${b.head}`, money: amount / 500, paymentMethod: 'alipay' });
  const redeem = (userId: number, amount: number) =>
    b.append(accountStream(userId), 'QuotaRedeemed', { amount, redemptionId: 70 + b.head });
  return [
    b.grant(1, 3000),
    b.allot(101, 1, 800),
    b.charge(1, { quota: 700 }),
    refund(1, 300, 101, false),
    b.charge(1, { quota: 1900, tokenUnlimited: true }),
    refund(1, 900, 101, true),
    b.grant(2, 1200),
    b.charge(2, { quota: 1150, tokenId: 102 }),
    refund(2, 150, 102, false),
    refund(2, 40, 555, false),
    topUp(2, 5000),
    b.charge(2, { quota: 4000, tokenId: 102 }),
    redeem(1, 250),
    b.inviterReward(1, 120),
    b.affiliateTransfer(1, 120),
    b.charge(1, { quota: 1400, tokenId: 101 }),
    b.adminSet(1, 1690, 20),
    b.charge(1, { quota: 30, tokenId: 101 }),
    b.adminSet(2, 1200, 9000),
    b.charge(2, { quota: 8500, tokenId: 0 }),
    refund(2, 8500, 0, false),
  ];
}
