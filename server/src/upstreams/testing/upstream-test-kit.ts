import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type {
  StreamCloseCause,
  StreamSummary,
  StreamTransformer,
  TokenUsage,
  UpstreamAdapter,
  UpstreamChannel,
  UpstreamRequestInput,
  UpstreamResponse,
  UpstreamSettings,
} from '../upstream-adapter';

/**
 * Helpers for the upstream specs: fixed settings, fixture files, and stream replays split at arbitrary
 * byte boundaries. Pure (no jest globals), so the build can include it harmlessly.
 */

export const FIXED_NOW = 1_741_600_000_000;

/** Deterministic clock and ids: every call to `newId` gives id1, id2, … */
export function testSettings(overrides: Partial<UpstreamSettings> = {}): UpstreamSettings {
  let next = 0;
  return {
    forceStreamUsage: true,
    geminiSafetyThreshold: 'BLOCK_NONE',
    difyDebug: true,
    maxStreamLineBytes: 1024 * 1024,
    now: () => FIXED_NOW,
    newId: () => `id${++next}`,
    ...overrides,
  };
}

export function fixture(providerFolder: string, name: string): Buffer {
  return readFileSync(join(__dirname, '..', providerFolder, '__fixtures__', name));
}

export function jsonFixture<T = Record<string, unknown>>(providerFolder: string, name: string): T {
  return JSON.parse(fixture(providerFolder, name).toString('utf8')) as T;
}

export function channel(overrides: Partial<UpstreamChannel> = {}): UpstreamChannel {
  return { type: 1, key: 'sk-upstream-key', baseUrl: null, other: null, openaiOrganization: null, ...overrides };
}

export function chatInput(overrides: Partial<UpstreamRequestInput> = {}): UpstreamRequestInput {
  return {
    channel: channel(),
    relayMode: 'chat',
    path: '/v1/chat/completions',
    query: '',
    body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] },
    upstreamModel: 'gpt-4o-mini',
    isStream: false,
    clientWantsUsage: false,
    ...overrides,
  };
}

/** The `created` (seconds) of every answer an adapter converts under FIXED_NOW. */
export const FIXED_CREATED = Math.floor(FIXED_NOW / 1000);

/** An upstream's JSON answer, as the adapters read it. */
export function jsonAnswer(body: Buffer | string, status = 200): UpstreamResponse {
  return { status, contentType: 'application/json', body: Buffer.from(body) };
}

/**
 * A provider spec's request input: one user message `content` to `model` on `channel`; `body` adds to (or replaces
 * fields of) the client body, `overrides` to the input.
 */
export function chatInputFor(channel: UpstreamChannel, model: string, content: string) {
  return (body: Record<string, unknown> = {}, overrides: Partial<UpstreamRequestInput> = {}): UpstreamRequestInput =>
    chatInput({ channel, body: { model, messages: [{ role: 'user', content }], ...body }, upstreamModel: model, ...overrides });
}

/** The JSON body `adapter` builds for `input` (untyped: the specs read whatever field the provider's format has). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type BuiltBody = Record<string, any>;

export function builtBody(adapter: UpstreamAdapter, input: UpstreamRequestInput): BuiltBody {
  return JSON.parse(adapter.buildRequest(input).body as string) as BuiltBody;
}

/** A converted (OpenAI-shaped) answer with one choice, as `parseResponse` writes it. */
export function chatCompletion(options: {
  id: string;
  model: string;
  message: Record<string, unknown>;
  finishReason: string;
  usage: Record<string, number>;
}): Record<string, unknown> {
  return {
    id: options.id,
    object: 'chat.completion',
    created: FIXED_CREATED,
    model: options.model,
    choices: [{ index: 0, message: options.message, logprobs: null, finish_reason: options.finishReason }],
    usage: options.usage,
  };
}

/**
 * The chunks of a converted stream with `id` and `model`: `chunk(delta, finish)` one choice's delta, and
 * `usage(prompt, completion)` the closing chunk that only carries the usage.
 */
export function streamChunks(id: string, model: string) {
  const identity = { id, object: 'chat.completion.chunk', created: FIXED_CREATED, model };
  return {
    identity,
    chunk: (delta: Record<string, unknown>, finish: string | null = null) => ({
      ...identity,
      choices: [{ index: 0, delta, finish_reason: finish }],
    }),
    usage: (prompt: number, completion: number) => ({
      ...identity,
      system_fingerprint: null,
      choices: [],
      usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
    }),
  };
}

export interface StreamRun {
  /** Everything written to the client, trailer included. */
  output: string;
  /** Output before the trailer. */
  body: string;
  trailer: string;
  summary: StreamSummary;
}

/** Feeds chunks through a fresh transformer, then finishes it; the trailer bills `usage` or the summary's. */
export function runStream(
  transformer: StreamTransformer,
  chunks: readonly Uint8Array[],
  options: { cause?: StreamCloseCause; usage?: TokenUsage | null; requestId?: string } = {},
): StreamRun {
  let body = '';
  for (const chunk of chunks) {
    const out = transformer.push(chunk);
    if (out !== null) body += typeof out === 'string' ? out : Buffer.from(out).toString('utf8');
  }
  const summary = transformer.finish(options.cause ?? 'eof');
  const last = transformer.trailer({ usage: options.usage !== undefined ? options.usage : summary.usage, requestId: options.requestId });
  const trailer = typeof last === 'string' ? last : Buffer.from(last).toString('utf8');
  return { output: body + trailer, body, trailer, summary };
}

/** The bytes in two pieces split at `at`. */
export function splitAt(bytes: Buffer, at: number): Buffer[] {
  return [bytes.subarray(0, at), bytes.subarray(at)];
}

/** One split per byte boundary: [[b0..], [b0, b1..]], …; with a step for long fixtures. */
export function* everySplit(bytes: Buffer, step = 1): Generator<Buffer[]> {
  for (let at = 0; at <= bytes.length; at += step) yield splitAt(bytes, at);
}

/** `count` splittings into random pieces (1–40 bytes), reproducible from `seed`. */
export function* randomSplits(bytes: Buffer, count: number, seed = 42): Generator<Buffer[]> {
  let state = seed >>> 0;
  const random = () => {
    // mulberry32
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  for (let run = 0; run < count; run++) {
    const pieces: Buffer[] = [];
    for (let at = 0; at < bytes.length; ) {
      const size = 1 + Math.floor(random() * 40);
      pieces.push(bytes.subarray(at, at + size));
      at += size;
    }
    yield pieces;
  }
}

/** The JSON payloads of `data:` events in client output, `[DONE]` kept as a string. */
export function dataEvents(output: string): unknown[] {
  return output
    .split('\n\n')
    .filter((event) => event.startsWith('data: '))
    .map((event) => event.slice(6))
    .map((data) => (data === '[DONE]' ? data : JSON.parse(data)));
}
