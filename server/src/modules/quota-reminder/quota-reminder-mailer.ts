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

  /** Queues (or, without SMTP, marks skipped) up to REMINDER_FLUSH_LIMIT pending reminders; resolves how many it handled. */
  async flush(): Promise<number> {
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
        await this.mail.enqueue({ to: row.email, ...message }, { jobId: `quota-reminder-${row.event_id}` });
      }
      await manager.query(`UPDATE quota_reminder_mails SET status = 'queued', queued_at = now() WHERE event_id = ANY($1)`, [
        rows.map((row) => row.event_id),
      ]);
      return rows.length;
    });
  }
}
