import { chatChunkEvent } from '../shared/openai-sse';
import { openAIErrorFromObject } from '../shared/map-upstream-error';
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
import type { AnthropicUsage } from './anthropic-types';
import { mapAnthropicStopReason } from './map-anthropic-stop-reason';
import { mapAnthropicUsage } from './map-anthropic-usage';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an event of the Anthropic stream, read field by field as the protocol allows
type Json = Record<string, any>;

/**
 * Claude SSE (https://docs.anthropic.com/en/docs/build-with-claude/streaming) → OpenAI chunks.
 * message_start → role chunk; text / thinking / input_json deltas → content / reasoning_content / tool
 * argument chunks; tool_use block start → a tool call chunk with id and name; message_delta → finish
 * chunk and usage; message_stop ends the stream. An `error` event ends it as an upstream error (new-api
 * swallowed it and answered a truncated success).
 */
export class AnthropicStreamTransformer implements StreamTransformer {
  private readonly progress: StreamProgress;
  private readonly decoder: SseEventDecoder;
  private out = '';
  private readonly usage: AnthropicUsage = {};
  /** Claude content block index → OpenAI tool call index. */
  private readonly toolIndexes = new Map<number, number>();
  /** message_start reports output_tokens 1 before any output; only message_delta's count is final. */
  private finalUsageSeen = false;

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
    this.decoder = new SseEventDecoder(settings.maxStreamLineBytes, (_event, data) => this.event(data));
  }

  push(chunk: Uint8Array): ClientBytes | null {
    if (this.progress.stopped) return null;
    if (!this.decoder.push(chunk)) this.progress.fail('invalid_stream', streamLineTooLongError(this.settings.maxStreamLineBytes));
    return this.drain();
  }

  finish(cause: StreamCloseCause): StreamSummary {
    if (!this.progress.stopped) this.decoder.flush();
    return this.progress.finish(cause);
  }

  trailer(options: TrailerOptions): ClientBytes {
    return (this.drain() ?? '') + (this.progress.trailer(options) as string);
  }

  private drain(): string | null {
    const out = this.out;
    this.out = '';
    return out === '' ? null : out;
  }

  private emit(delta: Record<string, unknown>, finishReason: string | null = null): void {
    this.out += chatChunkEvent(this.progress.identity, delta, finishReason);
    this.progress.forwarded();
  }

  private event(data: string): void {
    if (this.progress.stopped) return;
    let event: Json;
    try {
      event = JSON.parse(data);
    } catch {
      return; // a partial event at a cut: finish() reports the cut
    }
    switch (event?.type) {
      case 'message_start':
        return this.messageStart(event.message ?? {});
      case 'content_block_start':
        return this.blockStart(event.index, event.content_block ?? {});
      case 'content_block_delta':
        return this.blockDelta(event.index, event.delta ?? {});
      case 'message_delta':
        return this.messageDelta(event);
      case 'message_stop':
        this.progress.terminated = true;
        return;
      case 'error':
        return this.progress.fail('upstream_error', openAIErrorFromObject(event.error ?? { message: data }));
      default:
        return; // ping, content_block_stop and event types added later
    }
  }

  private messageStart(message: Json): void {
    if (typeof message.id === 'string') this.progress.identity.id = message.id;
    if (typeof message.model === 'string') this.progress.identity.model = message.model;
    Object.assign(this.usage, message.usage ?? {});
    this.updateUsage();
    this.emit({ role: 'assistant', content: '' });
  }

  private blockStart(index: number, block: Json): void {
    if (block.type === 'text' && block.text) this.text(block.text);
    else if (block.type === 'tool_use') {
      const toolIndex = this.toolIndexes.size;
      this.toolIndexes.set(index, toolIndex);
      this.progress.noteToolCalls(1);
      this.progress.addText(block.name ?? '');
      this.emit({ tool_calls: [{ index: toolIndex, id: block.id, type: 'function', function: { name: block.name, arguments: '' } }] });
    }
  }

  private blockDelta(index: number, delta: Json): void {
    if (delta.type === 'text_delta' && typeof delta.text === 'string') this.text(delta.text);
    else if (delta.type === 'thinking_delta' && typeof delta.thinking === 'string') {
      this.progress.addText(delta.thinking);
      this.emit({ reasoning_content: delta.thinking });
    } else if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string') {
      const toolIndex = this.toolIndexes.get(index);
      if (toolIndex === undefined) return;
      this.progress.addText(delta.partial_json);
      this.emit({ tool_calls: [{ index: toolIndex, function: { arguments: delta.partial_json } }] });
    }
  }

  private text(text: string): void {
    this.progress.addText(text);
    this.emit({ content: text });
  }

  private messageDelta(event: Json): void {
    // message_delta usage is cumulative and, in newer API versions, repeats the input counts.
    Object.assign(this.usage, event.usage ?? {});
    this.finalUsageSeen = true;
    this.updateUsage();
    const finishReason = mapAnthropicStopReason(event.delta?.stop_reason);
    if (finishReason) {
      this.progress.finishReason = finishReason;
      this.emit({}, finishReason);
    }
  }

  private updateUsage(): void {
    const { input_tokens, output_tokens } = this.usage;
    if (typeof input_tokens === 'number') {
      this.progress.promptTokens = input_tokens + (this.usage.cache_read_input_tokens ?? 0) + (this.usage.cache_creation_input_tokens ?? 0);
    }
    this.progress.usage = this.finalUsageSeen && typeof output_tokens === 'number' ? mapAnthropicUsage(this.usage) : null;
  }
}
