import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import type OpenAI from 'openai';
import { rebuildProjectionsIn } from '#server/cli/rebuild-projections';
import { MAIL_QUEUE } from '#server/modules/mail/mail.constants';
import { MailService } from '#server/modules/mail/mail.service';
import { QuotaReminderMailer } from '#server/modules/quota-reminder/quota-reminder-mailer';
import { type CapturedMail, SmtpFake } from '../fakes/smtp-fake';
import { OpenAIUpstreamFake } from '../fakes/upstreams/openai-upstream-fake';
import { createTestApp, type TestApp } from '../support/app';
import { requestCode, smtpOptions } from './auth-support';
import { createChannel, listen, sdk, userWithToken } from './relay-support';
import { balanceRow, call, type Caller, dataSource, projected, rootCaller, setOptions } from './users-support';

jest.setTimeout(120_000);

const LOW = '您的额度即将用尽';
const EXHAUSTED = '您的额度已用尽';

/**
 * The low-quota reminder (QuotaRemindThreshold, new-api's "您的额度即将用尽" / "您的额度已用尽" mail): real relay
 * charges against a fake upstream, the projector deciding the crossings, the mail queue delivering to a real SMTP
 * server. Once per crossing, re-armed only by going back above the threshold, never twice on a replay.
 */
describe('low-quota reminder mail', () => {
  let target: TestApp;
  let smtp: SmtpFake;
  let root: Caller;
  let baseURL: string;
  let queue: Queue;
  const upstream = new OpenAIUpstreamFake();

  beforeAll(async () => {
    smtp = await SmtpFake.start();
    await upstream.start();
    target = await createTestApp({ env: { MAIL_BACKOFF_MS: '50' } });
    await setOptions(target, {
      ...smtpOptions(smtp),
      EmailDomainRestrictionEnabled: 'false',
      ServerAddress: 'https://gate.example.com',
      QuotaRemindThreshold: '1000',
    });
    baseURL = await listen(target);
    root = await rootCaller(target);
    queue = target.app.get(getQueueToken(MAIL_QUEUE));
    await createChannel(target, root, { type: 1, name: 'remind', baseUrl: upstream.baseUrl, models: ['gpt-3.5-turbo'] });
  });
  afterAll(async () => {
    await target?.close();
    await upstream.close();
    await smtp.close();
  });
  beforeEach(() => {
    upstream.promptTokens = 12;
    upstream.completionTokens = 100;
  });

  /** A user holding `quota`, with a token and an email bound through the mailed verification code. */
  async function userWithEmail(username: string, quota: number, email: string | null) {
    const user = await userWithToken(target, username, quota);
    if (email) {
      const browser = target.http();
      await browser.post('/api/user/login').send({ username, password: 'password123' }).expect(200);
      const code = await requestCode(browser, smtp, email);
      const bound = await browser.get('/api/oauth/email/bind').query({ email, code }).set('New-Api-User', String(user.id));
      expect(bound.body).toEqual({ success: true, message: '' });
    }
    return { ...user, client: sdk(baseURL, user.key), email };
  }

  const chat = (client: OpenAI) => client.chat.completions.create({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] });

  /**
   * Every charge in the ledger and projected, the outbox queued (the projector does it right after the commit, which
   * the checkpoint waiter may see first) and the mail queue idle.
   */
  async function settled(): Promise<void> {
    await projected(target);
    for (const deadline = Date.now() + 15_000; ; ) {
      const [{ pending }] = await dataSource(target).query(
        `SELECT count(*)::int AS pending FROM quota_reminder_mails WHERE status = 'pending'`,
      );
      const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
      if (pending === 0 && Object.values(counts).every((count) => count === 0)) return;
      if (Date.now() > deadline) throw new Error(`reminders still pending (${pending}) or mail queue busy: ${JSON.stringify(counts)}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  const reminders = (email: string): CapturedMail[] =>
    smtp.messages.filter((message) => message.to.includes(email) && [LOW, EXHAUSTED].includes(message.subject));
  const quotaOf = async (userId: number) => (await balanceRow(target, userId))?.quota ?? NaN;

  async function adminSetQuota(userId: number, quota: number): Promise<void> {
    const form = (await call(target, root, 'get', `/api/user/${userId}`).expect(200)).body.data;
    const response = await call(target, root, 'put', '/api/user/', { ...form, password: '', quota }).expect(200);
    expect(response.body).toEqual({ success: true, message: '' });
  }

  it('mails once when a charge crosses below the threshold, with the balance and the top-up link, and not on the next charge', async () => {
    const alice = await userWithEmail('remind-alice', 1_050, 'alice.remind@gmail.com');
    await chat(alice.client);
    await settled();
    const afterFirst = await quotaOf(alice.id);
    expect(afterFirst).toBeLessThan(1000);
    const [mail, ...more] = reminders('alice.remind@gmail.com');
    expect(more).toEqual([]);
    expect(mail.subject).toBe(LOW);
    expect(mail.body).toContain(`${LOW}，当前剩余额度为 ${afterFirst}，为了不影响您的使用，请及时充值。`);
    expect(mail.body).toContain("充值链接：<a href='https://gate.example.com/topup'>https://gate.example.com/topup</a>");

    await chat(alice.client);
    await chat(alice.client);
    await settled();
    expect(await quotaOf(alice.id)).toBeLessThan(afterFirst);
    expect(reminders('alice.remind@gmail.com')).toHaveLength(1);
  });

  it('mails "已用尽" once when a charge takes the balance to 0 or below, even straight from above the threshold', async () => {
    const bob = await userWithEmail('remind-bob', 5_000, 'bob.remind@gmail.com');
    upstream.completionTokens = 10_000; // (12 + 10000 × 3) × 0.25 ≈ 7503: far more than the balance
    await chat(bob.client);
    await settled();
    expect(await quotaOf(bob.id)).toBeLessThanOrEqual(0);
    expect(reminders('bob.remind@gmail.com').map((mail) => mail.subject)).toEqual([EXHAUSTED]);
    // Spent: the relay refuses the next request, so nothing more is charged or mailed.
    await expect(chat(bob.client)).rejects.toThrow();
    await settled();
    expect(reminders('bob.remind@gmail.com')).toHaveLength(1);
  });

  it('re-arms only once the balance is back above the threshold (redemption, admin edit), then mails on the next crossing', async () => {
    const carol = await userWithEmail('remind-carol', 1_050, 'carol.remind@gmail.com');
    await chat(carol.client);
    await settled();
    expect(reminders('carol.remind@gmail.com')).toHaveLength(1);

    // An admin edit that stays below the threshold does not re-arm.
    await adminSetQuota(carol.id, 900);
    await chat(carol.client);
    await settled();
    expect(reminders('carol.remind@gmail.com')).toHaveLength(1);

    // A redemption lifts the balance above the threshold: the next crossing mails again.
    const issued = await call(target, root, 'post', '/api/redemption/', { name: 'remind', quota: 2_000, count: 1 }).expect(200);
    const redeemed = await call(target, carol, 'post', '/api/user/topup', { key: issued.body.data[0] }).expect(200);
    expect(redeemed.body.success).toBe(true);
    await settled();
    expect(await quotaOf(carol.id)).toBeGreaterThanOrEqual(1000);
    upstream.completionTokens = 2_000; // ≈ 1503 per charge: from ~2800 to ~1300 (still above), then below
    await chat(carol.client);
    await settled();
    expect(reminders('carol.remind@gmail.com')).toHaveLength(1);
    await chat(carol.client);
    await settled();
    const balance = await quotaOf(carol.id);
    expect(balance).toBeLessThan(1000);
    expect(reminders('carol.remind@gmail.com').map((mail) => mail.subject)).toEqual([LOW, balance > 0 ? LOW : EXHAUSTED]);

    // An admin edit above the threshold re-arms as well.
    await adminSetQuota(carol.id, 1_100);
    upstream.completionTokens = 100;
    await chat(carol.client);
    await chat(carol.client);
    await settled();
    expect(reminders('carol.remind@gmail.com')).toHaveLength(3);
  });

  it('records the crossing of a user without an email but mails nobody', async () => {
    const dave = await userWithEmail('remind-dave', 1_050, null);
    const before = smtp.messages.length;
    await chat(dave.client);
    await settled();
    expect(smtp.messages.length).toBe(before);
    const zones = await dataSource(target).query('SELECT zone FROM quota_reminders WHERE user_id = $1', [dave.id]);
    expect(zones).toEqual([{ zone: 1 }]);
    expect(await dataSource(target).query('SELECT * FROM quota_reminder_mails WHERE user_id = $1', [dave.id])).toEqual([]);
  });

  it('does not mail again when the projections are rebuilt, and rebuilds its balances equal to the live ones', async () => {
    const sent = smtp.messages.length;
    const outbox = await dataSource(target).query('SELECT event_id, status FROM quota_reminder_mails ORDER BY event_id');
    expect(outbox.length).toBeGreaterThanOrEqual(5);
    const zones = await dataSource(target).query('SELECT user_id, zone, position FROM quota_reminders ORDER BY user_id');
    await rebuildProjectionsIn(target.app, { waitSeconds: 10 }, () => undefined);
    await settled();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(smtp.messages.length).toBe(sent);
    expect(await dataSource(target).query('SELECT event_id, status FROM quota_reminder_mails ORDER BY event_id')).toEqual(outbox);
    expect(await dataSource(target).query('SELECT user_id, zone, position FROM quota_reminders ORDER BY user_id')).toEqual(zones);
    const mismatched = await dataSource(target).query(
      `SELECT a.user_id, a.quota, r.quota AS reminder_quota FROM account_balances a
         FULL JOIN quota_reminder_balances r ON r.user_id = a.user_id WHERE a.quota IS DISTINCT FROM r.quota`,
    );
    expect(mismatched).toEqual([]);
  });

  it("keeps the projector going while the mail queue's Redis is away, and mails the crossing once it is back", async () => {
    const mail = target.app.get(MailService);
    const away = jest.spyOn(mail, 'queueReachable', 'get').mockReturnValue(false);
    try {
      const frank = await userWithEmail('remind-frank', 1_050, 'frank.remind@gmail.com');
      await chat(frank.client);
      // The batch is projected (the projector did not wait for the queue), the crossing is recorded and waits.
      await projected(target);
      expect(await quotaOf(frank.id)).toBeLessThan(1000);
      const waiting = await dataSource(target).query(`SELECT status FROM quota_reminder_mails WHERE user_id = $1`, [frank.id]);
      expect(waiting).toEqual([{ status: 'pending' }]);
      expect(await target.app.get(QuotaReminderMailer).flush()).toBeNull();
      away.mockRestore();
      // Back: the next batch's flush queues it (any balance event of anyone will do).
      await chat(frank.client);
      await settled();
      expect(reminders('frank.remind@gmail.com').map((message) => message.subject)).toEqual([LOW]);
    } finally {
      away.mockRestore();
    }
  });

  it('queues a pending reminder once when two flushes race for it', async () => {
    const erin = await userWithEmail('remind-erin', 5_000, 'erin.remind@gmail.com');
    await settled();
    await dataSource(target).query(
      `INSERT INTO quota_reminder_mails (event_id, user_id, kind, quota, email) VALUES ('race-1', $1, 'low', 900, 'erin.remind@gmail.com')`,
      [erin.id],
    );
    const mailer = target.app.get(QuotaReminderMailer);
    const queued = await Promise.all([mailer.flush(), mailer.flush(), mailer.flush()]);
    expect(queued.reduce<number>((sum, count) => sum + count!, 0)).toBe(1);
    await settled();
    expect(reminders('erin.remind@gmail.com').map((mail) => mail.subject)).toEqual([LOW]);
    expect(await mailer.flush()).toBe(0);
  });
});
