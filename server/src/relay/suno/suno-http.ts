import type { ServerResponse } from 'node:http';
import { sendRelayError } from '../http/relay-routes';
import { RelayError } from '../relay-error';

/** new-api's message for a final 429. */
export const SUNO_SATURATED = '当前分组上游负载已饱和，请稍后再试';

/**
 * new-api's TaskError: answered as `{code, message, data}` with `status`. `local`: the gateway's own refusal (never
 * retried on another channel).
 */
export class SunoTaskError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    readonly local = false,
  ) {
    super(message);
  }

  toBody(): { code: string; message: string; data: null } {
    return { code: this.code, message: this.message, data: null };
  }
}

export const localTaskError = (code: string, message: string, status = 400) => new SunoTaskError(code, message, status, true);

export function sendTaskJson(response: ServerResponse, requestId: string, status: number, payload: string, contentType?: string): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  response.writeHead(status, {
    'content-type': contentType ?? 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(payload)),
    'x-oneapi-request-id': requestId,
  });
  response.end(payload);
}

/** An error of a Suno route: token refusals and missing channels as the relay answers them, the rest as a TaskError. */
export function sendTaskError(response: ServerResponse, requestId: string, error: unknown): void {
  if (error instanceof RelayError) {
    sendRelayError(response, requestId, error);
    return;
  }
  const taskError = error instanceof SunoTaskError ? error : new SunoTaskError('internal_error', errorMessage(error), 500);
  sendTaskJson(response, requestId, taskError.status, JSON.stringify(taskError.toBody()));
}

export const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** The JSON object of a request body, or new-api's invalid_request. */
export function taskJsonBody(raw: Buffer | null): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse((raw ?? Buffer.alloc(0)).toString('utf8'));
  } catch (error) {
    throw localTaskError('invalid_request', errorMessage(error));
  }
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  throw localTaskError('invalid_request', 'the request body is not a JSON object');
}

/** The upstream's `{code, message, data}`, or null when it is not that. */
export function sunoAnswer(text: string): { code: string; message: string; data: unknown } | null {
  try {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    if (!parsed || typeof parsed !== 'object' || typeof parsed.code !== 'string') return null;
    return { code: parsed.code, message: typeof parsed.message === 'string' ? parsed.message : '', data: parsed.data };
  } catch {
    return null;
  }
}
