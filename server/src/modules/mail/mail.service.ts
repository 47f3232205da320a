import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { DomainError } from '../../common/http/errors';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { OptionsService } from '../options/options.service';
import { MAIL_QUEUE, type MailJobData } from './mail.constants';
import { isSmtpConfigured, readSmtpSettings } from './smtp-settings';

export class SmtpNotConfiguredError extends DomainError {
  constructor() {
    super('SMTP 服务器未配置', 'smtp_not_configured');
  }
}

/**
 * Queues mail for the worker. Delivery is retried with exponential backoff; a message that fails every
 * attempt stays in the queue's failed set, where an operator can see and retry it.
 */
@Injectable()
export class MailService {
  /** The queue's Redis connection once BullMQ has it (its status tells whether an add would go out now). */
  private client: { readonly status: string } | null = null;

  constructor(
    @InjectQueue(MAIL_QUEUE) private readonly queue: Queue<MailJobData>,
    private readonly options: OptionsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    Promise.resolve(queue.getBackend().connection.client).then(
      (client) => (this.client = client),
      () => undefined,
    );
  }

  /**
   * Whether the mail queue's Redis connection is up now. While it is not, an add waits for Redis however long it is
   * away (BullMQ's connections keep commands until Redis is back), so a background sender checks this first.
   */
  get queueReachable(): boolean {
    return this.client?.status === 'ready';
  }

  /** Answered at request time, before anything is queued or any code is issued. */
  assertConfigured(): void {
    if (!isSmtpConfigured(readSmtpSettings(this.options))) throw new SmtpNotConfiguredError();
  }

  /**
   * `jobId` makes the enqueue idempotent while the job is kept (BullMQ ignores an add whose id it already holds),
   * for mail derived from something that may be handled twice (a ledger event).
   */
  async enqueue(message: MailJobData, options: { jobId?: string } = {}): Promise<string> {
    this.assertConfigured();
    const job = await this.queue.add('send', message, {
      jobId: options.jobId,
      attempts: this.config.MAIL_ATTEMPTS,
      backoff: { type: 'exponential', delay: this.config.MAIL_BACKOFF_MS },
      // Sent mail holds live codes: keep it briefly for diagnosis only. Failed mail is kept until handled.
      removeOnComplete: { age: 3600, count: 1000 },
      removeOnFail: false,
    });
    return job.id ?? '';
  }
}
