import { request } from 'undici';
import { type BalanceHttpAnswer, BalanceQueryFailedError, type GetJson } from './fetch-channel-balance';

/**
 * GET with a deadline; the body parsed as JSON when it is JSON, else its text. An upstream that cannot be reached
 * (refused, reset, timed out) is a failed query answered in the console's shape, as new-api answers its error text,
 * not a 500.
 */
export function getBalanceJson(timeoutMs: number): GetJson {
  return async (url, headers): Promise<BalanceHttpAnswer> => {
    let answer: Awaited<ReturnType<typeof request>>;
    let text: string;
    try {
      answer = await request(url, {
        method: 'GET',
        headers,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await answer.body.text();
    } catch (error) {
      const reason = error instanceof Error ? error.message || error.name : String(error);
      throw new BalanceQueryFailedError(`request to the upstream failed: ${reason}`);
    }
    try {
      return { status: answer.statusCode, body: JSON.parse(text) as unknown };
    } catch {
      return { status: answer.statusCode, body: text };
    }
  };
}
