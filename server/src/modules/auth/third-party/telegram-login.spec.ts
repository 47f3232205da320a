import { createHash, createHmac } from 'node:crypto';
import { telegramParams, telegramSignature, verifyTelegramLogin } from './telegram-login';

const BOT_TOKEN = '123456:ABC-test-token';
const NOW = 1_732_000_000;

/** Independent re-statement of Telegram's documented algorithm, to check ours against. */
function sign(fields: Record<string, string>, token = BOT_TOKEN): string {
  const data = Object.keys(fields)
    .sort()
    .map((key) => `${key}=${fields[key]}`)
    .join('\n');
  return createHmac('sha256', createHash('sha256').update(token).digest()).update(data).digest('hex');
}

function callback(fields: Record<string, string>, hash = sign(fields)): Map<string, string> {
  return telegramParams(`/api/oauth/telegram/login?${new URLSearchParams({ ...fields, hash }).toString()}`);
}

const widget = { id: '424242', first_name: 'Ada', username: 'ada_l', photo_url: 'https://t.me/i/a.jpg', auth_date: String(NOW - 60) };

describe('telegram login check', () => {
  it('accepts a correctly signed, fresh callback and returns the Telegram id', () => {
    expect(verifyTelegramLogin(callback(widget), BOT_TOKEN, NOW)).toBe('424242');
  });

  it('signs every parameter except hash, sorted by "k=v"', () => {
    const params = callback(widget);
    expect(telegramSignature(params, BOT_TOKEN)).toBe(sign(widget));
  });

  it('refuses a tampered field, a wrong hash, another bot token and a missing hash', () => {
    const tampered = callback(widget);
    tampered.set('id', '1');
    expect(() => verifyTelegramLogin(tampered, BOT_TOKEN, NOW)).toThrow('无效的请求');
    expect(() => verifyTelegramLogin(callback(widget, 'f'.repeat(64)), BOT_TOKEN, NOW)).toThrow('无效的请求');
    expect(() => verifyTelegramLogin(callback(widget, sign(widget, 'other:token')), BOT_TOKEN, NOW)).toThrow('无效的请求');
    const noHash = callback(widget);
    noHash.delete('hash');
    expect(() => verifyTelegramLogin(noHash, BOT_TOKEN, NOW)).toThrow('无效的请求');
  });

  it('refuses everything when no bot token is configured (anyone could sign with the empty key)', () => {
    const params = callback(widget, sign(widget, ''));
    expect(() => verifyTelegramLogin(params, '', NOW)).toThrow('无效的请求');
  });

  it('refuses a signed callback without an id instead of crashing (new-api panicked)', () => {
    const { id: _id, ...withoutId } = widget;
    expect(() => verifyTelegramLogin(callback(withoutId), BOT_TOKEN, NOW)).toThrow('无效的请求');
  });

  it('fix: refuses a callback older than one day, or dated in the future', () => {
    const stale = { ...widget, auth_date: String(NOW - 24 * 3600 - 1) };
    expect(() => verifyTelegramLogin(callback(stale), BOT_TOKEN, NOW)).toThrow('Telegram 登录信息已过期，请重新登录');
    const edge = { ...widget, auth_date: String(NOW - 24 * 3600) };
    expect(verifyTelegramLogin(callback(edge), BOT_TOKEN, NOW)).toBe('424242');
    const future = { ...widget, auth_date: String(NOW + 3600) };
    expect(() => verifyTelegramLogin(callback(future), BOT_TOKEN, NOW)).toThrow('Telegram 登录信息已过期');
    const garbage = { ...widget, auth_date: 'yesterday' };
    expect(() => verifyTelegramLogin(callback(garbage), BOT_TOKEN, NOW)).toThrow('无效的请求');
  });

  it('uses the first value of a repeated parameter, as Go does', () => {
    const params = telegramParams(`/x?id=1&id=2&a=%2B+b`);
    expect(params.get('id')).toBe('1');
    expect(params.get('a')).toBe('+ b');
  });
});
