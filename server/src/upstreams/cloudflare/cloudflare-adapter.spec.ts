import {
  channel,
  chatInput,
  dataEvents,
  everySplit,
  FIXED_CREATED as created,
  fixture,
  jsonAnswer,
  randomSplits,
  runStream,
  testSettings,
} from '../testing/upstream-test-kit';
import type { UpstreamRequestInput } from '../upstream-adapter';
import { ConvertRequestError, UnsupportedRelayModeError } from '../upstream-errors';
import { CloudflareAccountMissingError } from './cloudflare-api';
import { createCloudflareAdapter } from './cloudflare-adapter';

const cfChannel = channel({ type: 39, key: 'cf-token', baseUrl: null, other: 'acc123' });
const model = '@cf/meta/llama-3.1-8b-instruct';
const input = (overrides: Partial<UpstreamRequestInput> = {}) =>
  chatInput({
    channel: cfChannel,
    body: { model, messages: [{ role: 'user', content: 'Hi' }], temperature: 0 },
    upstreamModel: model,
    ...overrides,
  });
const completionInput = (isStream = false) =>
  input({
    relayMode: 'completions',
    path: '/v1/completions',
    body: { model, prompt: 'Why is the sky blue?', max_tokens: 30, temperature: 0, stream: isStream },
    isStream,
  });
const adapter = () => createCloudflareAdapter(testSettings());
const account = 'https://api.cloudflare.com/client/v4/accounts/acc123/ai';

describe('Cloudflare Workers AI adapter (type 39)', () => {
  describe('request', () => {
    it('sends chat and embeddings to the OpenAI-compatible endpoints of the account in `other`, with the token as Bearer', () => {
      const chat = adapter().buildRequest(input());
      expect(chat.url).toBe(`${account}/v1/chat/completions`);
      expect(chat.headers).toMatchObject({ authorization: 'Bearer cf-token', 'content-type': 'application/json' });
      expect(JSON.parse(Buffer.from(chat.body as Uint8Array).toString())).toMatchObject({ model, temperature: 0 });
      const embeddings = adapter().buildRequest(
        input({ relayMode: 'embeddings', path: '/v1/embeddings', body: { model: '@cf/baai/bge-base-en-v1.5', input: 'a' } }),
      );
      expect(embeddings.url).toBe(`${account}/v1/embeddings`);
      expect(adapter().buildRequest(input({ channel: { ...cfChannel, baseUrl: 'http://fake:1/' } })).url).toBe(
        'http://fake:1/client/v4/accounts/acc123/ai/v1/chat/completions',
      );
    });

    it('sends completions to /ai/run/{model} with the prompt', () => {
      const request = adapter().buildRequest(completionInput(true));
      expect(request.url).toBe(`${account}/run/@cf/meta/llama-3.1-8b-instruct`);
      expect(JSON.parse(request.body as string)).toEqual({ prompt: 'Why is the sky blue?', max_tokens: 30, temperature: 0, stream: true });
      expect(request.headers).toEqual({
        'content-type': 'application/json',
        authorization: 'Bearer cf-token',
        accept: 'text/event-stream',
      });
    });

    it('sends a transcription as the raw audio bytes to /ai/run/{model}', () => {
      const audio = new Uint8Array([1, 2, 3]);
      const request = adapter().buildRequest(
        input({
          relayMode: 'audio-transcriptions',
          path: '/v1/audio/transcriptions',
          body: undefined,
          upstreamModel: '@cf/openai/whisper',
          multipart: {
            fields: [['model', 'whisper-1']],
            files: [{ field: 'file', filename: 'a.mp3', contentType: 'audio/mpeg', data: audio }],
          },
        }),
      );
      expect(request.url).toBe(`${account}/run/@cf/openai/whisper`);
      expect(request.body).toBe(audio);
      expect(request.headers['content-type']).toBe('application/octet-stream');
      expect(() =>
        adapter().buildRequest(
          input({ relayMode: 'audio-transcriptions', path: '/v1/audio/transcriptions', multipart: { fields: [], files: [] } }),
        ),
      ).toThrow(ConvertRequestError);
    });

    it('fails locally without an account id, and for modes Workers AI has no endpoint for', () => {
      expect(() => adapter().buildRequest(input({ channel: { ...cfChannel, other: '' } }))).toThrow(CloudflareAccountMissingError);
      expect(() => adapter().buildRequest(input({ relayMode: 'rerank', path: '/v1/rerank' }))).toThrow(UnsupportedRelayModeError);
      expect(() => adapter().buildRequest(input({ relayMode: 'images-generations', path: '/v1/images/generations' }))).toThrow(
        UnsupportedRelayModeError,
      );
    });
  });

  describe('response', () => {
    it('keeps the embeddings answer (new-api parsed it as a chat answer and lost the vectors) with its usage', () => {
      const result = adapter().parseResponse(
        input({ relayMode: 'embeddings', path: '/v1/embeddings' }),
        jsonAnswer(fixture('cloudflare', 'embeddings.json')),
      );
      expect(result).toMatchObject({ ok: true, passthrough: true, usage: { prompt_tokens: 4, total_tokens: 4 } });
      expect(JSON.parse(Buffer.from((result as { body: Uint8Array }).body).toString()).data[0].embedding).toEqual([
        0.0123, -0.0456, 0.0789,
      ]);
    });

    it('converts a completions run result to a text_completion with its usage', () => {
      const result = adapter().parseResponse(completionInput(), jsonAnswer(fixture('cloudflare', 'completion.json')));
      expect(result).toMatchObject({ ok: true, usage: { prompt_tokens: 12, completion_tokens: 18, total_tokens: 30 } });
      expect(JSON.parse((result as { body: string }).body)).toEqual({
        id: 'cmpl-id1',
        object: 'text_completion',
        created,
        model,
        choices: [
          {
            index: 0,
            text: 'The sky is blue because molecules in the air scatter blue light more than red light.',
            logprobs: null,
            finish_reason: 'stop',
          },
        ],
        usage: { prompt_tokens: 12, completion_tokens: 18, total_tokens: 30 },
      });
    });

    it('answers a transcription as {text}, or as text or WebVTT when asked, counted locally', () => {
      const transcription = (format?: string) =>
        input({
          relayMode: 'audio-transcriptions',
          path: '/v1/audio/transcriptions',
          multipart: { fields: format ? [['response_format', format]] : [], files: [] },
        });
      expect(adapter().parseResponse(transcription(), jsonAnswer(fixture('cloudflare', 'transcription.json')))).toMatchObject({
        ok: true,
        body: '{"text":"Hello, world."}',
        usage: null,
        completionText: 'Hello, world.',
      });
      expect(adapter().parseResponse(transcription('text'), jsonAnswer(fixture('cloudflare', 'transcription.json')))).toMatchObject({
        body: 'Hello, world.',
        contentType: 'text/plain; charset=utf-8',
      });
      expect(adapter().parseResponse(transcription('vtt'), jsonAnswer(fixture('cloudflare', 'transcription.json')))).toMatchObject({
        body: expect.stringMatching(/^WEBVTT/),
      });
    });

    it('maps Cloudflare’s error envelope: Authentication error is 401 whatever the status, others keep theirs', () => {
      expect(adapter().mapError(403, fixture('cloudflare', 'error-auth.json'))).toEqual({
        ok: false,
        status: 401,
        error: { message: 'Authentication error', type: 'cloudflare_error', param: '', code: 10000 },
      });
      expect(adapter().parseResponse(input(), jsonAnswer(fixture('cloudflare', 'error-model.json'), 400))).toEqual({
        ok: false,
        status: 400,
        error: { message: 'No such model @cf/meta/llama-9 or task', type: 'cloudflare_error', param: '', code: 5007 },
      });
    });
  });

  it('keeps a rate limit at 429 with Cloudflare’s message', () => {
    const body = Buffer.from(
      JSON.stringify({
        result: null,
        success: false,
        errors: [{ code: 3040, message: 'Capacity temporarily exceeded, please try again.' }],
      }),
    );
    expect(adapter().mapError(429, body)).toEqual({
      ok: false,
      status: 429,
      error: { message: 'Capacity temporarily exceeded, please try again.', type: 'cloudflare_error', param: '', code: 3040 },
    });
  });

  describe('completions stream', () => {
    it('turns run events into text_completion chunks with the reported usage, then [DONE]', () => {
      const run = runStream(adapter().createStreamTransformer({ ...completionInput(true), clientWantsUsage: true }), [
        fixture('cloudflare', 'completion-stream.sse'),
      ]);
      const identity = { id: 'cmpl-id1', object: 'text_completion', created, model };
      const chunk = (text: string, finish: string | null = null) => ({
        ...identity,
        choices: [{ index: 0, text, logprobs: null, finish_reason: finish }],
      });
      expect(dataEvents(run.output)).toEqual([
        chunk('The'),
        chunk(' sky is'),
        chunk(' blue 🌤'),
        chunk('', 'stop'),
        { ...identity, system_fingerprint: null, choices: [], usage: { prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 } },
        '[DONE]',
      ]);
    });

    it('gives the same output however the bytes are split, and a body cut before [DONE] is a cut', () => {
      const bytes = fixture('cloudflare', 'completion-stream.sse');
      const whole = runStream(adapter().createStreamTransformer(completionInput(true)), [bytes]);
      for (const pieces of everySplit(bytes))
        expect(runStream(adapter().createStreamTransformer(completionInput(true)), pieces)).toEqual(whole);
      for (const pieces of randomSplits(bytes, 20))
        expect(runStream(adapter().createStreamTransformer(completionInput(true)), pieces)).toEqual(whole);
      const cut = runStream(adapter().createStreamTransformer(completionInput(true)), [bytes.subarray(0, bytes.indexOf('[DONE]'))]);
      expect(cut.summary).toMatchObject({ end: 'cut', completionText: 'The sky is blue 🌤' });
    });
  });
});
