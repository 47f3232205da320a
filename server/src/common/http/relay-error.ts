/**
 * An error answered on relay routes (/v1, /mj, /suno, /dashboard) in the OpenAI error envelope, as new-api answers
 * them. Every message the gateway produces ends with ` (request id: <id>)`.
 *
 * Two shapes exist in new-api and clients see the difference:
 * - `abort` (middleware aborts: token auth, distribution): `{"error":{"message","type"}}`, no `param` or `code`;
 * - `relay` (errors of the relay handlers): `{"error":{"message","type","param","code"}}` always with both keys.
 */
export type RelayErrorShape = 'abort' | 'relay';

export interface RelayErrorOptions {
  /** Default `abort`, the middleware shape. */
  shape?: RelayErrorShape;
  /** `relay` shape only: the error code (`insufficient_user_quota`…); null when there is none. */
  code?: string | null;
  /** `relay` shape only; local errors use "". */
  param?: string;
}

export interface RelayErrorBody {
  error: { message: string; type: string; param?: string; code?: string | null };
}

export class RelayError extends Error {
  readonly shape: RelayErrorShape;
  readonly code: string | null;
  readonly param: string;

  constructor(
    /** HTTP status the client sees. */
    readonly status: number,
    message: string,
    readonly type: string = 'new_api_error',
    options: RelayErrorOptions = {},
  ) {
    super(message);
    this.name = 'RelayError';
    this.shape = options.shape ?? 'abort';
    this.code = options.code ?? null;
    this.param = options.param ?? '';
  }

  /** The JSON body for this error, its message suffixed with the request id. */
  toBody(requestId: string): RelayErrorBody {
    const message = withRequestId(this.message, requestId);
    if (this.shape === 'abort') return { error: { message, type: this.type } };
    return { error: { message, type: this.type, param: this.param, code: this.code } };
  }
}

export function withRequestId(message: string, requestId: string): string {
  return `${message} (request id: ${requestId})`;
}
