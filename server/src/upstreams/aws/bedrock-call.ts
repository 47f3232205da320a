import {
  BedrockRuntimeClient,
  InvokeModelCommand,
  InvokeModelWithResponseStreamCommand,
  type ResponseStream,
} from '@aws-sdk/client-bedrock-runtime';
import { answerFromBytes, PushedBody } from '../shared/call-answer';
import type { UpstreamCallAnswer, UpstreamCallContext } from '../upstream-adapter';
import { UpstreamCallFailedError } from '../upstream-errors';
import type { AwsCredentials } from './aws-key';
import { bedrockErrorBody } from './bedrock-errors';
import { http1Handler } from './http1-handler';

/** One SDK client per key and endpoint (its connection pool and signer), kept while the process runs. */
const clients = new Map<string, BedrockRuntimeClient>();
const MAX_CLIENTS = 256;

function clientFor(credentials: AwsCredentials, endpoint: string | null): BedrockRuntimeClient {
  const id = `${credentials.accessKeyId}|${credentials.secretAccessKey}|${credentials.region}|${endpoint ?? ''}`;
  let client = clients.get(id);
  if (!client) {
    if (clients.size >= MAX_CLIENTS) {
      const [oldest, value] = clients.entries().next().value!;
      value.destroy();
      clients.delete(oldest);
    }
    client = new BedrockRuntimeClient({
      region: credentials.region,
      credentials: { accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey },
      // The channel's base URL replaces bedrock-runtime.<region>.amazonaws.com (a proxy, a test's fake).
      ...(endpoint ? { endpoint } : {}),
      // The relay retries on other channels by its own rules.
      maxAttempts: 1,
      requestHandler: http1Handler,
    });
    clients.set(id, client);
  }
  return client;
}

export interface BedrockCall {
  credentials: AwsCredentials;
  endpoint: string | null;
  modelId: string;
  body: string;
  stream: boolean;
}

interface AwsError {
  name?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
}

/** An abort signal for the SDK call: the client going away, or no answer within RELAY_TIMEOUT. */
function callSignal(context: UpstreamCallContext): { controller: AbortController; answered: () => void } {
  const controller = new AbortController();
  context.signal?.addEventListener('abort', () => controller.abort(), { once: true });
  if (context.signal?.aborted) controller.abort();
  const timer = context.headersTimeoutMs > 0 ? setTimeout(() => controller.abort(), context.headersTimeoutMs) : null;
  return { controller, answered: () => timer && clearTimeout(timer) };
}

/**
 * InvokeModel or InvokeModelWithResponseStream through the official SDK (SigV4 signing, the binary event stream).
 * A stream's chunks (each a Claude stream event) are handed on as `data: <event>` SSE lines for the anthropic/
 * transformer; an AWS error is handed on as its status and `{"__type","message"}` for `mapBedrockError`.
 */
export async function callBedrock(call: BedrockCall, context: UpstreamCallContext): Promise<UpstreamCallAnswer> {
  const client = clientFor(call.credentials, call.endpoint);
  const { controller, answered } = callSignal(context);
  const signal = controller.signal;
  const input = { modelId: call.modelId, body: call.body, contentType: 'application/json', accept: 'application/json' };
  try {
    if (!call.stream) {
      const output = await client.send(new InvokeModelCommand(input), { abortSignal: signal });
      return answerFromBytes(200, 'application/json', output.body ?? new Uint8Array());
    }
    const output = await client.send(new InvokeModelWithResponseStreamCommand(input), { abortSignal: signal });
    const body = new PushedBody(() => controller.abort());
    void pump(output.body, body);
    return { status: 200, contentType: 'text/event-stream', headers: { 'content-type': 'text/event-stream' }, body };
  } catch (error) {
    const failure = error as AwsError;
    const status = failure.$metadata?.httpStatusCode;
    if (status && status >= 400) {
      return answerFromBytes(status, 'application/json', bedrockErrorBody(failure.name ?? '', failure.message ?? ''));
    }
    throw new UpstreamCallFailedError(`bedrock: ${failure.message ?? String(error)}`);
  } finally {
    answered();
  }
}

/** Bedrock's stream exceptions, as events the anthropic/ transformer reads as a Claude `error` event. */
const STREAM_EXCEPTIONS = [
  'internalServerException',
  'modelStreamErrorException',
  'validationException',
  'throttlingException',
  'modelTimeoutException',
  'serviceUnavailableException',
] as const;

async function pump(events: AsyncIterable<ResponseStream> | undefined, body: PushedBody): Promise<void> {
  const sendError = (type: string, message: string) =>
    body.push(`data: ${JSON.stringify({ type: 'error', error: { type, message } })}\n\n`);
  try {
    for await (const event of events ?? []) {
      if (event.chunk?.bytes) {
        body.push(`data: ${Buffer.from(event.chunk.bytes).toString('utf8')}\n\n`);
        continue;
      }
      for (const name of STREAM_EXCEPTIONS) {
        const exception = (event as unknown as Record<string, { message?: string } | undefined>)[name];
        if (exception) sendError(name, exception.message ?? name);
      }
    }
    body.end();
  } catch (error) {
    const failure = error as AwsError;
    // A modelled exception in the stream (the SDK throws it): the client gets it as the upstream's error.
    if (failure.name?.endsWith('Exception') && typeof failure.message === 'string') {
      sendError(failure.name, failure.message ?? failure.name);
      body.end();
    } else {
      body.fail(error instanceof Error ? error : new Error(String(error)));
    }
  }
}
