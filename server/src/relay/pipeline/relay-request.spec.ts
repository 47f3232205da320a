import { RelayError } from '../relay-error';
import {
  countPromptTokens,
  defaultModelFor,
  engineModelOf,
  maxTokensOf,
  parseAudioForm,
  parseJsonBody,
  relayModeOf,
  validateAudioRequest,
  validateTextRequest,
} from './relay-request';

function relayErrorOf(run: () => unknown): RelayError {
  try {
    run();
  } catch (error) {
    if (error instanceof RelayError) return error;
    throw error;
  }
  throw new Error('expected a RelayError');
}

describe('relay request parsing and validation', () => {
  it('maps paths to relay modes and default models', () => {
    expect(relayModeOf('/v1/chat/completions')).toBe('chat');
    expect(relayModeOf('/pg/chat/completions')).toBe('chat');
    expect(relayModeOf('/v1/engines/text-embedding-ada-002/embeddings')).toBe('embeddings');
    expect(relayModeOf('/v1/unknown')).toBeNull();
    expect(defaultModelFor('moderations')).toBe('text-moderation-stable');
    expect(defaultModelFor('audio-speech')).toBe('tts-1');
  });

  it('answers a malformed body with the Distribute 400 in the abort shape', () => {
    const error = relayErrorOf(() => parseJsonBody(Buffer.from('{"model":')));
    expect(error.status).toBe(400);
    expect(error.toBody('r1').error).toEqual({
      message: expect.stringMatching(/^无效的请求, .* \(request id: r1\)$/),
      type: 'new_api_error',
    });
    expect(relayErrorOf(() => parseJsonBody(Buffer.from('[1]'))).status).toBe(400);
    expect(parseJsonBody(Buffer.from('{"temperature":0}'))).toEqual({ temperature: 0 });
  });

  it('validates text requests with invalid_text_request', () => {
    const missingMessages = relayErrorOf(() => validateTextRequest('chat', { model: 'gpt-4' }, 'gpt-4'));
    expect(missingMessages.toBody('r').error).toEqual({
      message: 'field messages is required (request id: r)',
      type: 'new_api_error',
      param: '',
      code: 'invalid_text_request',
    });
    expect(relayErrorOf(() => validateTextRequest('chat', { messages: [{}] }, '')).message).toBe('model is required');
    expect(relayErrorOf(() => validateTextRequest('completions', { model: 'm' }, 'm')).message).toBe('field prompt is required');
    expect(relayErrorOf(() => validateTextRequest('embeddings', { model: 'm' }, 'm')).message).toBe('field input is required');
    expect(relayErrorOf(() => validateTextRequest('chat', { messages: [{}], max_tokens: 2 ** 31 }, 'm')).message).toBe(
      'max_tokens is invalid',
    );
    expect(() => validateTextRequest('chat', { messages: [{ role: 'user', content: 'x' }], max_tokens: 10 }, 'm')).not.toThrow();
  });

  it('reads max_tokens and counts prompts by mode', () => {
    expect(maxTokensOf({ max_tokens: 100 })).toBe(100);
    expect(maxTokensOf({ max_completion_tokens: 50 })).toBe(50);
    expect(maxTokensOf({ max_tokens: 0 })).toBeNull();
    expect(countPromptTokens('audio-speech', { input: '你好 world' }, 'tts-1')).toBe(8);
    expect(countPromptTokens('rerank', { query: 'hello world', documents: ['hello world', { text: 'hello world' }] }, 'rerank')).toBe(6);
  });

  it('reads the engines path model and the audio form, and checks audio requests', () => {
    expect(engineModelOf('/v1/engines/text-embedding-ada-002/embeddings')).toBe('text-embedding-ada-002');
    expect(engineModelOf('/v1/engines/a%2Fb/embeddings')).toBe('a/b');
    expect(engineModelOf('/v1/embeddings')).toBeNull();

    const body = Buffer.from(
      '--b\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper-1\r\n--b\r\nContent-Disposition: form-data; name="file"; filename="a.mp3"\r\n\r\nxyz\r\n--b--\r\n',
    );
    const { body: fields, form } = parseAudioForm(body, 'multipart/form-data; boundary=b');
    expect(fields).toEqual({ model: 'whisper-1' });
    expect(() => validateAudioRequest('audio-transcriptions', fields, form)).not.toThrow();
    expect(relayErrorOf(() => validateAudioRequest('audio-transcriptions', fields, { fields: form.fields, files: [] }))).toMatchObject({
      status: 400,
      code: 'invalid_audio_request',
      message: 'file is required',
    });
    expect(relayErrorOf(() => validateAudioRequest('audio-speech', {}, null))).toMatchObject({
      status: 400,
      code: 'invalid_audio_request',
      message: 'model is required',
    });
    expect(relayErrorOf(() => parseAudioForm(body, 'application/json'))).toMatchObject({ status: 400, shape: 'abort' });
    expect(relayErrorOf(() => parseAudioForm(Buffer.from('--b\r\n'), 'multipart/form-data; boundary=b')).message).toMatch(
      /^无效的请求, multipart/,
    );
  });
});
