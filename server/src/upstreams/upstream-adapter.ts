/**
 * The contract every channel type implements. The relay owns I/O (HTTP client, timeouts, retries, billing);
 * an adapter owns the upstream's wire protocol: where to send, what to send, and how to read the answer back
 * into the OpenAI shapes the client expects. Adapters are synchronous and pure apart from the stream
 * transformer, which alone holds state, and optional hooks for the few upstreams that need more than one plain HTTP
 * call: `prepare` / `complete` make extra HTTP calls around the real one through the `UpstreamCall` the relay hands
 * them (Baidu's token exchange, cached per key; Alibaba's image task polls), and `send` replaces the call itself
 * (Vertex's token exchange then HTTP, Bedrock's SDK, Spark's WebSocket).
 *
 * One request through the relay:
 *   const adapter = getUpstreamAdapter(channel.type);          // throws InvalidApiTypeError for type 21
 *   input = await adapter.prepare?.(input, call) ?? input;     // Baidu: the access token
 *   const request = adapter.buildRequest(input);               // throws UpstreamLocalError on bad input/mode
 *   answer = adapter.send ? adapter.send(input, request, ctx)   // a token exchange, an SDK, a WebSocket
 *                         : the relay's HTTP client sends `request`
 *   non-stream 2xx: response = await adapter.complete?.(input, response, call) ?? response  // Alibaba images
 *   non-stream: adapter.parseResponse(input, {status, contentType, body})  -> UpstreamResult
 *   stream, status 2xx: t = adapter.createStreamTransformer(input);
 *       for each upstream chunk: write(t.push(chunk))           // null: nothing to write yet
 *       summary = t.finish('eof' | 'idle_timeout' | 'connection_error');
 *       usage = summary.usage ?? countLocally(summary)          // tiktoken, as new-api
 *       write(t.trailer({usage, requestId})); end the response
 *   stream, status not 2xx: adapter.mapError(status, body)     -> UpstreamFailure (retryable by the relay's rules)
 */

/** The relay modes: one per OpenAI route the relay serves. */
export type RelayMode =
  | 'chat'
  | 'completions'
  | 'embeddings'
  | 'moderations'
  | 'images-generations'
  | 'audio-speech'
  | 'audio-transcriptions'
  | 'audio-translations'
  | 'rerank';

export const RELAY_MODES: readonly RelayMode[] = [
  'chat',
  'completions',
  'embeddings',
  'moderations',
  'images-generations',
  'audio-speech',
  'audio-transcriptions',
  'audio-translations',
  'rerank',
];

/** The channel fields an adapter reads. `baseUrl` empty or null means the type's default base URL. */
export interface UpstreamChannel {
  readonly type: number;
  readonly key: string;
  readonly baseUrl: string | null;
  readonly other: string | null;
  readonly openaiOrganization: string | null;
}

export type JsonObject = Record<string, unknown>;

/** A parsed multipart body (audio transcriptions and translations). Every field and file is forwarded. */
export interface MultipartForm {
  readonly fields: ReadonlyArray<readonly [name: string, value: string]>;
  readonly files: readonly MultipartFile[];
}

export interface MultipartFile {
  readonly field: string;
  readonly filename: string;
  readonly contentType: string;
  readonly data: Uint8Array;
}

/** The only client headers that reach an upstream; the client's Authorization never does. */
export interface ClientHeaders {
  readonly accept?: string;
  readonly contentType?: string;
  readonly anthropicVersion?: string;
  readonly anthropicBeta?: string;
}

/** An image the relay fetched for an adapter that cannot pass URLs upstream (see `needsRemoteMedia`). */
export interface InlineMedia {
  readonly mimeType: string;
  /** base64, no data: prefix */
  readonly data: string;
}

export interface UpstreamRequestInput {
  readonly channel: UpstreamChannel;
  readonly relayMode: RelayMode;
  /** The client's path without the query, e.g. `/v1/chat/completions` (the playground path already rewritten). */
  readonly path: string;
  /** The client's query string without `?`, or ''. */
  readonly query: string;
  /** The client's parsed JSON body (every mode but audio transcriptions and translations). Never mutated. */
  readonly body?: JsonObject;
  /** The client's raw JSON bytes: OpenAI-compatible types forward them untouched when nothing must change. */
  readonly rawBody?: Uint8Array;
  /** Audio transcriptions and translations. */
  readonly multipart?: MultipartForm;
  /** The model name after the channel's model mapping. */
  readonly upstreamModel: string;
  readonly isStream: boolean;
  /** `stream_options.include_usage` as the client sent it. */
  readonly clientWantsUsage: boolean;
  readonly clientHeaders?: ClientHeaders;
  /** Fetched images keyed by their URL, for adapters with `needsRemoteMedia`. */
  readonly media?: ReadonlyMap<string, InlineMedia>;
  /** What the adapter's `prepare` obtained for this request (Baidu's access token); unset otherwise. */
  readonly credential?: string;
}

export interface UpstreamRequest {
  /** `scheme://host[:port]`, the key for an undici Pool. */
  readonly origin: string;
  /** Path and query on that origin, base-URL prefix included. */
  readonly path: string;
  /** origin + path */
  readonly url: string;
  readonly method: 'POST' | 'GET';
  /** Lower-case names. */
  readonly headers: Record<string, string>;
  readonly body: string | Uint8Array | undefined;
}

export interface UpstreamResponse {
  readonly status: number;
  /** The upstream Content-Type, or ''. */
  readonly contentType: string;
  readonly body: Uint8Array;
}

/** OpenAI's usage object; cached and reasoning tokens only when the upstream reports them. */
export interface TokenUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number; cache_creation_tokens?: number };
  completion_tokens_details?: { reasoning_tokens?: number };
}

/** The body of the OpenAI error envelope `{"error": {...}}`. */
export interface OpenAIError {
  message: string;
  type: string;
  param: string | null;
  code: string | number | null;
}

export interface UpstreamSuccess {
  readonly ok: true;
  readonly status: number;
  /** What to send the client: the upstream's bytes when `passthrough`, else a converted body. */
  readonly body: Uint8Array | string;
  readonly contentType: string;
  /** The body is the upstream's own, so the relay may copy the upstream's response headers. */
  readonly passthrough: boolean;
  /** Usage the upstream reported (non-zero), else null: the relay counts locally. */
  readonly usage: TokenUsage | null;
  /** The generated text, filled only when `usage` is null and the mode produces text (for local counting). */
  readonly completionText: string | null;
}

/** A provider's answer converted to an OpenAI body: the success the relay sends (counting locally without usage). */
export interface ConvertedAnswer {
  body: Record<string, unknown>;
  usage: TokenUsage | null;
  /** The generated text, for local counting. */
  text: string;
}

export function convertedSuccess(status: number, converted: ConvertedAnswer): UpstreamSuccess {
  return {
    ok: true,
    status,
    body: JSON.stringify(converted.body),
    contentType: 'application/json',
    passthrough: false,
    usage: converted.usage,
    completionText: converted.usage ? null : converted.text,
  };
}

export interface UpstreamFailure {
  readonly ok: false;
  /** The HTTP status to answer with (before the relay's status_code_mapping). */
  readonly status: number;
  readonly error: OpenAIError;
}

export type UpstreamResult = UpstreamSuccess | UpstreamFailure;

/** Why the upstream body stopped, as the relay saw it. */
export type StreamCloseCause = 'eof' | 'idle_timeout' | 'connection_error';

/**
 * How the stream ended:
 * - `done`: the upstream's terminator arrived ([DONE], message_stop, a Gemini finishReason), or the body
 *   closed after a finish_reason;
 * - `upstream_error`: the upstream sent an error event mid-stream;
 * - `cut`: the body closed or broke before the answer was complete;
 * - `idle_timeout`: the relay gave up waiting (STREAMING_TIMEOUT);
 * - `invalid_stream`: the framing could not be read (a line over the size limit).
 */
export type StreamEnd = 'done' | 'upstream_error' | 'cut' | 'idle_timeout' | 'invalid_stream';

export interface StreamSummary {
  readonly end: StreamEnd;
  /** What `trailer` sends the client for every end but `done`. */
  readonly error: OpenAIError | null;
  /** Complete usage reported by the upstream, else null: count `completionText` locally. */
  readonly usage: TokenUsage | null;
  /** Prompt tokens the upstream reported when it did not report a complete usage (Claude cut mid-answer). */
  readonly promptTokens: number | null;
  /** Text (content, reasoning, tool names and arguments) delivered to the client, for local counting. */
  readonly completionText: string;
  /** Largest number of tool calls seen in one chunk (local counting adds 7 tokens per call, as new-api). */
  readonly toolCallCount: number;
  readonly finishReason: string | null;
  /** Clock time (settings.now) of the first event written to the client, null if none. */
  readonly firstTokenAt: number | null;
  /** Events handed to the client so far; 0 means the relay may still retry on another channel. */
  readonly eventsForwarded: number;
}

export interface TrailerOptions {
  /** The usage to report and bill: the upstream's, or the relay's local count. */
  readonly usage: TokenUsage | null;
  /** Appended to an error message as ` (request id: <id>)`, like every gateway error. */
  readonly requestId?: string;
}

/** Bytes for the client, already framed as OpenAI SSE. */
export type ClientBytes = Uint8Array | string;

export interface StreamTransformer {
  /** Feed upstream bytes (split anywhere); returns the SSE events to write now, or null. */
  push(chunk: Uint8Array): ClientBytes | null;
  /** The upstream body closed; returns how it ended. Later pushes are ignored. */
  finish(cause: StreamCloseCause): StreamSummary;
  /**
   * The last bytes of the response: the usage chunk when the client asked for usage and the upstream's own
   * usage chunk was not forwarded, then `data: [DONE]` after a complete stream, or one
   * `data: {"error":{...}}` event (and no [DONE]) after any other end.
   */
  trailer(options: TrailerOptions): ClientBytes;
}

/**
 * One extra HTTP call an adapter makes on its own (a token exchange, a task poll), sent by the caller's client with
 * its timeouts and abort signal; the whole body is read. Rejects only for transport failures.
 *
 * `detached`: the call serves more than the request that happens to make it (a token exchange cached per key and
 * shared by every request waiting for it, a background refresh), so it must not end with that request's client: it
 * gets its own timeout signal of `timeoutMs` (headers and body) instead of the client's.
 */
export type UpstreamCall = (request: UpstreamRequest, options?: UpstreamCallOptions) => Promise<UpstreamResponse>;

export interface UpstreamCallOptions {
  readonly detached?: { readonly timeoutMs: number };
}
/** An upstream answer as the relay reads it: headers first, then a body read whole or chunk by chunk. */
export interface UpstreamCallAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: UpstreamCallBody;
}

export interface UpstreamCallBody extends AsyncIterable<Buffer> {
  /** The whole body (waits for its end); rejects if it broke off. */
  bytes(): Promise<Buffer>;
  /** Stops reading and closes the upstream call. */
  destroy(error?: Error): void;
  /** Whether bytes (or the end) already arrived that no reader has taken yet. */
  ready(): boolean;
}

/** What the relay lends an adapter that makes its own call (`UpstreamAdapter.send`). */
export interface UpstreamCallContext {
  /** The relay's pooled HTTP client with the relay's timeouts and the client's abort signal. */
  http(request: UpstreamRequest): Promise<UpstreamCallAnswer>;
  /** Aborted when the client goes away. */
  readonly signal?: {
    readonly aborted: boolean;
    addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  };
  /** RELAY_TIMEOUT for the answer's start (0: none). */
  readonly headersTimeoutMs: number;
  /** STREAMING_TIMEOUT between body chunks. */
  readonly bodyTimeoutMs: number;
}

export interface UpstreamAdapter {
  /** Folder name, for logs. */
  readonly name: string;
  readonly relayModes: ReadonlySet<RelayMode>;
  /** True if image URLs must be fetched by the relay and passed in `input.media` (Gemini). */
  readonly needsRemoteMedia: boolean;
  buildRequest(input: UpstreamRequestInput): UpstreamRequest;
  /**
   * Optional: makes the upstream call for `request` (what buildRequest built) when it is not one plain HTTP call:
   * a token exchange first (Vertex AI), a vendor SDK (AWS Bedrock), a WebSocket (iFlytek Spark). The answer is read
   * as the relay reads an HTTP answer (parseResponse, mapError, createStreamTransformer). Throws UpstreamLocalError
   * for a local failure and UpstreamCallFailedError when the upstream could not be reached.
   */
  send?(input: UpstreamRequestInput, request: UpstreamRequest, context: UpstreamCallContext): Promise<UpstreamCallAnswer>;
  /** Any status: non-2xx answers become an UpstreamFailure through `mapError`. */
  parseResponse(input: UpstreamRequestInput, response: UpstreamResponse): UpstreamResult;
  createStreamTransformer(input: UpstreamRequestInput): StreamTransformer;
  mapError(status: number, body: Uint8Array): UpstreamFailure;
  /**
   * Optional, for upstreams that need a call before the real one (Baidu's access-token exchange): the input to
   * build from, e.g. with `credential` set. Throws UpstreamLocalError for a bad key and UpstreamCallFailure when
   * the provider refused (a failure of the channel, which the health rules see).
   */
  prepare?(input: UpstreamRequestInput, call: UpstreamCall): Promise<UpstreamRequestInput>;
  /**
   * Optional, for upstreams whose 2xx non-stream answer is only a ticket (Alibaba's image task): follows it up and
   * returns the final answer, which `parseResponse` then reads. Throws UpstreamCallFailure like `prepare`.
   */
  complete?(input: UpstreamRequestInput, response: UpstreamResponse, call: UpstreamCall): Promise<UpstreamResponse>;
  /**
   * Only for upstreams that refuse a stream request with a 2xx JSON error body (Tencent, MiniMax): given that body
   * (the relay reads a JSON answer to a stream request whole first), the failure, or null to stream it as usual.
   */
  refusedStream?(input: UpstreamRequestInput, response: UpstreamResponse): UpstreamFailure | null;
}

/** Process-wide settings (environment options such as FORCE_STREAM_OPTION) and injected clock and ids. */
export interface UpstreamSettings {
  /** FORCE_STREAM_OPTION: ask upstreams that support it for a usage chunk. */
  readonly forceStreamUsage: boolean;
  /** GEMINI_SAFETY_SETTING */
  readonly geminiSafetyThreshold: string;
  /** DIFY_DEBUG: Dify's workflow_started / node_started shown as lines of text in the stream. */
  readonly difyDebug: boolean;
  /** Longest SSE line accepted from an upstream (new-api v0.3's limit of 64 KB cut real answers). */
  readonly maxStreamLineBytes: number;
  /** Milliseconds since the epoch. */
  readonly now: () => number;
  /** A random id body for `chatcmpl-…` and `call_…` ids. */
  readonly newId: () => string;
}
