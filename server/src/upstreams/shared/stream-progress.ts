import type { ClientBytes, OpenAIError, StreamCloseCause, StreamEnd, StreamSummary, TokenUsage, TrailerOptions } from '../upstream-adapter';
import { type ChunkIdentity, DONE_EVENT, errorEvent, usageChunkEvent } from './openai-sse';

/** Text kept for local counting is capped so a runaway stream cannot grow memory without bound. */
const MAX_COMPLETION_TEXT = 8 * 1024 * 1024;

export const STREAM_CUT_ERROR: OpenAIError = {
  message: 'upstream stream ended before the response was complete',
  type: 'upstream_error',
  param: '',
  code: 'upstream_stream_cut',
};

export const STREAM_TIMEOUT_ERROR: OpenAIError = {
  message: 'upstream stream timed out waiting for data',
  type: 'upstream_error',
  param: '',
  code: 'upstream_stream_timeout',
};

export function streamLineTooLongError(maxLineBytes: number): OpenAIError {
  return {
    message: `upstream stream line exceeds ${maxLineBytes} bytes`,
    type: 'upstream_error',
    param: '',
    code: 'upstream_stream_invalid',
  };
}

/**
 * The bookkeeping every stream transformer shares: what reached the client, the usage and text for billing,
 * and how the stream ended. Transformers own the protocol; this owns the summary and the trailer.
 */
export class StreamProgress {
  /** Set by the transformer once the upstream's terminator arrived. */
  terminated = false;
  usage: TokenUsage | null = null;
  promptTokens: number | null = null;
  /** The upstream's own usage chunk was written to the client. */
  usageForwarded = false;
  finishReason: string | null = null;
  toolCallCount = 0;
  eventsForwarded = 0;
  firstTokenAt: number | null = null;
  private failure: { end: StreamEnd; error: OpenAIError } | null = null;
  private closed: StreamSummary | null = null;
  private readonly text: string[] = [];
  private textLength = 0;

  constructor(
    readonly identity: ChunkIdentity,
    private readonly clientWantsUsage: boolean,
    private readonly now: () => number,
  ) {}

  /** No more upstream events will be read: terminator seen, failed, or finished. */
  get stopped(): boolean {
    return this.terminated || this.failure !== null || this.closed !== null;
  }

  fail(end: 'upstream_error' | 'invalid_stream', error: OpenAIError): void {
    if (!this.failure) this.failure = { end, error };
  }

  forwarded(events = 1): void {
    if (this.firstTokenAt === null) this.firstTokenAt = this.now();
    this.eventsForwarded += events;
  }

  addText(value: string): void {
    if (this.textLength >= MAX_COMPLETION_TEXT || value === '') return;
    this.text.push(value);
    this.textLength += value.length;
  }

  noteToolCalls(countInChunk: number): void {
    if (countInChunk > this.toolCallCount) this.toolCallCount = countInChunk;
  }

  finish(cause: StreamCloseCause): StreamSummary {
    if (this.closed) return this.closed;
    let end: StreamEnd;
    let error: OpenAIError | null = null;
    if (this.failure) ({ end, error } = this.failure);
    else if (this.terminated || this.finishReason !== null) end = 'done';
    else if (cause === 'idle_timeout') [end, error] = ['idle_timeout', STREAM_TIMEOUT_ERROR];
    else [end, error] = ['cut', STREAM_CUT_ERROR];
    this.closed = {
      end,
      error,
      usage: this.usage,
      promptTokens: this.usage ? null : this.promptTokens,
      completionText: this.text.join(''),
      toolCallCount: this.toolCallCount,
      finishReason: this.finishReason,
      firstTokenAt: this.firstTokenAt,
      eventsForwarded: this.eventsForwarded,
    };
    return this.closed;
  }

  trailer(options: TrailerOptions): ClientBytes {
    const summary = this.closed ?? this.finish('eof');
    let out = '';
    if (this.clientWantsUsage && !this.usageForwarded && options.usage) out += usageChunkEvent(this.identity, options.usage);
    out += summary.error ? errorEvent(summary.error, options.requestId) : DONE_EVENT;
    return out;
  }
}
