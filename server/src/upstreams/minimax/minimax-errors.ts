import type { Json } from '../shared/converted-text-stream';
import type { OpenAIError, UpstreamFailure } from '../upstream-adapter';

/**
 * MiniMax answers errors with HTTP 200 and `base_resp: {status_code, status_msg}`
 * (https://platform.minimaxi.com/document/ChatCompletion%20v2, error codes). The status follows the code: 1004
 * (login fail) and 2049 (invalid API key) → 401, so a revoked key disables the channel; 1002 (RPM) and 1039 (TPM)
 * → 429; 1008 (insufficient balance) → 402; 2013 (invalid parameters) and 1026 / 1027 (sensitive input / output)
 * → 400; 1001 (timeout) → 504; anything else → 500.
 */
export function miniMaxErrorStatus(code: number): number {
  switch (code) {
    case 1004:
    case 2049:
      return 401;
    case 1002:
    case 1039:
      return 429;
    case 1008:
      return 402;
    case 2013:
    case 1026:
    case 1027:
      return 400;
    case 1001:
      return 504;
    default:
      return 500;
  }
}

/** A non-zero `base_resp.status_code` as the OpenAI error (type `minimax_error`, code the MiniMax code), or null. */
export function miniMaxError(body: Json): OpenAIError | null {
  const base = body.base_resp;
  if (typeof base !== 'object' || base === null) return null;
  const code = Number((base as Json).status_code ?? 0);
  if (!code) return null;
  const message =
    typeof (base as Json).status_msg === 'string' && (base as Json).status_msg !== ''
      ? String((base as Json).status_msg)
      : `MiniMax error ${code}`;
  return { message, type: 'minimax_error', param: '', code };
}

export function miniMaxFailure(error: OpenAIError): UpstreamFailure {
  return { ok: false, status: miniMaxErrorStatus(Number(error.code)), error };
}
