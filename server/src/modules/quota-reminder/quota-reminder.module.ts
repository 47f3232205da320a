import { Module } from '@nestjs/common';
import { MailModule } from '../mail/mail.module';
import { QuotaReminderMailer } from './quota-reminder-mailer';
import { QuotaReminderProjection } from './quota-reminder.projection';

/**
 * The low-quota reminder mail (QuotaRemindThreshold): a projection over the account streams decides the crossings
 * (the projector role), and its after-commit hook queues the mails on the mail queue (sent by the worker role).
 */
@Module({
  imports: [MailModule],
  providers: [QuotaReminderProjection, QuotaReminderMailer],
})
export class QuotaReminderModule {}
