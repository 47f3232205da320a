import { parseJsonObject } from '../shared/map-upstream-error';
import type { OpenAIError, UpstreamFailure } from '../upstream-adapter';

/** AWS errors that say the key is wrong or revoked: OpenAI's 401 invalid_api_key, so the health rules disable the channel. */
const BAD_KEY = new Set([
  'UnrecognizedClientException',
  'InvalidSignatureException',
  'IncompleteSignatureException',
  'ExpiredTokenException',
]);

/**
 * The body the Bedrock call's failure is handed to `mapError` with: `{"__type": <AWS error name>, "message": …}`,
 * as Bedrock's JSON protocol answers (the SDK has read it into an exception by then).
 */
export function bedrockErrorBody(name: string, message: string): string {
  return JSON.stringify({ __type: name, message });
}

/**
 * A Bedrock error (`{"__type","message"}`, or `{"message"}` with the name in `x-amzn-errortype`) → the OpenAI
 * shape: a bad key → 401 `invalid_api_key`; AccessDenied → 403 `permission_error`; throttling and quota → 429
 * `rate_limit_exceeded`; anything else keeps its status with `type` = the AWS error name.
 */
export function mapBedrockError(status: number, body: Uint8Array | string): UpstreamFailure {
  const parsed = parseJsonObject(body);
  const rawName = typeof parsed?.__type === 'string' ? parsed.__type : '';
  const name = rawName.split('#').pop()!.split(':')[0];
  const text = parsed?.message ?? parsed?.Message;
  const message = typeof text === 'string' && text !== '' ? text : `bad response status code ${status}`;
  const error = (type: string, code: string | null): OpenAIError => ({ message, type, param: null, code });
  if (BAD_KEY.has(name) || status === 401) return { ok: false, status: 401, error: error('authentication_error', 'invalid_api_key') };
  if (name === 'AccessDeniedException' || status === 403)
    return { ok: false, status: 403, error: error('permission_error', 'access_denied') };
  if (name === 'ThrottlingException' || name === 'ServiceQuotaExceededException' || status === 429) {
    return { ok: false, status: 429, error: error('rate_limit_error', 'rate_limit_exceeded') };
  }
  return { ok: false, status, error: error(name || 'upstream_error', name ? name : 'bad_response_status_code') };
}
