/** The BullMQ queue every outgoing mail goes through (consumed by workers/mail.processor.ts). */
export const MAIL_QUEUE = 'mail';

/** A job carries the message only; SMTP settings (and the password) are read by the worker at send time. */
export interface MailJobData {
  to: string;
  subject: string;
  html: string;
}
