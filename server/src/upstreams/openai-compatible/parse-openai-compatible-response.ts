import { findKeyValue, lastObjectValue } from '../shared/json-scan';
import { mapUpstreamError, openAIErrorFromObject, parseJsonObject } from '../shared/map-upstream-error';
import { makeUsage, normalizeOpenAIUsage } from '../shared/normalize-usage';
import { asBuffer } from '../shared/stream-line-splitter';
import type { RelayMode, TokenUsage, UpstreamResponse, UpstreamResult } from '../upstream-adapter';

const USAGE_KEY = Buffer.from('"usage"');
const ERROR_KEY = Buffer.from('"error"');

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Text the relay counts when a chat or completion answer carries no usage: content, reasoning, tool names and arguments. */
export function completionTextOf(body: Json): string {
  let text = '';
  const choices = Array.isArray(body.choices) ? body.choices : [];
  for (const choice of choices) {
    if (!isObject(choice)) continue;
    if (typeof choice.text === 'string') text += choice.text;
    const message = isObject(choice.message) ? choice.message : null;
    if (!message) continue;
    if (typeof message.reasoning_content === 'string') text += message.reasoning_content;
    if (typeof message.content === 'string') text += message.content;
    else if (Array.isArray(message.content)) {
      for (const part of message.content) if (isObject(part) && typeof part.text === 'string') text += part.text;
    }
    if (Array.isArray(message.tool_calls)) {
      for (const call of message.tool_calls) {
        const fn = isObject(call) && isObject(call.function) ? call.function : null;
        if (fn) text += `${typeof fn.name === 'string' ? fn.name : ''}${typeof fn.arguments === 'string' ? fn.arguments : ''}`;
      }
    }
  }
  return text;
}

const CUE_TIMING = /^\s*(?:\d+:)?\d{2}:\d{2}[.,]\d{3}\s+-->\s+(?:\d+:)?\d{2}:\d{2}[.,]\d{3}/;

/**
 * The spoken text of a `text`, `srt` or `vtt` transcription: subtitle formats keep only their cue text (as new-api's
 * getTextFromSRT/VTT do), so cue numbers and timings are not billed as words.
 */
export function transcriptText(body: string): string {
  const lines = body.split(/\r?\n/);
  if (!lines.some((line) => CUE_TIMING.test(line))) return body;
  const text: string[] = [];
  let inCue = false;
  for (const line of lines) {
    if (CUE_TIMING.test(line)) inCue = true;
    else if (line.trim() === '') inCue = false;
    else if (inCue) text.push(line.trim());
  }
  return text.join('\n');
}

/** Rerank usage: Jina's `usage`, SiliconCloud's `meta.tokens`, Cohere's `meta.billed_units`. */
function rerankUsage(body: Json): TokenUsage | null {
  const fromUsage = normalizeOpenAIUsage(body.usage);
  if (fromUsage) return fromUsage;
  if (isObject(body.usage) && typeof body.usage.total_tokens === 'number') return makeUsage(body.usage.total_tokens, 0);
  const meta = isObject(body.meta) ? body.meta : null;
  const tokens = meta && (isObject(meta.tokens) ? meta.tokens : isObject(meta.billed_units) ? meta.billed_units : null);
  return tokens ? normalizeOpenAIUsage(tokens) : null;
}

/** An error object in a 2xx JSON body becomes an error with that status (as in new-api; a 2xx is not retried). */
function errorInSuccessBody(buffer: Buffer, status: number): UpstreamResult | null {
  const at = findKeyValue(buffer, ERROR_KEY, 0, buffer.length);
  if (at === -1 || (buffer[at] !== 123 && buffer[at] !== 34)) return null;
  const parsed = parseJsonObject(buffer);
  if (!parsed) return null;
  if (isObject(parsed.error) && (parsed.error.message || parsed.error.type)) {
    return { ok: false, status, error: openAIErrorFromObject(parsed.error) };
  }
  if (typeof parsed.error === 'string' && parsed.error !== '') {
    return { ok: false, status, error: { message: parsed.error, type: 'upstream_error', param: '', code: null } };
  }
  return null;
}

/**
 * A non-stream answer from an OpenAI-compatible upstream. The body goes to the client untouched; usage is
 * read from the last `"usage"` key without parsing the rest (embeddings bodies run to hundreds of KB). Only
 * when usage is missing is the body parsed, to give the relay the text to count.
 */
export function parseOpenAICompatibleResponse(relayMode: RelayMode, response: UpstreamResponse): UpstreamResult {
  if (response.status < 200 || response.status >= 300) return mapUpstreamError(response.status, response.body);
  const buffer = asBuffer(response.body);
  const contentType = response.contentType || 'application/json';
  const success = (usage: TokenUsage | null, completionText: string | null): UpstreamResult => ({
    ok: true,
    status: response.status,
    body: response.body,
    contentType,
    passthrough: true,
    usage,
    completionText,
  });
  const isJson = contentType.includes('json');
  if (isJson && relayMode !== 'audio-speech') {
    const failure = errorInSuccessBody(buffer, response.status);
    if (failure) return failure;
  }
  switch (relayMode) {
    case 'chat':
    case 'completions': {
      const usage = normalizeOpenAIUsage(lastObjectValue(buffer, USAGE_KEY));
      if (usage) return success(usage, null);
      const parsed = parseJsonObject(buffer);
      return success(null, parsed ? completionTextOf(parsed) : '');
    }
    case 'embeddings':
      return success(normalizeOpenAIUsage(lastObjectValue(buffer, USAGE_KEY)), null);
    case 'rerank': {
      const parsed = parseJsonObject(buffer);
      return success(parsed ? rerankUsage(parsed) : null, null);
    }
    case 'audio-transcriptions':
    case 'audio-translations': {
      if (!isJson) return success(null, transcriptText(buffer.toString('utf8')));
      const parsed = parseJsonObject(buffer);
      // gpt-4o-transcribe reports token usage (`{type:"tokens", input_tokens, output_tokens}`); whisper-1 reports
      // `{type:"duration"}` or nothing, and the transcript is counted (prompt 0, completion = its tokens, as new-api).
      const usage = parsed ? normalizeOpenAIUsage(parsed.usage) : null;
      if (usage) return success(usage, null);
      return success(null, parsed && typeof parsed.text === 'string' ? parsed.text : '');
    }
    default:
      return success(null, null);
  }
}
