import { openAIErrorFromObject } from '../shared/map-upstream-error';
import { chatChunkEvent } from '../shared/openai-sse';
import { SseEventDecoder } from '../shared/sse-event-decoder';
import { StreamProgress, streamLineTooLongError } from '../shared/stream-progress';
import type {
  ClientBytes,
  StreamCloseCause,
  StreamSummary,
  StreamTransformer,
  TokenUsage,
  TrailerOptions,
  UpstreamRequestInput,
  UpstreamSettings,
} from '../upstream-adapter';
import { noCandidatesError, readCandidate } from './convert-gemini-response';
import type { GeminiResponse } from './gemini-types';
import { mapGeminiFinishReason } from './map-gemini-finish-reason';
import { mapGeminiUsage } from './map-gemini-usage';

/**
 * Gemini `streamGenerateContent?alt=sse` → OpenAI chunks. Each event is a whole GenerateContentResponse
 * holding the next piece of every candidate. A candidate's finishReason is its end (Gemini sends no
 * terminator event), so a body that closes before one is a cut. Chunks carry the upstream model name,
 * not new-api's hard-coded "gemini".
 */
export class GeminiStreamTransformer implements StreamTransformer {
  private readonly progress: StreamProgress;
  private readonly decoder: SseEventDecoder;
  private out = '';
  private started = false;
  private toolCallIndex = 0;
  private lastUsage: TokenUsage | null = null;

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

  private chunk(index: number, delta: Record<string, unknown>, finishReason: string | null = null): void {
    this.out += chatChunkEvent(this.progress.identity, delta, finishReason, index);
    this.progress.forwarded();
  }

  private event(data: string): void {
    if (this.progress.stopped) return;
    let response: GeminiResponse & { error?: Record<string, unknown> };
    try {
      response = JSON.parse(data);
    } catch {
      return; // a partial event at a cut: finish() reports the cut
    }
    if (response.error && typeof response.error === 'object') {
      return this.progress.fail('upstream_error', openAIErrorFromObject(response.error));
    }
    // Every event repeats usageMetadata, but only the one with (or after) the finishReason counts the whole
    // answer: earlier ones hold the prompt alone. Taking them as complete billed a stream cut mid-answer (or
    // ended by an error event) as 0 completion tokens; until the finish, only the prompt count is kept and the
    // delivered text is counted locally.
    const usage = mapGeminiUsage(response.usageMetadata);
    if (usage) {
      this.lastUsage = usage;
      this.progress.promptTokens = usage.prompt_tokens;
    }
    const candidates = response.candidates ?? [];
    if (candidates.length === 0 && response.promptFeedback?.blockReason) {
      return this.progress.fail('upstream_error', noCandidatesError(response));
    }
    candidates.forEach((candidate, position) => {
      const index = candidate.index ?? position;
      const { text, reasoning, toolCalls } = readCandidate(candidate);
      const delta: Record<string, unknown> = {};
      if (!this.started) {
        this.started = true;
        delta.role = 'assistant';
      }
      if (reasoning) delta.reasoning_content = reasoning;
      if (text) delta.content = text;
      if (toolCalls.length > 0) {
        delta.tool_calls = toolCalls.map((call) => ({
          index: this.toolCallIndex++,
          id: `call_${this.settings.newId()}`,
          type: 'function',
          function: call,
        }));
        this.progress.noteToolCalls(toolCalls.length);
      }
      this.progress.addText(reasoning + text + toolCalls.map((call) => call.name + call.arguments).join(''));
      if (Object.keys(delta).length > 0) this.chunk(index, delta);
      const finishReason = mapGeminiFinishReason(candidate.finishReason, this.toolCallIndex > 0);
      if (finishReason) {
        this.progress.finishReason = finishReason;
        this.chunk(index, {}, finishReason);
      }
    });
    if (this.progress.finishReason !== null) this.progress.usage = this.lastUsage;
  }
}
