import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { AuthError } from '../auth.errors';

/** Fix of new-api, which had no freshness check: a login link is honoured for one day. */
export const TELEGRAM_AUTH_MAX_AGE_SECONDS = 24 * 3600;
/** Telegram's clock and ours may differ a little; a date further in the future than this is forged. */
const CLOCK_SKEW_SECONDS = 300;

/**
 * First value of every query parameter, as Go's `url.Values` lookups (`v[0]`) see them. Parsed from the raw
 * URL so the signed values are exactly what the widget sent.
 */
export function telegramParams(url: string): Map<string, string> {
  const query = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
  const params = new Map<string, string>();
  for (const [key, value] of new URLSearchParams(query)) {
    if (!params.has(key)) params.set(key, value);
  }
  return params;
}

/**
 * The login widget's signature (https://core.telegram.org/widgets/login#checking-authorization):
 * every parameter but `hash` as `k=v`, sorted, joined by newlines, HMAC-SHA256 keyed by SHA-256(bot token).
 */
export function telegramSignature(params: Map<string, string>, botToken: string): string {
  const data = [...params]
    .filter(([key]) => key !== 'hash')
    .map(([key, value]) => `${key}=${value}`)
    .sort()
    .join('\n');
  const secret = createHash('sha256').update(botToken).digest();
  return createHmac('sha256', secret).update(data).digest('hex');
}

/** Verifies the signature and the age of a widget callback; returns the Telegram user id. */
export function verifyTelegramLogin(params: Map<string, string>, botToken: string, nowSeconds: number): string {
  const hash = params.get('hash') ?? '';
  const expected = telegramSignature(params, botToken);
  const matches = hash.length === expected.length && timingSafeEqual(Buffer.from(hash), Buffer.from(expected));
  const id = params.get('id') ?? '';
  // An empty bot token would make anyone able to sign; new-api accepted that, we do not.
  if (!botToken || !matches || !/^\d{1,20}$/.test(id)) throw new AuthError('telegram_invalid');
  const authDate = Number(params.get('auth_date'));
  if (!Number.isInteger(authDate)) throw new AuthError('telegram_invalid');
  if (nowSeconds - authDate > TELEGRAM_AUTH_MAX_AGE_SECONDS || authDate - nowSeconds > CLOCK_SKEW_SECONDS) {
    throw new AuthError('telegram_expired');
  }
  return id;
}
