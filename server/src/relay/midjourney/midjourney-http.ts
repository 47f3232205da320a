import type { ServerResponse } from 'node:http';
import { RelayError } from '../relay-error';
import { sendRelayError } from '../http/relay-routes';
import { MjRequestError } from './midjourney-actions';

/** Writes a JSON answer of the Midjourney routes. */
export function sendMjJson(response: ServerResponse, requestId: string, status: number, body: unknown): void {
  sendMjRaw(response, requestId, status, JSON.stringify(body));
}

export function sendMjRaw(response: ServerResponse, requestId: string, status: number, payload: string): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(payload)),
    'x-oneapi-request-id': requestId,
  });
  response.end(payload);
}

/**
 * An error of a Midjourney route in its shape: token refusals as the relay answers them (OpenAI shape), the
 * routes' own errors as `{description, type, code}`, anything else as code 5 ("unknown").
 */
export function sendMjError(response: ServerResponse, requestId: string, error: unknown): void {
  if (error instanceof RelayError) {
    sendRelayError(response, requestId, error);
    return;
  }
  if (error instanceof MjRequestError) {
    sendMjJson(response, requestId, error.status, error.toBody());
    return;
  }
  const message = error instanceof Error ? error.message : String(error);
  sendMjJson(response, requestId, 500, { description: message, type: 'new_api_error', code: 5 });
}

/** The JSON object of a request body, or new-api's bind_request_body_failed. */
export function jsonBody(raw: Buffer | null): Record<string, unknown> {
  if (!raw || raw.length === 0) throw new MjRequestError('bind_request_body_failed');
  try {
    const parsed: unknown = JSON.parse(raw.toString('utf8'));
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // answered below
  }
  throw new MjRequestError('bind_request_body_failed');
}

const first = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/** A POST of JSON to a Midjourney-Proxy with its secret; the status and the body text, or a relay error (code 4). */
export async function postUpstream(
  url: string,
  secret: string,
  body: unknown,
  headers: Record<string, string | string[] | undefined>,
  timeoutMs: number,
): Promise<{ status: number; text: string }> {
  try {
    const answer = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': first(headers['content-type']) ?? 'application/json',
        accept: first(headers.accept) ?? 'application/json',
        'mj-api-secret': secret,
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    return { status: answer.status, text: await answer.text() };
  } catch (error) {
    throw new MjRequestError(`do_request_failed ${(error as Error)?.message ?? String(error)}`, 4, 400, 'upstream_error');
  }
}

/** The upstream's `{code, description, result, properties}`, or null when it is not that. */
export function mjResult(text: string): { code: number; description: string; result: string; properties: Record<string, unknown> } | null {
  try {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    if (!parsed || typeof parsed !== 'object' || typeof parsed.code !== 'number') return null;
    return {
      code: parsed.code,
      description: typeof parsed.description === 'string' ? parsed.description : '',
      result: typeof parsed.result === 'string' ? parsed.result : parsed.result == null ? '' : String(parsed.result),
      properties: parsed.properties && typeof parsed.properties === 'object' ? (parsed.properties as Record<string, unknown>) : {},
    };
  } catch {
    return null;
  }
}

/** A list-by-condition answer: its items that carry an id. */
export function mjResultList(text: string): Array<Record<string, unknown> & { id: string }> {
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed)) throw new Error('list-by-condition did not answer an array');
  return parsed.filter(
    (item): item is Record<string, unknown> & { id: string } => Boolean(item) && typeof item === 'object' && typeof item.id === 'string',
  );
}
