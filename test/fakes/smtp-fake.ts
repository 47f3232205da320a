import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface CapturedMail {
  /** MAIL FROM and RCPT TO of the SMTP envelope. */
  from: string;
  to: string[];
  /** The DATA exactly as received. */
  raw: string;
  /** Header names lower-cased, RFC 2047 words decoded. */
  headers: Record<string, string>;
  subject: string;
  /** The body with its transfer encoding (quoted-printable or base64) undone. */
  body: string;
  /** The credentials the client authenticated with, if any. */
  auth?: { username: string; password: string };
}

function decodeWords(value: string): string {
  return value.replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=\s*(?==\?)?/g, (_, _charset: string, encoding: string, text: string) => {
    if (encoding.toUpperCase() === 'B') return Buffer.from(text, 'base64').toString('utf8');
    const bytes = text.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (__, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  });
}

function decodeBody(body: string, encoding: string): string {
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') {
    const bytes = body
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
  return body;
}

/** Enough MIME for the single-part messages the product sends (no mail parser dependency). */
export function parseMessage(raw: string): Pick<CapturedMail, 'headers' | 'subject' | 'body'> {
  const split = raw.indexOf('\r\n\r\n');
  const head = split >= 0 ? raw.slice(0, split) : raw;
  const body = split >= 0 ? raw.slice(split + 4) : '';
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = decodeWords(line.slice(colon + 1).trim());
  }
  const encoding = (headers['content-transfer-encoding'] ?? '7bit').toLowerCase();
  return { headers, subject: headers.subject ?? '', body: decodeBody(body, encoding) };
}

/**
 * A real SMTP server (smtp-server) on a free port that keeps every message. Plain SMTP, no STARTTLS,
 * AUTH PLAIN/LOGIN accepted without TLS. `rcptReplies` scripts failures: each RCPT TO takes the next code
 * (e.g. [451, 451] fails two delivery attempts temporarily, [550] fails one permanently).
 */
export class SmtpFake {
  readonly messages: CapturedMail[] = [];
  rcptReplies: number[] = [];
  /** When set, AUTH must use these credentials (535 otherwise). */
  credentials?: { username: string; password: string };
  private readonly server: SMTPServer;
  private waiters: Array<() => void> = [];

  private constructor() {
    this.server = new SMTPServer({
      authOptional: true,
      allowInsecureAuth: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onAuth: (auth, session, callback) => {
        const username = auth.username ?? '';
        const password = auth.password ?? '';
        if (this.credentials && (username !== this.credentials.username || password !== this.credentials.password)) {
          return callback(Object.assign(new Error('Authentication failed'), { responseCode: 535 }));
        }
        callback(null, { user: { username, password } });
      },
      onRcptTo: (_address, _session, callback) => {
        const code = this.rcptReplies.shift();
        if (code)
          return callback(Object.assign(new Error(code >= 500 ? 'Mailbox unavailable' : 'Try again later'), { responseCode: code }));
        callback();
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          const envelope = session.envelope;
          this.messages.push({
            from: envelope.mailFrom ? envelope.mailFrom.address : '',
            to: envelope.rcptTo.map((address) => address.address),
            raw,
            ...parseMessage(raw),
            auth: session.user as CapturedMail['auth'],
          });
          for (const wake of this.waiters.splice(0)) wake();
          callback();
        });
      },
    });
  }

  static async start(): Promise<SmtpFake> {
    const fake = new SmtpFake();
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get port(): number {
    return (this.server.server.address() as AddressInfo).port;
  }

  /** The first message (already received or arriving within the timeout) that matches. */
  async waitFor(predicate: (mail: CapturedMail) => boolean, timeoutMs = 10_000): Promise<CapturedMail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.find(predicate);
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no matching mail within ${timeoutMs} ms (received ${this.messages.length})`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
