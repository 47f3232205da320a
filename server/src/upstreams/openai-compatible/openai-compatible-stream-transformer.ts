import { bytesEqual, forEachKey, forEachStringAt } from '../shared/json-scan';
import { openAIErrorFromObject } from '../shared/map-upstream-error';
import { normalizeOpenAIUsage } from '../shared/normalize-usage';
import { StreamLineSplitter } from '../shared/stream-line-splitter';
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

const DATA = Buffer.from('data:');
const DONE = Buffer.from('[DONE]');
const DATA_SPACE = Buffer.from('data: ');
const EVENT_END = Buffer.from('\n\n');
// Key names as they appear between their quotes.
const ERROR_KEY = Buffer.from('error');
const USAGE_KEY = Buffer.from('usage');
const TOOL_CALLS_KEY = Buffer.from('tool_calls');
const FINISH_KEY = Buffer.from('finish_reason');
const CONTENT_KEY = Buffer.from('content');
const TEXT_KEY = Buffer.from('text');
const REASONING_KEY = Buffer.from('reasoning_content');
const OPEN_BRACE = 123;
const QUOTE = 34;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Forwards an OpenAI-compatible SSE stream line by line, re-framed as `data: <payload>\n\n` (so `data:`
 * without a space is accepted, unlike new-api, and comments and `event:` lines are dropped). Per line
 * it reads the keys it needs in one pass over the bytes (forEachKey); JSON is parsed for the first event (id and
 * model for a usage chunk), for lines with an `"error"` or non-null `"usage"` value, and for tool-call deltas.
 * Unlike new-api it holds nothing back: usage-only chunks are recognised by content, not by being last.
 */
export class OpenAICompatibleStreamTransformer implements StreamTransformer {
  private readonly progress: StreamProgress;
  private readonly splitter: StreamLineSplitter;
  private readonly textKey: Buffer;
  private out: Buffer[] = [];
  private outLength = 0;
  private identityRead = false;
  private identityTries = 0;
  /** Set while flushing a last line that had no newline: it is forwarded only if it is whole. */
  private atEof = false;
  private readonly onLine = (buffer: Buffer, start: number, end: number): void => this.line(buffer, start, end);
  /** What the key pass over the current event found (reset per event; arrays reused). */
  private scanned: Buffer = EVENT_END;
  private errorAt = -1;
  private usageObject = false;
  private toolCallsSeen = false;
  private readonly textAt: number[] = [];
  private readonly reasoningAt: number[] = [];
  private readonly finishAt: number[] = [];
  private readonly onKey = (keyStart: number, keyEnd: number, valueAt: number): void => {
    const buffer = this.scanned;
    const length = keyEnd - keyStart;
    if (bytesEqual(buffer, keyStart, length, this.textKey)) this.textAt.push(valueAt);
    else if (bytesEqual(buffer, keyStart, length, FINISH_KEY)) this.finishAt.push(valueAt);
    else if (bytesEqual(buffer, keyStart, length, USAGE_KEY)) {
      // OpenAI sends `"usage":null` on every other chunk: only an object counts.
      if (buffer[valueAt] === OPEN_BRACE) this.usageObject = true;
    } else if (bytesEqual(buffer, keyStart, length, REASONING_KEY)) this.reasoningAt.push(valueAt);
    else if (bytesEqual(buffer, keyStart, length, TOOL_CALLS_KEY)) this.toolCallsSeen = true;
    else if (this.errorAt === -1 && bytesEqual(buffer, keyStart, length, ERROR_KEY)) this.errorAt = valueAt;
  };

  constructor(
    private readonly input: UpstreamRequestInput,
    private readonly settings: UpstreamSettings,
  ) {
    this.progress = new StreamProgress(
      {
        id: `chatcmpl-${settings.newId()}`,
        object: input.relayMode === 'completions' ? 'text_completion' : 'chat.completion.chunk',
        created: Math.floor(settings.now() / 1000),
        model: input.upstreamModel,
      },
      input.clientWantsUsage,
      settings.now,
    );
    this.splitter = new StreamLineSplitter(settings.maxStreamLineBytes);
    this.textKey = input.relayMode === 'completions' ? TEXT_KEY : CONTENT_KEY;
  }

  push(chunk: Uint8Array): ClientBytes | null {
    if (this.progress.stopped) return null;
    if (!this.splitter.push(chunk, this.onLine)) {
      this.progress.fail('invalid_stream', streamLineTooLongError(this.settings.maxStreamLineBytes));
    }
    return this.drain();
  }

  finish(cause: StreamCloseCause): StreamSummary {
    // A body that closed cleanly may end without a newline; a broken or stalled one ends mid-line.
    if (!this.progress.stopped && cause === 'eof') {
      this.atEof = true;
      this.splitter.flush(this.onLine);
    }
    return this.progress.finish(cause);
  }

  trailer(options: TrailerOptions): ClientBytes {
    const last = this.progress.trailer(options);
    const pending = this.drain();
    return pending ? Buffer.concat([pending, Buffer.from(last as string)]) : last;
  }

  private drain(): Buffer | null {
    if (this.outLength === 0) return null;
    const bytes = this.out.length === 1 ? Buffer.from(this.out[0]) : Buffer.concat(this.out, this.outLength);
    this.out = [];
    this.outLength = 0;
    return bytes;
  }

  private line(buffer: Buffer, start: number, end: number): void {
    if (this.progress.stopped || end - start < 5 || buffer.compare(DATA, 0, 5, start, start + 5) !== 0) return;
    let payload = start + 5;
    if (buffer[payload] === 32) payload++;
    if (payload === end) return;
    if (end - payload === 6 && buffer.compare(DONE, 0, 6, payload, end) === 0) {
      this.progress.terminated = true;
      return;
    }
    this.event(buffer, payload, end);
  }

  private event(buffer: Buffer, start: number, end: number): void {
    let parsed: Json | null | undefined;
    const parse = (): Json | null => {
      if (parsed === undefined) {
        try {
          const value: unknown = JSON.parse(buffer.toString('utf8', start, end));
          parsed = isObject(value) ? value : null;
        } catch {
          parsed = null;
        }
      }
      return parsed;
    };
    const progress = this.progress;
    if (this.atEof && parse() === null) return;
    if (!this.identityRead) {
      // Azure opens with a prompt-filter chunk whose id, object and model are empty and created is 0: the
      // identity comes from the first chunk that names an id (looked for in the first few events only, so an
      // upstream that sends no id is not parsed line after line).
      const first = parse();
      if (++this.identityTries >= 4) this.identityRead = true;
      if (first && typeof first.id === 'string' && first.id !== '') {
        this.identityRead = true;
        progress.identity.id = first.id;
        if (typeof first.object === 'string' && first.object !== '') progress.identity.object = first.object;
        if (typeof first.created === 'number' && first.created > 0) progress.identity.created = first.created;
        if (typeof first.model === 'string' && first.model !== '') progress.identity.model = first.model;
      }
    }
    this.scanKeys(buffer, start, end);
    const errorAt = this.errorAt;
    if (errorAt !== -1 && (buffer[errorAt] === OPEN_BRACE || buffer[errorAt] === QUOTE)) {
      const error = parse()?.error;
      if (isObject(error)) return progress.fail('upstream_error', openAIErrorFromObject(error));
      if (typeof error === 'string' && error !== '') {
        return progress.fail('upstream_error', { message: error, type: 'upstream_error', param: '', code: null });
      }
    }
    let usageOnly = false;
    if (this.usageObject) {
      const event = parse();
      const usage = event && (normalizeOpenAIUsage(event.usage) ?? usageInChoices(event.choices));
      if (usage) {
        progress.usage = usage;
        usageOnly = !Array.isArray(event.choices) || event.choices.length === 0;
      }
    }
    if (this.toolCallsSeen) this.toolCalls(parse());
    forEachStringAt(buffer, this.textAt, end, (value) => progress.addText(value));
    forEachStringAt(buffer, this.reasoningAt, end, (value) => progress.addText(value));
    forEachStringAt(buffer, this.finishAt, end, (reason) => (progress.finishReason = reason));

    // With forced include_usage the usage-only chunk is ours, not the client's, unless it asked.
    if (usageOnly) {
      if (!this.input.clientWantsUsage) return;
      progress.usageForwarded = true;
    }
    this.out.push(DATA_SPACE, buffer.subarray(start, end), EVENT_END);
    this.outLength += DATA_SPACE.length + (end - start) + EVENT_END.length;
    progress.forwarded();
  }

  /** One pass over the event's keys: where "error" is, whether a usage object or tool calls are there, and the string values to read. */
  private scanKeys(buffer: Buffer, start: number, end: number): void {
    this.scanned = buffer;
    this.errorAt = -1;
    this.usageObject = false;
    this.toolCallsSeen = false;
    this.textAt.length = 0;
    this.reasoningAt.length = 0;
    this.finishAt.length = 0;
    forEachKey(buffer, start, end, this.onKey);
    this.scanned = EVENT_END;
  }

  private toolCalls(event: Json | null): void {
    const choices = event && Array.isArray(event.choices) ? event.choices : [];
    for (const choice of choices) {
      const delta = isObject(choice) && isObject(choice.delta) ? choice.delta : null;
      if (!delta || !Array.isArray(delta.tool_calls)) continue;
      this.progress.noteToolCalls(delta.tool_calls.length);
      for (const call of delta.tool_calls) {
        const fn = isObject(call) && isObject(call.function) ? call.function : null;
        if (!fn) continue;
        if (typeof fn.name === 'string') this.progress.addText(fn.name);
        if (typeof fn.arguments === 'string') this.progress.addText(fn.arguments);
      }
    }
  }
}

/** Moonshot puts the stream's usage on the last choice instead of the chunk. */
function usageInChoices(choices: unknown): TokenUsage | null {
  if (!Array.isArray(choices)) return null;
  for (const choice of choices) {
    const usage = isObject(choice) ? normalizeOpenAIUsage(choice.usage) : null;
    if (usage) return usage;
  }
  return null;
}
