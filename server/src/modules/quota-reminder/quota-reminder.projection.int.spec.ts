import { DataSource } from 'typeorm';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { createTestApp, type TestApp } from '#test/support/app';
import { seedUser } from '#test/support/users';
import { OptionsService } from '../options/options.service';
import { QuotaReminderMailer } from './quota-reminder-mailer';
import { QuotaReminderProjection } from './quota-reminder.projection';
import { REMINDER_MAX_AGE_MS } from './quota-reminder';

/**
 * The projection's bookkeeping against Postgres, events handed in directly (an api-only app: no projector runs, so
 * nothing else moves the tables): the balance fold, the cursor that keeps a replay from deciding twice, the
 * revision guard, and the age limit of a crossing worth a mail.
 */
describe('quota-reminder projection', () => {
  let target: TestApp;
  let db: DataSource;
  let projection: QuotaReminderProjection;
  const clock = Date.now();
  let position = 1_000_000;
  const revisions = new Map<number, number>();

  beforeAll(async () => {
    target = await createTestApp({ roles: ['api'] });
    db = target.app.get(DataSource);
    await target.app.get(OptionsService).save({ QuotaRemindThreshold: '1000' });
    projection = new QuotaReminderProjection(target.app.get(OptionsService), target.app.get(QuotaReminderMailer), () => clock);
  });
  afterAll(async () => {
    await target?.close();
  });

  const event = (userId: number, type: string, data: Record<string, unknown>, createdAt = new Date(clock)): RecordedEvent => {
    const revision = (revisions.get(userId) ?? -1) + 1;
    revisions.set(userId, revision);
    position += 1;
    return { id: `e-${position}`, streamId: `account-${userId}`, revision, position, type, data, metadata: {} as never, createdAt };
  };
  const grant = (userId: number, amount: number) => event(userId, 'QuotaGranted', { amount, kind: 'new_user', username: 'u' });
  const charge = (userId: number, quota: number, createdAt?: Date) => event(userId, 'QuotaConsumed', { quota }, createdAt);
  const apply = (events: RecordedEvent[]) => db.transaction((manager) => projection.applyBatch(events, manager));
  const mails = (userId: number) =>
    db.query('SELECT kind, quota, status FROM quota_reminder_mails WHERE user_id = $1 ORDER BY quota DESC', [userId]) as Promise<
      Array<{ kind: string; quota: string; status: string }>
    >;
  const balance = async (userId: number) =>
    Number((await db.query('SELECT quota FROM quota_reminder_balances WHERE user_id = $1', [userId]))[0]?.quota);
  const user = async (name: string, email = `${name}@example.com`) => {
    const seeded = await seedUser(db, { username: name });
    await db.query('UPDATE users SET email = $2 WHERE id = $1', [seeded.id, email]);
    return seeded.id;
  };

  it('folds the balance and records one crossing per zone within a batch', async () => {
    const id = await user('fold');
    await apply([grant(id, 1500), charge(id, 400), charge(id, 200), charge(id, 100), charge(id, 850)]);
    expect(await balance(id)).toBe(-50);
    expect(await mails(id)).toEqual([
      { kind: 'low', quota: '900', status: 'pending' },
      { kind: 'exhausted', quota: '-50', status: 'pending' },
    ]);
  });

  it('decides nothing again for events at or below the cursor (a rebuild replaying them), but folds their balances', async () => {
    const id = await user('replay');
    const events = [grant(id, 1200), charge(id, 300)];
    await apply(events);
    expect(await mails(id)).toHaveLength(1);
    // A rebuild empties the balances and hands the same events over again.
    await db.query('DELETE FROM quota_reminder_balances WHERE user_id = $1', [id]);
    await db.query(`DELETE FROM quota_reminder_mails WHERE user_id = $1`, [id]);
    await apply(events);
    expect(await balance(id)).toBe(900);
    expect(await mails(id)).toEqual([]);
  });

  it('folds an event handed over twice once (revision guard)', async () => {
    const id = await user('twice');
    const first = grant(id, 5000);
    const second = charge(id, 10);
    await apply([first, second]);
    await apply([second]);
    expect(await balance(id)).toBe(4990);
  });

  it('records but does not mail a crossing older than a day when the projector reaches it', async () => {
    const id = await user('stale');
    await apply([grant(id, 2000)]);
    await apply([charge(id, 1500, new Date(clock - REMINDER_MAX_AGE_MS - 60_000))]);
    expect(await mails(id)).toEqual([]);
    expect(await db.query('SELECT zone FROM quota_reminders WHERE user_id = $1', [id])).toEqual([{ zone: 1 }]);
    // Recorded as low: the next charge in the same zone is no crossing either.
    await apply([charge(id, 100)]);
    expect(await mails(id)).toEqual([]);
  });

  it('leaves users without an email out of the outbox', async () => {
    const id = await user('nomail', '');
    await apply([grant(id, 1100), charge(id, 500)]);
    expect(await mails(id)).toEqual([]);
  });

  it('marks the outbox skipped, not queued, while SMTP is not configured', async () => {
    const id = await user('nosmtp');
    await apply([grant(id, 1100), charge(id, 500)]);
    await target.app.get(QuotaReminderMailer).flush();
    expect((await mails(id)).map((mail) => mail.status)).toEqual(['skipped']);
  });
});
