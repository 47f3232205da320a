import type { JsonObject, MultipartForm, RelayMode } from '../../upstreams/upstream-adapter';
import { MultipartError, multipartBoundary, parseMultipart } from '../http/parse-multipart';
import { RelayError } from '../relay-error';
import { countChatPromptTokens, countInputTokens, countTextTokens } from '../tokenizer/token-counter';

/** Relay mode of a request path, as new-api routes it; the playground path is chat. */
export function relayModeOf(path: string): RelayMode | null {
  switch (path) {
    case '/v1/chat/completions':
    case '/pg/chat/completions':
      return 'chat';
    case '/v1/completions':
      return 'completions';
    case '/v1/embeddings':
      return 'embeddings';
    case '/v1/moderations':
      return 'moderations';
    case '/v1/images/generations':
      return 'images-generations';
    case '/v1/audio/speech':
      return 'audio-speech';
    case '/v1/audio/transcriptions':
      return 'audio-transcriptions';
    case '/v1/audio/translations':
      return 'audio-translations';
    case '/v1/rerank':
      return 'rerank';
    default:
      return path.endsWith('/embeddings') ? 'embeddings' : null;
  }
}

/** The model used for channel selection when the body names none (new-api's per-route defaults). */
export function defaultModelFor(mode: RelayMode): string {
  switch (mode) {
    case 'moderations':
      return 'text-moderation-stable';
    case 'images-generations':
      return 'dall-e-2';
    case 'audio-speech':
      return 'tts-1';
    case 'audio-transcriptions':
    case 'audio-translations':
      return 'whisper-1';
    default:
      return '';
  }
}

/** Distribute's 400 for a body that is not a JSON object (v0.4.8 wrote it once; v0.3 wrote two objects). */
export function parseJsonBody(raw: Buffer | null): JsonObject {
  let value: unknown;
  try {
    value = JSON.parse(raw && raw.length > 0 ? raw.toString('utf8') : '');
  } catch (error) {
    throw new RelayError(400, `无效的请求, ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new RelayError(400, '无效的请求, json: cannot unmarshal into Go value of type dto.GeneralOpenAIRequest');
  }
  return value as JsonObject;
}

/** Audio transcriptions and translations: a multipart form; its fields stand in for the JSON body. */
export function parseAudioForm(raw: Buffer | null, contentType: string | undefined): { body: JsonObject; form: MultipartForm } {
  const boundary = multipartBoundary(contentType);
  if (!boundary) throw new RelayError(400, `无效的请求, Content-Type must be multipart/form-data`);
  let form: MultipartForm;
  try {
    form = parseMultipart(raw ?? Buffer.alloc(0), boundary);
  } catch (error) {
    if (error instanceof MultipartError) throw new RelayError(400, `无效的请求, ${error.message}`);
    throw error;
  }
  const body: JsonObject = {};
  for (const [name, value] of form.fields) if (!Object.hasOwn(body, name)) body[name] = value;
  return { body, form };
}

/** `/v1/engines/:model/embeddings`: the model named in the path (used when the body names none). */
export function engineModelOf(path: string): string | null {
  const match = /^\/v1\/engines\/([^/]+)\/embeddings$/.exec(path);
  if (!match) return null;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return match[1];
  }
}

function invalidAudio(message: string): RelayError {
  return new RelayError(400, message, 'new_api_error', { shape: 'relay', code: 'invalid_audio_request' });
}

/**
 * The audio checks (new-api's getAndValidAudioRequest, local 400 invalid_audio_request): the model must be named
 * (the default only serves channel selection), a transcription needs its file. new-api forwarded a
 * file-less form and charged the pre-consumed quota for the upstream's 400; here it is refused before admission.
 */
export function validateAudioRequest(mode: RelayMode, body: JsonObject, form: MultipartForm | null): void {
  if (typeof body.model !== 'string' || body.model === '') throw invalidAudio('model is required');
  if (mode === 'audio-speech') return;
  if (!form || !form.files.some((file) => file.field === 'file')) throw invalidAudio('file is required');
}

function invalidText(message: string): RelayError {
  return new RelayError(400, message, 'new_api_error', { shape: 'relay', code: 'invalid_text_request' });
}

const MAX_TOKENS_LIMIT = Math.floor(2147483647 / 2);

function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);
}

/** The text request checks new-api runs before anything else (local 400 invalid_text_request). */
export function validateTextRequest(mode: RelayMode, body: JsonObject, model: string): void {
  const maxTokens = body.max_tokens;
  if (maxTokens !== undefined && maxTokens !== null && (typeof maxTokens !== 'number' || maxTokens > MAX_TOKENS_LIMIT || maxTokens < 0)) {
    throw invalidText('max_tokens is invalid');
  }
  if (!model) throw invalidText('model is required');
  if (mode === 'completions' && isEmpty(body.prompt)) throw invalidText('field prompt is required');
  if (mode === 'chat' && (!Array.isArray(body.messages) || body.messages.length === 0)) throw invalidText('field messages is required');
  if ((mode === 'moderations' || mode === 'embeddings') && isEmpty(body.input)) throw invalidText('field input is required');
  if (mode === 'rerank' && (typeof body.query !== 'string' || body.query === '')) throw invalidText('field query is required');
  if (mode === 'rerank' && (!Array.isArray(body.documents) || body.documents.length === 0))
    throw invalidText('field documents is required');
  if (mode === 'audio-speech' && (typeof body.input !== 'string' || body.input === '')) throw invalidText('field input is required');
}

/** max_tokens (or max_completion_tokens) when the client bounded the answer, else null. */
export function maxTokensOf(body: JsonObject): number | null {
  const value = typeof body.max_tokens === 'number' ? body.max_tokens : body.max_completion_tokens;
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.trunc(value) : null;
}

/** Local prompt-token count by mode: tiktoken on the mode's input (rerank: query and documents), tts-*: characters. */
export function countPromptTokens(mode: RelayMode, body: JsonObject, model: string): number {
  switch (mode) {
    case 'chat':
      return countChatPromptTokens(body, model);
    case 'completions':
      return countInputTokens(body.prompt, model);
    case 'embeddings':
    case 'moderations':
      return countInputTokens(body.input, model);
    case 'audio-speech': {
      const input = typeof body.input === 'string' ? body.input : '';
      return model.startsWith('tts') ? [...input].length : countTextTokens(input, model);
    }
    case 'rerank': {
      let tokens = typeof body.query === 'string' ? countTextTokens(body.query, model) : 0;
      for (const document of Array.isArray(body.documents) ? body.documents : []) {
        if (typeof document === 'string') tokens += countTextTokens(document, model);
        else if (document && typeof document === 'object' && typeof (document as JsonObject).text === 'string')
          tokens += countTextTokens((document as JsonObject).text as string, model);
      }
      return tokens;
    }
    default:
      return 0;
  }
}
