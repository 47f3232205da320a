import type {
  ClientBytes,
  OpenAIError,
  StreamCloseCause,
  StreamSummary,
  StreamTransformer,
  TokenUsage,
  TrailerOptions,
  UpstreamRequestInput,
  UpstreamSettings,
} from '../upstream-adapter';
import { chatChunkEvent, sseEvent } from './openai-sse';
import { SseEventDecoder } from './sse-event-decoder';
import { StreamLineSplitter } from './stream-line-splitter';
import { StreamProgress, streamLineTooLongError } from './stream-progress';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a provider event, read field by field as its protocol allows
export type Json = Record<string, any>;

/** How the upstream frames its events: server-sent events, or one JSON document per line (Cohere). */
export type StreamFraming = 'sse' | 'lines';

/**
 * The shared half of the stream transformers that turn a text-only provider stream (Cohere, Tencent, Dify) into
 * OpenAI chunks: framing, the role chunk, text chunks, the finish chunk, usage and the summary. A subclass reads
 * one event at a time in `onEvent` and calls `text`, `finishWith`, `reportUsage` and `failWith`.
 */
export abstract class ConvertedTextStream implements StreamTransformer {
  protected readonly progress: StreamProgress;
  private readonly feed: (chunk: Uint8Array) => boolean;
  private readonly flush: () => void;
  private out = '';
  private roleSent = false;

  constructor(
    input: UpstreamRequestInput,
    protected readonly settings: UpstreamSettings,
    framing: StreamFraming,
    /** `completion`: /v1/completions chunks (`text_completion`, choices[].text, no role chunk). */
    private readonly shape: 'chat' | 'completion' = 'chat',
  ) {
    this.progress = new StreamProgress(
      {
        id: shape === 'chat' ? `chatcmpl-${settings.newId()}` : `cmpl-${settings.newId()}`,
        object: shape === 'chat' ? 'chat.completion.chunk' : 'text_completion',
        created: Math.floor(settings.now() / 1000),
        model: input.upstreamModel,
      },
      input.clientWantsUsage,
      settings.now,
    );
    if (framing === 'sse') {
      const decoder = new SseEventDecoder(settings.maxStreamLineBytes, (event, data) => this.dispatch(event, data));
      this.feed = (chunk) => decoder.push(chunk);
      this.flush = () => decoder.flush();
    } else {
      const splitter = new StreamLineSplitter(settings.maxStreamLineBytes);
      const onLine = (buffer: Buffer, start: number, end: number) => {
        const line = buffer.toString('utf8', start, end).trim();
        if (line !== '') this.dispatch('', line);
      };
      this.feed = (chunk) => splitter.push(chunk, onLine);
      this.flush = () => splitter.flush(onLine);
    }
  }

  /** One upstream event: its SSE `event` name ('' if none, or for line framing) and its data. */
  protected abstract onEvent(event: string, data: string): void;

  push(chunk: Uint8Array): ClientBytes | null {
    if (this.progress.stopped) return null;
    if (!this.feed(chunk)) this.progress.fail('invalid_stream', streamLineTooLongError(this.settings.maxStreamLineBytes));
    return this.drain();
  }

  finish(cause: StreamCloseCause): StreamSummary {
    if (!this.progress.stopped) this.flush();
    return this.progress.finish(cause);
  }

  trailer(options: TrailerOptions): ClientBytes {
    return (this.drain() ?? '') + (this.progress.trailer(options) as string);
  }

  /** Parses a JSON object, or null for a partial or foreign line (a cut is reported by `finish`). */
  protected json(data: string): Json | null {
    try {
      const parsed: unknown = JSON.parse(data);
      return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Json) : null;
    } catch {
      return null;
    }
  }

  /** The first chunk carries the role, as OpenAI's streams do. */
  protected role(): void {
    if (this.roleSent || this.shape === 'completion') return;
    this.roleSent = true;
    this.emit({ role: 'assistant', content: '' });
  }

  protected text(text: string): void {
    if (text === '') return;
    this.role();
    this.progress.addText(text);
    this.emit({ content: text });
  }

  /** The finish chunk; the stream counts as complete from here on. */
  protected finishWith(reason: string): void {
    if (this.progress.finishReason !== null) return;
    this.role();
    this.progress.finishReason = reason;
    this.emit({}, reason);
  }

  /** The upstream's terminator: later events are ignored. */
  protected terminate(): void {
    this.progress.terminated = true;
  }

  protected reportUsage(usage: TokenUsage | null): void {
    if (usage) this.progress.usage = usage;
  }

  protected failWith(error: OpenAIError): void {
    this.progress.fail('upstream_error', error);
  }

  protected get stopped(): boolean {
    return this.progress.stopped;
  }

  private dispatch(event: string, data: string): void {
    if (!this.progress.stopped) this.onEvent(event, data);
  }

  private emit(delta: Record<string, unknown>, finishReason: string | null = null): void {
    if (this.shape === 'completion') {
      const { id, object, created, model } = this.progress.identity;
      const text = typeof delta.content === 'string' ? delta.content : '';
      this.out += sseEvent(
        JSON.stringify({ id, object, created, model, choices: [{ index: 0, text, logprobs: null, finish_reason: finishReason }] }),
      );
    } else this.out += chatChunkEvent(this.progress.identity, delta, finishReason);
    this.progress.forwarded();
  }

  private drain(): string | null {
    const out = this.out;
    this.out = '';
    return out === '' ? null : out;
  }
}
