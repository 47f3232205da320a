import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { MailService } from '../mail/mail.service';
import { isSmtpConfigured, readSmtpSettings } from '../mail/smtp-settings';
import { DEFAULT_SERVER_ADDRESS } from '../options/option-defaults';
import { OptionsService } from '../options/options.service';
import { reminderMail, type ReminderKind } from './quota-reminder';

interface OutboxRow {
  event_id: string;
  kind: ReminderKind;
  quota: string;
  email: string;
}

/** At most this many reminders are queued per flush; the rest wait for the next batch's. */
export const REMINDER_FLUSH_LIMIT = 200;

/** How long one reminder's add to the mail queue may take before the flush gives up (Redis gone mid-flush). */
export const REMINDER_QUEUE_WAIT_MS = 2_000;

async function withinMs<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`the mail queue did not answer within ${ms} ms (Redis unreachable?)`)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Moves the reminder outbox (`quota_reminder_mails`, filled by the projection) onto the mail queue. Rows are
 * locked while they are queued and marked in the same transaction, and each job's id is derived from its event,
 * so two flushes never queue one reminder twice; a crash before the commit leaves the rows pending, and the next
 * flush re-adds them under the same job id, which BullMQ ignores while it still holds the job.
 */
@Injectable()
export class QuotaReminderMailer {
  private readonly logger = new Logger('QuotaReminder');

  constructor(
    private readonly dataSource: DataSource,
    private readonly mail: MailService,
    private readonly options: OptionsService,
  ) {}

  /**
   * Queues (or, without SMTP, marks skipped) up to REMINDER_FLUSH_LIMIT pending reminders; resolves how many it
   * handled, or null when the mail queue's Redis is away (nothing done: the rows wait for a later flush). An add that
   * finds Redis gone mid-flush fails after REMINDER_QUEUE_WAIT_MS and the whole flush with it (the rows stay pending;
   * an add that still goes out later is ignored by the next flush's, under the same job id): the projector calls this
   * after its batches and must never wait for Redis.
   */
  async flush(): Promise<number | null> {
    if (isSmtpConfigured(readSmtpSettings(this.options)) && !this.mail.queueReachable) return null;
    return this.dataSource.transaction(async (manager) => {
      const rows: OutboxRow[] = await manager.query(
        `SELECT event_id, kind, quota, email FROM quota_reminder_mails WHERE status = 'pending'
          ORDER BY created_at, event_id LIMIT ${REMINDER_FLUSH_LIMIT} FOR UPDATE SKIP LOCKED`,
      );
      if (rows.length === 0) return 0;
      if (!isSmtpConfigured(readSmtpSettings(this.options))) {
        // new-api logged the SMTP error and went on; the crossing stays recorded, the mail is not sent later.
        this.logger.warn(`${rows.length} low-quota reminder(s) not mailed: SMTP is not configured`);
        await manager.query(`UPDATE quota_reminder_mails SET status = 'skipped' WHERE event_id = ANY($1)`, [
          rows.map((row) => row.event_id),
        ]);
        return 0;
      }
      const serverAddress = this.options.get('ServerAddress') || DEFAULT_SERVER_ADDRESS;
      for (const row of rows) {
        const message = reminderMail(row.kind, Number(row.quota), serverAddress);
        await withinMs(
          this.mail.enqueue({ to: row.email, ...message }, { jobId: `quota-reminder-${row.event_id}` }),
          REMINDER_QUEUE_WAIT_MS,
        );
      }
      await manager.query(`UPDATE quota_reminder_mails SET status = 'queued', queued_at = now() WHERE event_id = ANY($1)`, [
        rows.map((row) => row.event_id),
      ]);
      return rows.length;
    });
  }
}
