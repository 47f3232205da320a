import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isApiPath } from '../../http-paths';
import { DomainError, INVALID_PARAMS } from './errors';
import { isStorageUnavailable, STORAGE_UNAVAILABLE_MESSAGE } from './storage-unavailable';

/** Fastify's own body errors: malformed JSON, wrong content type, empty JSON body, too large. */
const BODY_ERRORS = new Set([
  'FST_ERR_CTP_INVALID_JSON_BODY',
  'FST_ERR_CTP_EMPTY_JSON_BODY',
  'FST_ERR_CTP_INVALID_MEDIA_TYPE',
  'FST_ERR_CTP_INVALID_CONTENT_LENGTH',
  'FST_ERR_CTP_BODY_TOO_LARGE',
  'FST_ERR_CTP_INVALID_TYPE',
]);

function isBodyError(error: unknown): boolean {
  const code = (error as { code?: string })?.code;
  if (code && BODY_ERRORS.has(code)) return true;
  return error instanceof SyntaxError; // JSON.parse inside the content-type parser
}

/**
 * One filter for the whole HTTP surface: console routes get the `{success, message}` envelope, unknown
 * routes new-api's OpenAI-style 404, and nothing leaks a stack trace. Relay routes install their own
 * filter (OpenAI error envelope) in the relay module.
 */
@Catch()
export class ConsoleExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('HTTP');

  /** When the console is built, an unknown non-API GET is a console route (SPA fallback). */
  constructor(private readonly serveConsole = false) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const context = host.switchToHttp();
    const reply = context.getResponse<FastifyReply>();
    const request = context.getRequest<FastifyRequest>();
    if (reply.sent) return;

    if (exception instanceof DomainError) {
      void reply.status(exception.httpStatus).send({ success: false, message: exception.message });
      return;
    }
    if (isBodyError(exception)) {
      void reply.status(200).send({ success: false, message: INVALID_PARAMS });
      return;
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status === 404) {
        const path = request.url.split('?')[0];
        if (this.serveConsole && request.method === 'GET' && !isApiPath(path)) {
          void (reply as FastifyReply & { sendFile(name: string): unknown }).sendFile('index.html');
          return;
        }
        void reply.status(404).send({
          error: { message: `Invalid URL (${request.method} ${path})`, type: 'invalid_request_error', param: '', code: '' },
        });
        return;
      }
      if (status === 429) {
        void reply.status(429).send('');
        return;
      }
      const response = exception.getResponse();
      const message = typeof response === 'string' ? response : ((response as { message?: unknown }).message ?? exception.message);
      void reply
        .status(status >= 500 ? status : 200)
        .send({ success: false, message: String(Array.isArray(message) ? message.join('; ') : message) });
      return;
    }
    if (isStorageUnavailable(exception)) {
      // Postgres or Redis is away: say so and ask for a retry; the relay keeps serving from its caches and journal.
      this.logger.warn(`${request.method} ${request.url}: storage unavailable: ${(exception as Error)?.message ?? String(exception)}`);
      void reply.status(503).send({ success: false, message: STORAGE_UNAVAILABLE_MESSAGE });
      return;
    }
    this.logger.error(`${request.method} ${request.url}: ${(exception as Error)?.stack ?? String(exception)}`);
    void reply.status(500).send({ error: { message: 'Panic detected, error: internal server error', type: 'new_api_panic' } });
  }
}
