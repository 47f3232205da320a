/**
 * Errors with a stable code. Console routes answer them as HTTP 200 `{success:false, message}` (new-api
 * reports application errors that way); relay routes map them to the OpenAI error envelope.
 */
export class DomainError extends Error {
  constructor(
    message: string,
    readonly code: string = 'invalid_request',
    /** HTTP status on console routes; new-api uses 200 for nearly everything. */
    readonly httpStatus: number = 200,
  ) {
    super(message);
  }
}

/** "无效的参数": new-api's answer to a body or query that cannot be decoded. */
export const INVALID_PARAMS = '无效的参数';

export class InvalidParamsError extends DomainError {
  constructor(message = INVALID_PARAMS) {
    super(message, 'invalid_params');
  }
}

/** HTTP 401 with the envelope: the console redirects to /login?expired=true on it. */
export class UnauthenticatedError extends DomainError {
  constructor(message: string) {
    super(message, 'unauthenticated', 401);
  }
}

export class ForbiddenError extends DomainError {
  constructor(message: string) {
    super(message, 'forbidden');
  }
}

export class ConflictError extends DomainError {
  constructor(message: string) {
    super(message, 'conflict');
  }
}
