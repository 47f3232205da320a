import type { OpenAIError, UpstreamFailure } from '../upstream-adapter';

/** Baidu's error codes for an access token that is invalid (110) or expired (111). */
export const BAIDU_TOKEN_ERRORS: ReadonlySet<number> = new Set([110, 111]);
/** Request limits: cluster (4), daily (17), QPS (18), total (19), RPM (336501) and TPM (336502). */
const BAIDU_RATE_LIMITS: ReadonlySet<number> = new Set([4, 17, 18, 19, 336501, 336502]);

/** A Baidu body's `error_code` when it carries `error_msg` (Baidu answers most errors with HTTP 200). */
export function baiduErrorOf(body: Record<string, unknown>): { code: number; message: string } | null {
  if (typeof body.error_msg !== 'string' || body.error_msg === '') return null;
  return { code: typeof body.error_code === 'number' ? body.error_code : 0, message: body.error_msg };
}

/**
 * Baidu's `{error_code, error_msg}` as the OpenAI error (type `baidu_error`, code = error_code, as new-api). The status
 * is Baidu's HTTP status when it is an error, else chosen from the code so the health rules can read it: a token
 * Baidu refuses is 401 (the key was revoked or reset), a request limit 429, anything else 500.
 */
export function baiduFailure(httpStatus: number, error: { code: number; message: string }): UpstreamFailure {
  const body: OpenAIError = { message: error.message, type: 'baidu_error', param: '', code: error.code };
  let status = httpStatus >= 400 ? httpStatus : 500;
  if (BAIDU_TOKEN_ERRORS.has(error.code)) status = 401;
  else if (BAIDU_RATE_LIMITS.has(error.code)) status = 429;
  return { ok: false, status, error: body };
}
