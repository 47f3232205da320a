import type { OpenAIError, UpstreamFailure } from '../upstream-adapter';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nonEmptyString(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

export function parseJsonObject(body: Uint8Array | string): Json | null {
  try {
    const text = typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
    const parsed: unknown = JSON.parse(text);
    return isObject(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

/**
 * An upstream `error` object as the client will see it. OpenAI-shaped objects are kept field for field; a
 * missing type becomes Gemini's `status` or `upstream_error` so clients always get one.
 */
export function openAIErrorFromObject(error: Json): OpenAIError {
  const code = error.code;
  return {
    message: typeof error.message === 'string' ? error.message : JSON.stringify(error),
    type: nonEmptyString(error.type) ?? nonEmptyString(error.status) ?? 'upstream_error',
    param: typeof error.param === 'string' ? error.param : null,
    code: typeof code === 'string' || typeof code === 'number' ? code : null,
  };
}

/**
 * The message of a non-OpenAI error body, from the first non-empty of the keys new-api reads:
 * message, msg, err, error_msg, header.message, response.error.message. A plain-string `error` is read too
 * (new-api's strict decoding lost it and answered "bad response status code").
 */
function findMessage(body: Json): string | null {
  const header = isObject(body.header) ? body.header : null;
  const response = isObject(body.response) ? body.response : null;
  const responseError = response && isObject(response.error) ? response.error : null;
  return (
    nonEmptyString(body.message) ??
    nonEmptyString(body.msg) ??
    nonEmptyString(body.err) ??
    nonEmptyString(body.error_msg) ??
    (header && nonEmptyString(header.message)) ??
    (responseError && nonEmptyString(responseError.message)) ??
    nonEmptyString(body.error)
  );
}

/** A non-2xx upstream answer as the OpenAI error envelope, worded as new-api words it (docs/providers.md). */
export function mapUpstreamError(status: number, body: Uint8Array | string): UpstreamFailure {
  const parsed = parseJsonObject(body);
  if (parsed && isObject(parsed.error) && nonEmptyString(parsed.error.message)) {
    return { ok: false, status, error: openAIErrorFromObject(parsed.error) };
  }
  return {
    ok: false,
    status,
    error: {
      message: (parsed && findMessage(parsed)) ?? `bad response status code ${status}`,
      type: 'upstream_error',
      param: String(status),
      code: 'bad_response_status_code',
    },
  };
}

/** A 2xx body that is not the JSON the protocol promises (500 unmarshal_response_body_failed, as in new-api). */
export function unreadableResponseError(detail: string): UpstreamFailure {
  return {
    ok: false,
    status: 500,
    error: {
      message: `cannot read the upstream response: ${detail}`,
      type: 'upstream_error',
      param: '',
      code: 'unmarshal_response_body_failed',
    },
  };
}
