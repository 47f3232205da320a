import { request } from 'undici';
import type { BalanceHttpAnswer, GetJson } from './fetch-channel-balance';

/** GET with a deadline; the body parsed as JSON when it is JSON, else its text. */
export function getBalanceJson(timeoutMs: number): GetJson {
  return async (url, headers): Promise<BalanceHttpAnswer> => {
    const answer = await request(url, {
      method: 'GET',
      headers,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await answer.body.text();
    try {
      return { status: answer.statusCode, body: JSON.parse(text) as unknown };
    } catch {
      return { status: answer.statusCode, body: text };
    }
  };
}
