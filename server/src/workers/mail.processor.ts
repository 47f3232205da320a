import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import { type Job, UnrecoverableError } from 'bullmq';
import { MAIL_QUEUE, type MailJobData } from '../modules/mail/mail.constants';
import { MailSender } from '../modules/mail/mail-sender';

/** SMTP 5xx replies are permanent (unknown mailbox, rejected sender, bad credentials): retrying cannot help. */
function isPermanent(error: unknown): boolean {
  const code = (error as { responseCode?: unknown })?.responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
}

/** Delivers queued mail (worker role). Transient failures are retried by BullMQ with exponential backoff. */
@Processor(MAIL_QUEUE, { concurrency: 2 })
export class MailProcessor extends WorkerHost {
  private readonly logger = new Logger(MailProcessor.name);

  constructor(private readonly sender: MailSender) {
    super();
  }

  async process(job: Job<MailJobData>): Promise<void> {
    try {
      await this.sender.send(job.data);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (isPermanent(error)) throw new UnrecoverableError(message);
      throw error;
    }
  }

  @OnWorkerEvent('failed')
  onFailed(job: Job<MailJobData> | undefined, error: Error): void {
    if (!job) return;
    const final = error instanceof UnrecoverableError || job.attemptsMade >= (job.opts.attempts ?? 1);
    const line = `mail job ${job.id} to ${job.data.to} failed (attempt ${job.attemptsMade}): ${error.message}`;
    if (final) this.logger.error(`${line}; left in the failed set`);
    else this.logger.warn(`${line}; will retry`);
  }
}
