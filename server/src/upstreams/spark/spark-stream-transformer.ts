import { chatChunkEvent } from '../shared/openai-sse';
import { SseEventDecoder } from '../shared/sse-event-decoder';
import { StreamProgress, streamLineTooLongError } from '../shared/stream-progress';
import type {
  ClientBytes,
  StreamCloseCause,
  StreamSummary,
  StreamTransformer,
  TrailerOptions,
  UpstreamRequestInput,
  UpstreamSettings,
} from '../upstream-adapter';
import { frameError, frameText, frameUsage, isLastFrame, type SparkFrame } from './spark-frames';

/**
 * Spark answer frames (as `data: <frame>` lines from the WebSocket transport) → OpenAI chunks: the text of each
 * frame, a function call as a tool call, the finish with the last frame (status 2), whose usage is the answer's.
 * An error frame ends the stream as an upstream error (new-api did not surface `header.code`).
 */
export class SparkStreamTransformer implements StreamTransformer {
  private readonly progress: StreamProgress;
  private readonly decoder: SseEventDecoder;
  private out = '';
  private started = false;
  private toolCalls = 0;

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
    this.decoder = new SseEventDecoder(settings.maxStreamLineBytes, (_event, data) => this.frame(data));
  }

  push(chunk: Uint8Array): ClientBytes | null {
    if (this.progress.stopped) return null;
    if (!this.decoder.push(chunk)) this.progress.fail('invalid_stream', streamLineTooLongError(this.settings.maxStreamLineBytes));
    const out = this.out;
    this.out = '';
    return out === '' ? null : out;
  }

  finish(cause: StreamCloseCause): StreamSummary {
    if (!this.progress.stopped) this.decoder.flush();
    return this.progress.finish(cause);
  }

  trailer(options: TrailerOptions): ClientBytes {
    const out = this.out + (this.progress.trailer(options) as string);
    this.out = '';
    return out;
  }

  private chunk(delta: Record<string, unknown>, finishReason: string | null = null): void {
    this.out += chatChunkEvent(this.progress.identity, delta, finishReason);
    this.progress.forwarded();
  }

  private frame(data: string): void {
    if (this.progress.stopped) return;
    let frame: SparkFrame;
    try {
      frame = JSON.parse(data) as SparkFrame;
    } catch {
      return;
    }
    const error = frameError(frame);
    if (error) return this.progress.fail('upstream_error', error);
    const { content, call } = frameText(frame);
    const delta: Record<string, unknown> = {};
    if (!this.started) {
      this.started = true;
      delta.role = 'assistant';
    }
    if (content) delta.content = content;
    if (call) {
      delta.tool_calls = [{ index: this.toolCalls++, id: `call_${this.settings.newId()}`, type: 'function', function: call }];
      this.progress.noteToolCalls(1);
    }
    this.progress.addText(content + (call ? call.name + call.arguments : ''));
    if (Object.keys(delta).length > 0) this.chunk(delta);
    if (isLastFrame(frame)) {
      this.progress.usage = frameUsage(frame);
      this.progress.finishReason = this.toolCalls > 0 ? 'tool_calls' : 'stop';
      this.chunk({}, this.progress.finishReason);
      this.progress.terminated = true;
    }
  }
}
