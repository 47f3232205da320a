import { asReplayed, describeBulkEquivalence } from '../../../test/bulk-equivalence';
import { handWrittenLedger, LedgerBuilder } from '../../../test/mixed-ledger';
import { streamKey } from '#server/ledger/streams';
import { QUOTA_CONSUMED } from '#server/modules/accounts/quota-consumed.event';
import type { Notification, PoolClient } from 'pg';
import { BulkLoad } from '../../runner/bulk-load';
import { CHANNEL_STATUS_NOTIFY_CHANNEL } from './channel-status-notify';
import { channelUsageOf } from './channel-status-fold';
import { ChannelStatusProjection } from './channel-status.projection';

const projection = new ChannelStatusProjection();

describeBulkEquivalence(projection, ['channel_status'], (context) => {
  interface Row {
    channel_id: number;
    status: number;
    response_time: number;
    used_quota: string;
    status_reason: string | null;
    position: string;
  }
  const rows = (): Promise<Row[]> =>
    context.bulk.query(
      'SELECT channel_id, status, response_time, used_quota, status_reason, position FROM channel_status ORDER BY channel_id',
    );

  it('folds the hand-written ledger: every charge with a channel counted once, the status events in their place', async () => {
    const { prefix, batch } = handWrittenLedger();
    const events = asReplayed([...prefix, ...batch]);
    const load = await BulkLoad.start(context.bulk, projection, 0);
    await load.feed(events);
    await load.finish(events[events.length - 1].position);
    const folded = await rows();
    // All distinct charges (10+20+11+21+31+12+13+22+41+14+23+32+42+43+15 = 350) but the one without a channel (22).
    expect(folded.reduce((sum, row) => sum + Number(row.used_quota), 0)).toBe(328);
    expect(folded.find((row) => row.channel_id === 1)).toMatchObject({ status: 3, status_reason: 'down' });
    expect(folded.find((row) => row.channel_id === 2)).toMatchObject({ status: 1, response_time: 120 });
    // Each row's position is its channel's last event (channel 1: the last charge on it, after its status change).
    const last = new Map<number, number>();
    for (const event of events) {
      if (event.streamId.startsWith('channel-')) last.set(streamKey(event.streamId), event.position);
      else if (event.type === QUOTA_CONSUMED) {
        const usage = channelUsageOf(event);
        if (usage) last.set(usage.channelId, event.position);
      }
    }
    expect(folded.map((row) => [row.channel_id, Number(row.position)])).toEqual([...last].sort((a, b) => a[0] - b[0]));
  });

  it('given charges on a channel before its first event and a status event on a channel never charged, then both get rows', async () => {
    const b = new LedgerBuilder('first');
    await context.expectSameRows([
      b.charge(1, { channelId: 7, quota: 5 }),
      b.charge(2, { channelId: 7, quota: 6 }),
      b.channel(7, 'ChannelBalanceUpdated', { balance: 2.25 }),
      b.channel(9, 'ChannelAutoDisabled', { reasonCode: 'x', message: 'gone', evidence: {} }),
      b.charge(1, { channelId: 7, quota: 1 }),
    ]);
    expect((await rows()).map((row) => [row.channel_id, Number(row.used_quota), row.status])).toEqual([
      [7, 12, 1],
      [9, 0, 3],
    ]);
  });

  it('given status changes on two channels, then routers are told once, when the load commits', async () => {
    const runner = context.bulk.createQueryRunner();
    const listener = (await runner.connect()) as PoolClient;
    const heard: Notification[] = [];
    listener.on('notification', (notification) => heard.push(notification));
    try {
      await listener.query(`LISTEN ${CHANNEL_STATUS_NOTIFY_CHANNEL}`);
      const b = new LedgerBuilder('notify');
      const events = [
        b.charge(1, { channelId: 5, quota: 3 }),
        b.channel(5, 'ChannelTested', { ok: true, responseTimeMs: 80, model: 'm', error: null }),
        b.channel(5, 'ChannelAutoDisabled', { reasonCode: 'x', message: 'down', evidence: {} }),
        b.channel(6, 'ChannelDisabled', { previousStatus: 1 }),
        b.channel(5, 'ChannelAutoEnabled', { reasonCode: 'y', message: 'up', evidence: {} }),
      ];
      const load = await BulkLoad.start(context.bulk, projection, 0);
      await load.feed(events);
      await listener.query('SELECT 1');
      expect(heard).toEqual([]);
      await load.finish(events[events.length - 1].position);
      await waitFor(() => heard.length > 0);
      await listener.query('SELECT 1');
      expect(heard.map((notification) => [notification.channel, notification.payload])).toEqual([[CHANNEL_STATUS_NOTIFY_CHANNEL, '5']]);
    } finally {
      await listener.query(`UNLISTEN ${CHANNEL_STATUS_NOTIFY_CHANNEL}`).catch(() => undefined);
      await runner.release();
    }
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  for (const started = Date.now(); !condition(); ) {
    if (Date.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
