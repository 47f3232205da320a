import { BullModule } from '@nestjs/bullmq';
import { Global, Module } from '@nestjs/common';
import { MAIL_QUEUE } from './mail.constants';
import { MailSender } from './mail-sender';
import { MailService } from './mail.service';

/**
 * Outgoing mail: MailService (producer, every role) and MailSender (used by the worker's MailProcessor).
 * Global because mail is needed by several features (identity, channel monitoring, quota reminders).
 */
@Global()
@Module({
  imports: [BullModule.registerQueue({ name: MAIL_QUEUE })],
  providers: [MailService, MailSender],
  exports: [MailService, MailSender, BullModule],
})
export class MailModule {}
