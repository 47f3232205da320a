import type { OpenAIError, RelayMode, UpstreamFailure } from './upstream-adapter';

/**
 * A gateway-side failure while preparing an upstream call. The relay answers it with the OpenAI envelope and
 * never retries it, as new-api does not: the same input would fail on every channel.
 */
export class UpstreamLocalError extends Error {
  readonly type = 'new_api_error';

  constructor(
    message: string,
    readonly code: string,
    readonly status: number,
  ) {
    super(message);
    this.name = new.target.name;
  }

  toOpenAIError(): OpenAIError {
    return { message: this.message, type: this.type, param: '', code: this.code };
  }
}

/**
 * Type 21 (AI Proxy knowledge base) has no adaptor. The "7" is new-api's internal API type for it, and the
 * message is kept as new-api words it because clients may match it.
 */
export class InvalidApiTypeError extends UpstreamLocalError {
  constructor() {
    super('invalid api type: 7', 'invalid_api_type', 400);
  }
}

/** A channel was chosen for a mode its type cannot serve (e.g. rerank on OpenAI): 500 convert_request_failed, as in new-api. */
export class UnsupportedRelayModeError extends UpstreamLocalError {
  constructor(relayMode: RelayMode, adapterName: string) {
    super(`relay mode ${relayMode} is not supported by ${adapterName} channels`, 'convert_request_failed', 500);
  }
}

/** The client's request cannot be expressed in the upstream's protocol (bad data URL, unknown content part). */
export class ConvertRequestError extends UpstreamLocalError {
  constructor(message: string) {
    super(message, 'convert_request_failed', 400);
  }
}

/** The channel has no base URL and its type has no default one. */
export class MissingBaseUrlError extends UpstreamLocalError {
  constructor(adapterName: string) {
    super(`the ${adapterName} channel has no base URL`, 'channel_base_url_missing', 500);
  }
}

/**
 * The provider refused an adapter's own call (`prepare` or `complete`: a token exchange, a failed task). Unlike
 * UpstreamLocalError this is the channel's failure: the relay reports it to the health rules and may retry elsewhere.
 */
export class UpstreamCallFailure extends Error {
  constructor(readonly failure: UpstreamFailure) {
    super(failure.error.message);
    this.name = new.target.name;
  }
}

/** An adapter's own call (`UpstreamAdapter.send`) could not reach its upstream: 500 do_request_failed, as for HTTP. */
export class UpstreamCallFailedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UpstreamCallFailedError';
  }
}
