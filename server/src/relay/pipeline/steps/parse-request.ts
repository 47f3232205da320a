import type { OptionsService } from '#server/modules/options/index';
import type { JsonObject, MultipartForm, RelayMode } from '#server/upstreams/upstream-adapter';
import { RelayError } from '../../relay-error';
import { parseAudioForm, parseJsonBody, validateAudioRequest, validateTextRequest } from '../relay-request';
import { findSensitiveWords, sensitiveWordList } from '../sensitive-words';
import { relayLocal } from './error-answer';
import { header, type RelayContext, type RelayHttpRequest } from './relay-context';

/** JSON for every mode but audio uploads (multipart); the playground answers its own code, as new-api's does. */
export function parseBody(
  request: RelayHttpRequest,
  mode: RelayMode,
  playground: boolean,
): { body: JsonObject; multipart: MultipartForm | null } {
  if (mode === 'audio-transcriptions' || mode === 'audio-translations') {
    const { body, form } = parseAudioForm(request.rawBody, header(request.headers, 'content-type'));
    return { body, multipart: form };
  }
  try {
    return { body: parseJsonBody(request.rawBody), multipart: null };
  } catch (error) {
    if (playground && error instanceof RelayError) throw relayLocal(400, error.message, 'unmarshal_request_failed');
    throw error;
  }
}

/** The mode's required fields, each mode answering its own error code. */
export function validateRequest(context: RelayContext): void {
  const { mode, body } = context;
  if (mode === 'images-generations') {
    if (!context.model) throw relayLocal(400, 'model is required', 'invalid_image_request');
  } else if (mode === 'audio-transcriptions' || mode === 'audio-translations') {
    validateAudioRequest(mode, body, context.multipart);
  } else {
    if (mode === 'audio-speech') validateAudioRequest(mode, body, null);
    validateTextRequest(mode, body, context.model);
  }
}

/**
 * Prompt-side sensitive words, when CheckSensitiveEnabled and CheckSensitiveOnPromptEnabled are
 * both on: options from memory, the list compiled once per option value. Text modes and text to speech answer a
 * local 400 `sensitive_words_detected`, images 400 `invalid_image_request`.
 */
export function checkSensitiveWords(options: OptionsService, context: RelayContext): void {
  if (!options.getBool('CheckSensitiveEnabled') || !options.getBool('CheckSensitiveOnPromptEnabled')) return;
  const words = findSensitiveWords(context.mode, context.body, sensitiveWordList(options.get('SensitiveWords')));
  if (words === null) return;
  const code = context.mode === 'images-generations' ? 'invalid_image_request' : 'sensitive_words_detected';
  throw relayLocal(400, `sensitive words: ${words.join(',')}`, code);
}
