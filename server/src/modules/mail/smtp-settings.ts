import type { OptionsService } from '../options/options.service';

/** The SMTP* options as the mail sender needs them. */
export interface SmtpSettings {
  server: string;
  port: string;
  account: string;
  token: string;
  from: string;
  sslEnabled: boolean;
  systemName: string;
}

export function readSmtpSettings(options: OptionsService): SmtpSettings {
  return {
    server: options.get('SMTPServer'),
    port: options.get('SMTPPort'),
    account: options.get('SMTPAccount'),
    token: options.get('SMTPToken'),
    from: options.get('SMTPFrom'),
    sslEnabled: options.getBool('SMTPSSLEnabled'),
    systemName: options.get('SystemName'),
  };
}

/** A server and a sender address are both needed; without them nothing can be sent. */
export function isSmtpConfigured(settings: SmtpSettings): boolean {
  return settings.server.trim() !== '' && senderAddress(settings) !== '';
}

/** SMTPFrom, falling back to SMTPAccount (new-api's compatibility rule). */
export function senderAddress(settings: SmtpSettings): string {
  return (settings.from || settings.account).trim();
}

export interface SmtpTransportOptions {
  host: string;
  port: number;
  secure: boolean;
  auth?: { user: string; pass: string };
  connectionTimeout: number;
  greetingTimeout: number;
  socketTimeout: number;
}

/**
 * nodemailer options: port 465 or SMTPSSLEnabled means implicit TLS; otherwise plain SMTP upgraded with
 * STARTTLS when the server offers it. Credentials only when an account is set. Timeouts are short because a
 * failed attempt is retried by the queue, not by waiting.
 */
export function smtpTransportOptions(settings: SmtpSettings): SmtpTransportOptions {
  const parsed = Number.parseInt(settings.port, 10);
  const port = Number.isInteger(parsed) && parsed > 0 && parsed < 65536 ? parsed : 587;
  return {
    host: settings.server.trim(),
    port,
    secure: port === 465 || settings.sslEnabled,
    ...(settings.account ? { auth: { user: settings.account, pass: settings.token } } : {}),
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  };
}
