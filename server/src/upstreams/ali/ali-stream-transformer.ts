import { chatChunkEvent } from '../shared/openai-sse';
import { SseEventDecoder } from '../shared/sse-event-decoder';
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
import { aliErrorOf } from './ali-api';
import { aliFinishReason, mapAliUsage } from './convert-ali-chat';

/**
 * DashScope SSE (`X-DashScope-SSE: enable`, `incremental_output`) → OpenAI chunks. Events are `event:result` with
 * `data:{output:{text, finish_reason}, usage, request_id}`, the text new since the last event; a finish_reason other
 * than "null" ends the answer, and that event's usage counts it. `event:error` carries `{code, message}`.
 */
export class AliStreamTransformer implements StreamTransformer {
  private readonly progress: StreamProgress;
  private readonly decoder: SseEventDecoder;
  private out = '';
  private started = false;

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
    this.decoder = new SseEventDecoder(settings.maxStreamLineBytes, (event, data) => this.event(event, data));
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

  private event(name: string, data: string): void {
    if (this.progress.stopped) return;
    let event: JsonObject;
    try {
      event = JSON.parse(data) as JsonObject;
    } catch {
      return; // a partial event at a cut: finish() reports the cut
    }
    const error = aliErrorOf(event);
    if (error || name === 'error') {
      return this.progress.fail('upstream_error', error ?? { message: data, type: 'upstream_error', param: '', code: null });
    }
    const output = (typeof event.output === 'object' && event.output !== null ? event.output : {}) as JsonObject;
    const usage = mapAliUsage(event.usage);
    if (usage) this.progress.promptTokens = usage.prompt_tokens;
    const text = typeof output.text === 'string' ? output.text : '';
    if (text !== '' || !this.started) {
      const delta: JsonObject = { content: text };
      if (!this.started) delta.role = 'assistant';
      this.started = true;
      this.progress.addText(text);
      this.out += chatChunkEvent(this.progress.identity, delta);
      this.progress.forwarded();
    }
    const finish = aliFinishReason(output.finish_reason);
    if (finish) {
      this.progress.finishReason = finish;
      this.progress.usage = usage;
      this.progress.terminated = true;
      this.out += chatChunkEvent(this.progress.identity, {}, finish);
      this.progress.forwarded();
    }
  }
}
