import { Injectable } from '@nestjs/common';
import { createTransport } from 'nodemailer';
import { OptionsService } from '../options/options.service';
import type { MailJobData } from './mail.constants';
import { readSmtpSettings, senderAddress, smtpTransportOptions } from './smtp-settings';

/**
 * Delivers one message over SMTP with the options as they are now (an operator fixing a password is
 * picked up by the next retry). A transport per message: mail volume is small and options can change.
 */
@Injectable()
export class MailSender {
  constructor(private readonly options: OptionsService) {}

  async send(message: MailJobData): Promise<void> {
    const settings = readSmtpSettings(this.options);
    const transport = createTransport(smtpTransportOptions(settings));
    try {
      await transport.sendMail({
        from: { name: settings.systemName, address: senderAddress(settings) },
        to: message.to,
        subject: message.subject,
        html: message.html,
      });
    } finally {
      transport.close();
    }
  }
}
