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
import { baiduErrorOf, baiduFailure } from './baidu-errors';
import { type BaiduUsage, mapBaiduUsage } from './convert-baidu';

/**
 * Wenxin SSE → OpenAI chunks. Each `data:` line is a whole JSON event `{id, result, is_end, usage}`; `is_end: true`
 * closes the answer and its usage is the whole answer's (completion = total − prompt, as new-api reads it). Baidu
 * answers a refused stream with HTTP 200 and a plain JSON `{error_code, error_msg}` body, which ends the stream as an
 * upstream error. Lines are read whole, so the upstream's bytes may be split anywhere.
 */
export class BaiduStreamTransformer implements StreamTransformer {
  private readonly progress: StreamProgress;
  private readonly splitter: StreamLineSplitter;
  private out = '';
  private started = false;
  private readonly onLine = (buffer: Buffer, start: number, end: number): void => this.line(buffer.toString('utf8', start, end).trim());

  constructor(
    input: UpstreamRequestInput,
    private readonly settings: UpstreamSettings,
    private readonly onTokenRefused: () => void,
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
    if (!this.progress.stopped) this.splitter.flush(this.onLine);
    return this.progress.finish(cause);
  }

  trailer(options: TrailerOptions): ClientBytes {
    const out = this.out + (this.progress.trailer(options) as string);
    this.out = '';
    return out;
  }

  private line(raw: string): void {
    if (this.progress.stopped || raw === '') return;
    let json: string;
    if (raw.startsWith('data:')) json = raw.slice(5).trim();
    else if (raw.startsWith('{')) json = raw;
    else return; // `id:`, `event:` and comments carry nothing Baidu needs
    let event: JsonObject;
    try {
      event = JSON.parse(json) as JsonObject;
    } catch {
      return; // a partial line at a cut: finish() reports the cut
    }
    const error = baiduErrorOf(event);
    if (error) {
      const failure = baiduFailure(200, error);
      if (failure.status === 401) this.onTokenRefused();
      return this.progress.fail('upstream_error', failure.error);
    }
    const usage = mapBaiduUsage(event.usage as BaiduUsage | undefined);
    if (usage) this.progress.promptTokens = usage.prompt_tokens;
    const text = typeof event.result === 'string' ? event.result : '';
    if (text !== '' || !this.started) {
      const delta: JsonObject = { content: text };
      if (!this.started) delta.role = 'assistant';
      this.started = true;
      this.progress.addText(text);
      this.out += chatChunkEvent(this.progress.identity, delta);
      this.progress.forwarded();
    }
    if (event.is_end === true) {
      this.progress.finishReason = 'stop';
      this.progress.usage = usage;
      this.progress.terminated = true;
      this.out += chatChunkEvent(this.progress.identity, {}, 'stop');
      this.progress.forwarded();
    }
  }
}
