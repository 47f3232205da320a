import { normalizeOpenAIUsage } from '../shared/normalize-usage';
import { chatChunkEvent } from '../shared/openai-sse';
import { StreamLineSplitter } from '../shared/stream-line-splitter';
import { StreamProgress, streamLineTooLongError } from '../shared/stream-progress';
import type {
  ClientBytes,
  JsonObject,
  StreamCloseCause,
  StreamSummary,
  StreamTransformer,
  TrailerOptions,
  UpstreamRequestInput,
  UpstreamSettings,
} from '../upstream-adapter';

/**
 * ChatGLM v3 `sse-invoke` → OpenAI chunks. Events are `event:add` with raw text in `data:` lines (several data lines
 * are one text joined by newlines; no space is stripped after the colon, since the text is not JSON), then
 * `event:finish` with a `meta:` JSON line carrying the usage, which ends the answer. `event:error` and
 * `event:interrupted` end it as an upstream error with the data as message.
 */
export class ZhipuV3StreamTransformer implements StreamTransformer {
  private readonly progress: StreamProgress;
  private readonly splitter: StreamLineSplitter;
  private out = '';
  private started = false;
  private event = '';
  private data: string[] | null = null;
  private meta: string | null = null;
  private readonly onLine = (buffer: Buffer, start: number, end: number): void => this.line(buffer.toString('utf8', start, end));

  constructor(
    input: UpstreamRequestInput,
    private readonly settings: UpstreamSettings,
  ) {
    this.progress = new StreamProgress(
      {
        id: `chatcmpl-${settings.newId()}`,
        object: 'chat.completion.chunk',
        created: Math.floor(settings.now() / 1000),
        model: input.upstreamModel,
      },
      input.clientWantsUsage,
      settings.now,
    );
    this.splitter = new StreamLineSplitter(settings.maxStreamLineBytes);
  }

  push(chunk: Uint8Array): ClientBytes | null {
    if (this.progress.stopped) return null;
    if (!this.splitter.push(chunk, this.onLine))
      this.progress.fail('invalid_stream', streamLineTooLongError(this.settings.maxStreamLineBytes));
    const out = this.out;
    this.out = '';
    return out === '' ? null : out;
  }

  finish(cause: StreamCloseCause): StreamSummary {
    if (!this.progress.stopped) {
      this.splitter.flush(this.onLine);
      // The last event is delivered without its blank line only when it is whole: a finish with its meta.
      if (this.event === 'finish' && this.meta !== null) this.dispatch();
    }
    return this.progress.finish(cause);
  }

  trailer(options: TrailerOptions): ClientBytes {
    const out = this.out + (this.progress.trailer(options) as string);
    this.out = '';
    return out;
  }

  private line(line: string): void {
    if (line === '') return this.dispatch();
    if (line.startsWith('data:')) (this.data ??= []).push(line.slice(5));
    else if (line.startsWith('meta:')) this.meta = line.slice(5);
    else if (line.startsWith('event:')) this.event = line.slice(6).trim();
    else if (line.startsWith('{') && this.event === '' && this.data === null) this.refusal(line);
  }

  /** A JSON body instead of events: Zhipu refused the call with `{code, msg, success: false}`. */
  private refusal(line: string): void {
    try {
      const body = JSON.parse(line) as JsonObject;
      const message = typeof body.msg === 'string' ? body.msg : line;
      this.progress.fail('upstream_error', {
        message,
        type: 'zhipu_error',
        param: '',
        code: typeof body.code === 'number' ? body.code : null,
      });
    } catch {
      // not JSON: ignored like any other line that is no field
    }
  }

  private dispatch(): void {
    const event = this.event;
    const text = this.data === null ? null : this.data.join('\n');
    const meta = this.meta;
    this.event = '';
    this.data = null;
    this.meta = null;
    if (this.progress.stopped || (text === null && meta === null)) return;
    if (event === 'error' || event === 'interrupted') {
      return this.progress.fail('upstream_error', {
        message: text || `zhipu stream ${event}`,
        type: 'zhipu_error',
        param: '',
        code: event,
      });
    }
    if (text !== null && (text !== '' || !this.started)) {
      const delta: JsonObject = { content: text };
      if (!this.started) delta.role = 'assistant';
      this.started = true;
      this.progress.addText(text);
      this.out += chatChunkEvent(this.progress.identity, delta);
      this.progress.forwarded();
    }
    if (event === 'finish') {
      let usage = null;
      try {
        usage = meta === null ? null : normalizeOpenAIUsage((JSON.parse(meta) as JsonObject).usage);
      } catch {
        usage = null;
      }
      this.progress.usage = usage;
      this.progress.finishReason = 'stop';
      this.progress.terminated = true;
      this.out += chatChunkEvent(this.progress.identity, {}, 'stop');
      this.progress.forwarded();
    }
  }
}
