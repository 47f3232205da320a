import type { ServerResponse } from 'node:http';
import type { Logger } from '@nestjs/common';
import { UpstreamLocalError } from '#server/upstreams/upstream-errors';
import { RelayError } from '../../relay-error';
import type { RelayHttpRequest } from './relay-context';

/** An error the relay answers itself, in the relay's error shape. */
export function relayLocal(status: number, message: string, code: string | null, type = 'new_api_error'): RelayError {
  return new RelayError(status, message, type, { shape: 'relay', code });
}

/** Answers any error of a request: a JSON error, or one error event when a stream already started. */
export function answerError(logger: Logger, request: RelayHttpRequest, response: ServerResponse, error: unknown): void {
  let relayError: RelayError;
  if (error instanceof RelayError) relayError = error;
  else if (error instanceof UpstreamLocalError) relayError = relayLocal(error.status, error.message, error.code);
  else {
    logger.error(`${request.path} ${request.requestId}: ${(error as Error)?.stack ?? String(error)}`);
    relayError = relayLocal(500, 'internal error', 'internal_error');
  }
  if (response.headersSent) {
    // A stream already started: the error goes out as one event in the client's protocol.
    if (!response.destroyed) response.end(`data: ${JSON.stringify(relayError.toBody(request.requestId))}\n\n`);
    return;
  }
  if (response.destroyed) return;
  const payload = JSON.stringify(relayError.toBody(request.requestId));
  response.writeHead(relayError.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(payload)),
    'x-oneapi-request-id': request.requestId,
  });
  response.end(payload);
}
