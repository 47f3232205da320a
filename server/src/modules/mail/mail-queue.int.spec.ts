import { getQueueToken } from '@nestjs/bullmq';
import type { Job, Queue } from 'bullmq';
import { createTestApp, type TestApp } from '#test/support/app';
import { SmtpFake } from '#test/fakes/smtp-fake';
import { OptionsService } from '../options/options.service';
import { MAIL_QUEUE, type MailJobData } from './mail.constants';
import { MailService } from './mail.service';

/** The mail queue end to end: BullMQ in Redis, the worker's MailProcessor, nodemailer, a real SMTP server. */
describe('mail queue', () => {
  let target: TestApp;
  let smtp: SmtpFake;
  let queue: Queue<MailJobData>;
  let mail: MailService;

  const smtpOptions = (fake: SmtpFake) => ({
    SMTPServer: '127.0.0.1',
    SMTPPort: String(fake.port),
    SMTPAccount: 'mailer@tollgate.test',
    SMTPToken: 'smtp-secret',
    SMTPFrom: '',
    SystemName: 'Tollgate',
  });

  async function settled(id: string, from: Queue<MailJobData> = queue, timeoutMs = 10_000): Promise<Job<MailJobData>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const job = await from.getJob(id);
      const state = job ? await job.getState() : 'missing';
      // Re-read: the job object was fetched before the state moved, so its fields may predate the outcome.
      if (job && (state === 'completed' || state === 'failed')) return (await from.getJob(id)) ?? job;
      if (Date.now() > deadline) throw new Error(`job ${id} still ${state}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  beforeAll(async () => {
    smtp = await SmtpFake.start();
    target = await createTestApp({ env: { MAIL_ATTEMPTS: '3', MAIL_BACKOFF_MS: '50' } });
    await target.app.get(OptionsService).save(smtpOptions(smtp));
    queue = target.app.get(getQueueToken(MAIL_QUEUE));
    mail = target.app.get(MailService);
  });
  afterAll(async () => {
    await target.close();
    await smtp.close();
  });
  beforeEach(() => {
    smtp.rcptReplies = [];
    smtp.credentials = { username: 'mailer@tollgate.test', password: 'smtp-secret' };
  });

  it('delivers a queued message with the system name as sender name and a UTF-8 subject', async () => {
    const id = await mail.enqueue({ to: 'reader@example.com', subject: '你好 Tollgate', html: '<p>正文 body</p>' });
    const job = await settled(id);
    expect(await job.getState()).toBe('completed');
    const received = await smtp.waitFor((message) => message.to.includes('reader@example.com'));
    expect(received.subject).toBe('你好 Tollgate');
    expect(received.headers.from).toBe('Tollgate <mailer@tollgate.test>');
    expect(received.headers['content-type']).toMatch(/text\/html/);
    expect(received.body).toContain('<p>正文 body</p>');
  });

  it('retries a temporary refusal with backoff and then delivers', async () => {
    smtp.rcptReplies = [451, 451];
    const id = await mail.enqueue({ to: 'retry@example.com', subject: 'retry', html: '<p>x</p>' });
    const job = await settled(id);
    expect(await job.getState()).toBe('completed');
    expect(job.attemptsStarted).toBe(3);
    expect(smtp.messages.filter((message) => message.to.includes('retry@example.com'))).toHaveLength(1);
  });

  it('keeps a message that failed every attempt in the failed set, with its reason', async () => {
    smtp.rcptReplies = [451, 451, 451];
    const id = await mail.enqueue({ to: 'never@example.com', subject: 'never', html: '<p>x</p>' });
    const job = await settled(id);
    expect(await job.getState()).toBe('failed');
    expect(job.attemptsStarted).toBe(3);
    expect(job.failedReason).toMatch(/451/);
    expect((await queue.getFailed()).map((failed) => failed.id)).toContain(id);
  });

  it('does not retry a permanent refusal (5xx): it goes to the failed set at once', async () => {
    smtp.rcptReplies = [550];
    const id = await mail.enqueue({ to: 'unknown@example.com', subject: 'x', html: '<p>x</p>' });
    const job = await settled(id);
    expect(await job.getState()).toBe('failed');
    expect(job.attemptsStarted).toBe(1);
    expect(job.failedReason).toMatch(/550/);
  });

  it('fails visibly on wrong SMTP credentials (535)', async () => {
    smtp.credentials = { username: 'mailer@tollgate.test', password: 'another-password' };
    const id = await mail.enqueue({ to: 'auth@example.com', subject: 'x', html: '<p>x</p>' });
    const job = await settled(id);
    expect(await job.getState()).toBe('failed');
    expect(job.failedReason).toMatch(/535|auth/i);
  });

  it('refuses to queue anything without an SMTP server or a sender address', async () => {
    const options = target.app.get(OptionsService);
    const counts = await queue.getJobCounts();
    await options.save({ SMTPServer: '' });
    await expect(mail.enqueue({ to: 'x@example.com', subject: 'x', html: 'x' })).rejects.toThrow('SMTP 服务器未配置');
    await options.save({ SMTPServer: '127.0.0.1', SMTPAccount: '', SMTPFrom: '' });
    await expect(mail.enqueue({ to: 'x@example.com', subject: 'x', html: 'x' })).rejects.toThrow('SMTP 服务器未配置');
    expect(await queue.getJobCounts()).toEqual(counts);
    await options.save(smtpOptions(smtp));
  });

  it('is consumed by a worker process: an api-only process only queues', async () => {
    const api = await createTestApp({ roles: ['api'], env: { REDIS_PREFIX: `${target.config.REDIS_PREFIX}-split` } });
    const worker = await createTestApp({ roles: ['worker'], env: { REDIS_PREFIX: `${target.config.REDIS_PREFIX}-split` } });
    try {
      for (const app of [api, worker]) await app.app.get(OptionsService).save(smtpOptions(smtp));
      const apiQueue = api.app.get<Queue<MailJobData>>(getQueueToken(MAIL_QUEUE));
      const id = await api.app.get(MailService).enqueue({ to: 'split@example.com', subject: 'split', html: '<p>x</p>' });
      const received = await smtp.waitFor((message) => message.to.includes('split@example.com'));
      expect(received.subject).toBe('split');
      expect(await (await settled(id, apiQueue)).getState()).toBe('completed');
    } finally {
      await api.close();
      await worker.close();
    }
  });
});
