import { request } from 'undici';

/** What a third-party call can end in, so callers map each to their own message. */
export class ThirdPartyUnreachableError extends Error {}
export class ThirdPartyInvalidResponseError extends Error {}

export interface JsonRequest {
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
}

/**
 * One call to an identity provider with a hard deadline for the whole exchange (new-api used a 5 s
 * client timeout). Returns the parsed JSON body whatever the status: providers put their error in it.
 */
export async function requestJson(options: JsonRequest): Promise<{ status: number; body: unknown }> {
  let status: number;
  let text: string;
  try {
    const response = await request(options.url, {
      method: options.method,
      headers: { 'user-agent': 'Tollgate', ...options.headers },
      body: options.body,
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    status = response.statusCode;
    text = await response.body.text();
  } catch (error) {
    throw new ThirdPartyUnreachableError(error instanceof Error ? error.message : String(error));
  }
  try {
    return { status, body: JSON.parse(text) as unknown };
  } catch {
    throw new ThirdPartyInvalidResponseError(`non-JSON answer (HTTP ${status})`);
  }
}
