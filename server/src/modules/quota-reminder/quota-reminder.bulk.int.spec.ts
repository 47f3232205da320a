import type { DataSource } from 'typeorm';
import { accountStream } from '#server/ledger/streams';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { asReplayed, describeBulkEquivalence } from '../../../../projections/test/bulk-equivalence';
import { refundsAndCredits, replayBoth } from '../../../../projections/test/bulk-cases';
import { BASE_TIME, consumed, handWrittenLedger, LedgerBuilder } from '../../../../projections/test/mixed-ledger';
import type { OptionsService } from '../options/options.service';
import { QuotaReminderProjection } from './quota-reminder.projection';

const THRESHOLD = 1000;
/** The projection's clock: the ledgers' events are at most an hour old, fresh enough to mail, but for a stale one. */
const NOW = (BASE_TIME + 3600) * 1000;
const options = { getNumber: (key: string) => (key === 'QuotaRemindThreshold' ? THRESHOLD : 0) } as unknown as OptionsService;
// apply() and bulkFold() never use the mailer (afterCommit does).
const projection = new QuotaReminderProjection(options, null as never, () => NOW);

/** The balances (rebuilt) and the reminder's memory (never truncated by a rebuild), compared without wall clocks. */
const ALL_TABLES = ['quota_reminder_balances', 'quota_reminders', 'quota_reminder_mails', 'quota_reminder_cursor'];
const WALL_CLOCK = { ignoreColumns: ['updated_at', 'created_at'] };

/**
 * Users 1–4 under the threshold of 1000, crossing it and zero, re-armed by an admin edit and a top-up: 1 and 2 have
 * an email, 3 has none, 4 is deleted; one charge is two days old when decided (recorded, never mailed).
 */
function reminderLedger(): RecordedEvent[] {
  const b = new LedgerBuilder('reminder');
  const stale = (userId: number, quota: number) =>
    b.append(accountStream(userId), 'QuotaConsumed', consumed(userId, b.head, { quota }), -2 * 86_400);
  const topUp = (userId: number, amount: number) =>
    b.append(accountStream(userId), 'QuotaToppedUp', { amount, tradeNo: `T${b.head}`, money: 1, paymentMethod: 'stripe' });
  return [
    b.grant(1, 1500),
    b.grant(2, 1500),
    b.grant(3, 1500),
    b.grant(4, 1500),
    b.charge(1, { quota: 400 }),
    b.charge(1, { quota: 200 }), // 6: user 1 low
    b.charge(2, { quota: 600 }), // 7: user 2 low
    b.charge(3, { quota: 600 }), // 8: user 3 low, no email
    b.charge(4, { quota: 600 }), // 9: user 4 low, deleted
    b.adminSet(1, 900, 5000), // 10: user 1 ok again
    b.charge(1, { quota: 4200 }), // 11: user 1 low
    stale(2, 1000), // 12: user 2 exhausted, too old to mail
    b.charge(2, { quota: 10 }), // 13: still exhausted
    topUp(2, 3000), // 14: user 2 ok again
    b.charge(1, { quota: 900 }), // 15: user 1 exhausted
    b.charge(2, { quota: 2000 }), // 16: user 2 low
    b.charge(3, { quota: 1000 }), // 17: user 3 exhausted, no email
  ];
}

describeBulkEquivalence(projection, ['quota_reminder_balances'], (context) => {
  const both = (sql: string, parameters?: unknown[]) =>
    Promise.all([context.perEvent, context.bulk].map((dataSource: DataSource) => dataSource.query(sql, parameters)));
  const bulk = (sql: string) => context.bulk.query(sql) as Promise<Array<Record<string, unknown>>>;

  /** The reminder's memory as a rebuild finds it: users 1–4, the zones and mails given, the cursor at `cursor`. */
  const memory = async (cursor: number, zones: Array<[number, number, number]> = [], mails: Array<[string, number]> = []) => {
    for (const [id, email, deleted] of [
      [1, 'one@example.com', null],
      [2, 'two@example.com', null],
      [3, '', null],
      [4, 'four@example.com', new Date(BASE_TIME * 1000)],
    ] as const) {
      await both(
        `INSERT INTO users (id, username, password, email, deleted_at) VALUES ($1, $2, 'x', $3, $4)
         ON CONFLICT (id) DO UPDATE SET email = EXCLUDED.email, deleted_at = EXCLUDED.deleted_at`,
        [id, `remind${id}`, email, deleted],
      );
    }
    await both('TRUNCATE quota_reminders, quota_reminder_mails, quota_reminder_cursor');
    await both('INSERT INTO quota_reminder_cursor (id, position) VALUES (1, $1)', [cursor]);
    for (const [userId, zone, position] of zones) {
      await both('INSERT INTO quota_reminders (user_id, zone, position) VALUES ($1, $2, $3)', [userId, zone, position]);
    }
    for (const [eventId, userId] of mails) {
      await both(`INSERT INTO quota_reminder_mails (event_id, user_id, kind, quota, email) VALUES ($1, $2, 'low', 900, 'x@example.com')`, [
        eventId,
        userId,
      ]);
    }
  };

  it('given a cursor past the ledger (the projector had caught up), then the rebuild folds the balances and decides nothing: zones, outbox and cursor untouched', async () => {
    await memory(
      1_000_000,
      [
        [1, 1, 11],
        [2, 1, 16],
      ],
      [['earlier-mail', 1]],
    );
    const comparison = await replayBoth(projection, context, reminderLedger(), ALL_TABLES, WALL_CLOCK);
    expect(comparison.summary).toMatch(/^equal/);
    expect(await bulk('SELECT user_id, quota FROM quota_reminder_balances ORDER BY user_id')).toEqual([
      { user_id: 1, quota: '-100' },
      { user_id: 2, quota: '890' },
      { user_id: 3, quota: '-100' },
      { user_id: 4, quota: '900' },
    ]);
    expect(await bulk('SELECT user_id, zone, position FROM quota_reminders ORDER BY user_id')).toEqual([
      { user_id: 1, zone: 1, position: '11' },
      { user_id: 2, zone: 1, position: '16' },
    ]);
    expect(await bulk('SELECT event_id FROM quota_reminder_mails')).toEqual([{ event_id: 'earlier-mail' }]);
    expect(await bulk('SELECT position FROM quota_reminder_cursor')).toEqual([{ position: '1000000' }]);
  });

  it('given a cursor in the middle, then the events past it are decided as apply decides them: zones, fresh crossings of users with an email, the cursor moved', async () => {
    const events = reminderLedger();
    await memory(
      8,
      [
        [1, 1, 6],
        [2, 1, 7],
        [3, 1, 8],
      ],
      [
        [events[5].id, 1],
        [events[6].id, 2],
      ],
    );
    const comparison = await replayBoth(projection, context, events, ALL_TABLES, { ...WALL_CLOCK, pageSize: 3 });
    expect(comparison.summary).toMatch(/^equal/);
    const mails = await bulk('SELECT event_id, user_id, kind, quota, email FROM quota_reminder_mails');
    const decided = mails.filter((mail) => !events.slice(0, 8).some((event) => event.id === mail.event_id));
    const at = (position: number) => events[position - 1].id;
    expect(decided.sort((a, b) => Number(a.quota) - Number(b.quota))).toEqual([
      { event_id: at(15), user_id: 1, kind: 'exhausted', quota: '-100', email: 'one@example.com' },
      { event_id: at(11), user_id: 1, kind: 'low', quota: '800', email: 'one@example.com' },
      { event_id: at(16), user_id: 2, kind: 'low', quota: '890', email: 'two@example.com' },
    ]);
    expect(await bulk('SELECT user_id, zone, position FROM quota_reminders ORDER BY user_id')).toEqual([
      { user_id: 1, zone: 0, position: '15' },
      { user_id: 2, zone: 1, position: '16' },
      { user_id: 3, zone: 0, position: '17' },
      { user_id: 4, zone: 1, position: '9' },
    ]);
    expect(await bulk('SELECT position FROM quota_reminder_cursor')).toEqual([{ position: '17' }]);
  });

  it('given refunds, top-ups, codes and admin edits between charges, then the bulk rows and decisions equal apply', async () => {
    await memory(0);
    const comparison = await replayBoth(projection, context, refundsAndCredits(), ALL_TABLES, WALL_CLOCK);
    expect(comparison.summary).toMatch(/^equal/);
    expect(await bulk('SELECT user_id, quota FROM quota_reminder_balances ORDER BY user_id')).toEqual([
      { user_id: 1, quota: '-10' },
      { user_id: 2, quota: '9000' },
    ]);
  });

  it('given a cursor at 0, then the hand-written mixed ledger is decided event by event as apply decides it', async () => {
    await memory(0);
    const { prefix, batch } = handWrittenLedger();
    const comparison = await replayBoth(projection, context, asReplayed([...prefix, ...batch]), ALL_TABLES, {
      ...WALL_CLOCK,
      pageSize: 3,
    });
    expect(comparison.summary).toMatch(/^equal/);
    expect((await bulk('SELECT count(*)::int AS count FROM quota_reminders'))[0].count).toBeGreaterThan(0);
  });

  it('given no cursor row, then the fold decides every event as apply does and creates none', async () => {
    await memory(0);
    await both('DELETE FROM quota_reminder_cursor');
    const comparison = await replayBoth(projection, context, reminderLedger(), ALL_TABLES, WALL_CLOCK);
    expect(comparison.summary).toMatch(/^equal/);
    expect(await bulk('SELECT count(*)::int AS count FROM quota_reminder_mails')).toEqual([{ count: 5 }]);
    expect(await bulk('SELECT * FROM quota_reminder_cursor')).toEqual([]);
    await both('INSERT INTO quota_reminder_cursor (id, position) VALUES (1, 0)');
  });
});
