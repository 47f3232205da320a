import { request as httpRequest, Agent as HttpAgent } from 'node:http';
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import type { IncomingMessage } from 'node:http';

/** The request the SDK hands its HTTP handler (Smithy's HttpRequest, the fields read here). */
interface SmithyHttpRequest {
  method: string;
  protocol: string;
  hostname: string;
  port?: number;
  path: string;
  query?: Record<string, string | string[] | null>;
  headers: Record<string, string>;
  body?: unknown;
}

const httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 256 });
const httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 256 });

function queryString(query: SmithyHttpRequest['query']): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(query ?? {})) {
    for (const item of Array.isArray(value) ? value : [value]) {
      parts.push(item === null ? encodeURIComponent(name) : `${encodeURIComponent(name)}=${encodeURIComponent(item)}`);
    }
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

/**
 * An HTTP/1.1 handler for the Bedrock Runtime client. The client's default is HTTP/2 (for its bidirectional
 * operations, which the relay does not use), which a proxy or plain-HTTP base URL (a test's fake) does not speak;
 * InvokeModel and its response stream are plain HTTP/1.1 requests on AWS too.
 */
export const http1Handler = {
  metadata: { handlerProtocol: 'http/1.1' },
  handle(
    request: SmithyHttpRequest,
    options: { abortSignal?: AbortSignal } = {},
  ): Promise<{ response: { statusCode: number; reason?: string; headers: Record<string, string>; body: IncomingMessage } }> {
    return new Promise((resolve, reject) => {
      const secure = request.protocol === 'https:';
      const call = (secure ? httpsRequest : httpRequest)(
        {
          method: request.method,
          hostname: request.hostname,
          port: request.port,
          path: `${request.path}${queryString(request.query)}`,
          headers: request.headers,
          agent: secure ? httpsAgent : httpAgent,
          signal: options.abortSignal,
        },
        (response) => {
          const headers: Record<string, string> = {};
          for (const [name, value] of Object.entries(response.headers)) {
            if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
          }
          resolve({ response: { statusCode: response.statusCode ?? 0, reason: response.statusMessage, headers, body: response } });
        },
      );
      call.on('error', reject);
      const body = request.body;
      if (body === undefined || body === null) call.end();
      else if (typeof body === 'string' || body instanceof Uint8Array) call.end(body);
      else if (typeof (body as NodeJS.ReadableStream).pipe === 'function') (body as NodeJS.ReadableStream).pipe(call);
      else call.end(String(body));
    });
  },
  updateHttpClientConfig(): void {},
  httpHandlerConfigs(): Record<string, never> {
    return {};
  },
  destroy(): void {},
};
