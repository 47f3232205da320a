import OpenAI, { toFile } from 'openai';
import { countTextTokens } from '#server/relay/tokenizer/token-counter';
import type { TestApp } from '../support/app';
import { expectRelayError, type RelayRoutesContext, relayRoutesFixture, requestIdOf } from './relay-routes-support';
import { admission, chargeCount, chargesOf, userWithToken } from './relay-support';
import { dataSource, projected } from './users-support';
import { chargeOfRow } from '#test/support/quota-consumed-fixture';

jest.setTimeout(120_000);

/**
 * The media relay routes: images, audio speech, transcriptions and translations (multipart), through the official SDK
 * where it has the call. For each: new-api's status and shape for good and bad input, and the price; an
 * answered request is charged exactly once, a refused one not at all.
 */
describe('relay routes: images and audio', () => {
  const fixture = relayRoutesFixture();
  const { openai, audio } = fixture.context;
  const { post, nothingCharged } = fixture;
  let target: TestApp;
  let alice: RelayRoutesContext['alice'];
  let client: OpenAI;

  beforeAll(() => {
    ({ target, alice, client } = fixture.context);
  });

  describe('POST /v1/images/generations', () => {
    it('prices model, size, quality and n as new-api does and charges once', async () => {
      const hd = await client.images.generate({ model: 'dall-e-3', prompt: 'an otter', size: '1024x1792', quality: 'hd' }).withResponse();
      expect(hd.data.data?.[0].url).toMatch(/^https:\/\//);
      const [charge, ...more] = await chargesOf(target, requestIdOf(hd.response));
      expect(more).toHaveLength(0);
      // 0.04 × size 2 × quality 1.5 (tall hd) × n 1 = 0.12 dollars → 60 000 quota.
      expect(charge.data).toMatchObject({ modelName: 'dall-e-3', quota: 60_000, promptTokens: 1, completionTokens: 0, modelPrice: 0.12 });
      expect(charge.data.content).toMatch(/大小 1024x1792, 品质 hd$/);

      const square = await client.images.generate({ model: 'dall-e-3', prompt: 'an otter', quality: 'hd' }).withResponse();
      const [squareCharge] = await chargesOf(target, requestIdOf(square.response));
      expect(squareCharge.data).toMatchObject({ quota: 40_000 }); // 0.04 × 1 × 2

      // dall-e-2 has no price: 0.0025 × ratio 30 = 0.075, × size 0.45 × n 3 → 50 625.
      const small = await client.images.generate({ model: 'dall-e-2', prompt: 'an otter', size: '512x512', n: 3 }).withResponse();
      const [smallCharge] = await chargesOf(target, requestIdOf(small.response));
      expect(smallCharge.data).toMatchObject({ quota: 50_625, promptTokens: 3 });
      expect(openai.bodies().at(-1)).toMatchObject({ model: 'dall-e-2', n: 3, size: '512x512' });

      // No model: dall-e-2, as new-api defaults it (for selection and upstream alike).
      const unnamed = await post('/v1/images/generations', JSON.stringify({ prompt: 'an otter', size: '256x256' }));
      expect(unnamed.status).toBe(200);
      expect(openai.bodies().at(-1)).toMatchObject({ model: 'dall-e-2', prompt: 'an otter' });
      const [unnamedCharge] = await chargesOf(target, requestIdOf(unnamed));
      expect(unnamedCharge.data).toMatchObject({ modelName: 'dall-e-2', quota: 15_000 }); // 0.075 × 0.4

      await projected(target);
      const balance = await admission(target).available(alice.id, alice.tokenId);
      expect(balance.token).toBe(5_000_000 - (await sumCharges()));
    });

    it('refuses invalid sizes, n for dall-e-3, a missing prompt and malformed JSON, charging nothing', async () => {
      await nothingCharged(async () => {
        const invalid = { type: 'new_api_error', code: 'invalid_image_request' };
        await expectRelayError(
          await post('/v1/images/generations', JSON.stringify({ model: 'dall-e-2', prompt: 'x', size: '1024×1024' })),
          400,
          invalid,
        );
        await expectRelayError(
          await post('/v1/images/generations', JSON.stringify({ model: 'dall-e-2', prompt: 'x', size: '1792x1024' })),
          400,
          invalid,
        );
        await expectRelayError(
          await post('/v1/images/generations', JSON.stringify({ model: 'dall-e-3', prompt: 'x', n: 2 })),
          400,
          invalid,
        );
        await expectRelayError(await post('/v1/images/generations', JSON.stringify({ model: 'dall-e-3' })), 400, invalid);
        await expectRelayError(await post('/v1/images/generations', '[1,2]'), 400, { message: expect.stringMatching(/^无效的请求, /) });
        await expectRelayError(await post('/v1/images/generations', JSON.stringify({ model: 'dall-e-9', prompt: 'x' })), 503, {
          message: expect.stringMatching(/模型 dall-e-9 无可用渠道/),
        });
        const sdkError = await client.images
          .generate({ model: 'dall-e-3', prompt: 'x', size: '256x256' })
          .catch((caught: unknown) => caught);
        expect(sdkError).toBeInstanceOf(OpenAI.BadRequestError);
      });
    });
  });

  describe('POST /v1/audio/speech', () => {
    it('streams the binary answer through as it arrives and charges the input characters once', async () => {
      audio.chunks = 3;
      audio.chunkDelayMs = 400;
      const started = Date.now();
      const response = await client.audio.speech.create({ model: 'tts-1', input: 'Hello world', voice: 'alloy' }).asResponse();
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('audio/mpeg');
      const reader = response.body!.getReader();
      const pieces: Buffer[] = [];
      let firstAt = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (!firstAt) firstAt = Date.now() - started;
        pieces.push(Buffer.from(value));
      }
      const totalMs = Date.now() - started;
      expect(Buffer.concat(pieces).equals(audio.speechBytes())).toBe(true);
      // The first chunk reached the client long before the upstream sent its last one.
      expect(totalMs).toBeGreaterThanOrEqual(1000);
      expect(firstAt).toBeLessThan(totalMs - 500);

      const [charge, ...more] = await chargesOf(target, requestIdOf(response));
      expect(more).toHaveLength(0);
      // tts-*: prompt tokens are characters (11), ratio 7.5 → round(82.5) = 83.
      expect(charge.data).toMatchObject({ modelName: 'tts-1', promptTokens: 11, completionTokens: 0, quota: 83 });
      expect(JSON.parse(audio.requests.at(-1)!.raw.toString())).toEqual({ model: 'tts-1', input: 'Hello world', voice: 'alloy' });
    });

    it('an upstream that breaks off mid-file breaks the client off too, charged once', async () => {
      audio.chunkDelayMs = 20;
      audio.next({ cutAfterChunks: 1 });
      const response = await post('/v1/audio/speech', JSON.stringify({ model: 'tts-1', input: 'Hi', voice: 'alloy' }));
      expect(response.status).toBe(200);
      await expect(response.arrayBuffer()).rejects.toThrow();
      expect(await chargesOf(target, requestIdOf(response))).toHaveLength(1);
    });

    it('an upstream error before any audio is relayed with its status and charges nothing', async () => {
      await projected(target);
      const charges = await chargeCount(target);
      audio.next({ status: 400, body: { error: { message: 'Invalid voice', type: 'invalid_request_error', param: 'voice', code: null } } });
      const error = await client.audio.speech
        .create({ model: 'tts-1', input: 'Hi', voice: 'nobody' as never })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect((error as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({
        message: expect.stringMatching(/^Invalid voice \(request id: /),
        param: 'voice',
      });
      expect(await chargeCount(target)).toBe(charges);
    });

    it('reserves the whole input of a long text before the call, so a charge never exceeds what admission allowed', async () => {
      // 5 000 quota; tts-1 costs 7.5 per character. The 500-token default (3 750) would admit 1 000 characters
      // (7 500) and leave the balance at -2 500; the input is reserved whole instead.
      const carol = await userWithToken(target, 'carol', 5_000);
      const long = await post(
        '/v1/audio/speech',
        JSON.stringify({ model: 'tts-1', input: 'a'.repeat(1000), voice: 'alloy' }),
        {},
        carol.key,
      );
      await expectRelayError(long, 400, {
        code: 'insufficient_user_quota',
        message: expect.stringMatching(/^audio pre-consumed quota failed, user quota: 5000, need quota: 7500/),
      });
      expect(await chargesOf(target, requestIdOf(long))).toHaveLength(0);

      const fits = await post(
        '/v1/audio/speech',
        JSON.stringify({ model: 'tts-1', input: 'a'.repeat(600), voice: 'alloy' }),
        {},
        carol.key,
      );
      expect(fits.status).toBe(200);
      await fits.arrayBuffer();
      const [charge] = await chargesOf(target, requestIdOf(fits));
      expect(charge.data).toMatchObject({ promptTokens: 600, quota: 4_500 });
      await projected(target);
      expect((await admission(target).available(carol.id, null)).user).toBe(500);
    });

    it('refuses a missing model, a missing input and an unknown model, charging nothing', async () => {
      await nothingCharged(async () => {
        await expectRelayError(await post('/v1/audio/speech', JSON.stringify({ input: 'Hi', voice: 'alloy' })), 400, {
          code: 'invalid_audio_request',
          message: expect.stringMatching(/^model is required/),
        });
        await expectRelayError(await post('/v1/audio/speech', JSON.stringify({ model: 'tts-1', voice: 'alloy' })), 400, {
          code: 'invalid_text_request',
          message: expect.stringMatching(/^field input is required/),
        });
        await expectRelayError(await post('/v1/audio/speech', JSON.stringify({ model: 'tts-9', input: 'Hi' })), 503, {
          message: expect.stringMatching(/无可用渠道/),
        });
      });
    });
  });

  describe('POST /v1/audio/transcriptions and /v1/audio/translations (multipart)', () => {
    const speech = Buffer.from([0x49, 0x44, 0x33, 0x00, 0xff, 0xfb, 0x0d, 0x0a, 0x2d, 0x2d, 0xc3, 0x28, 0x00, 0x01]);

    it('forwards the whole form (every field, the file byte for byte) and bills the transcript once (json)', async () => {
      const { data, response } = await client.audio.transcriptions
        .create({
          file: await toFile(speech, 'speech.mp3', { type: 'audio/mpeg' }),
          model: 'whisper-1',
          language: 'en',
          prompt: 'Fox.',
          temperature: 0,
        })
        .withResponse();
      expect(data.text).toBe(audio.transcript);

      const upstream = audio.requests.at(-1)!;
      expect(upstream.url).toBe('/v1/audio/transcriptions');
      expect(upstream.headers.authorization).toBe('Bearer upstream-key');
      expect(upstream.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
      expect(upstream.fields).toMatchObject({ model: 'whisper-1', language: 'en', prompt: 'Fox.', temperature: '0' });
      expect(upstream.files).toHaveLength(1);
      expect(upstream.files[0]).toMatchObject({ field: 'file', name: 'speech.mp3', type: 'audio/mpeg' });
      expect(upstream.files[0].data.equals(speech)).toBe(true);

      const [charge, ...more] = await chargesOf(target, requestIdOf(response));
      expect(more).toHaveLength(0);
      const tokens = countTextTokens(audio.transcript, 'whisper-1');
      // new-api bills a transcription as prompt 0, completion = the transcript's tokens, whisper-1 ratio 15.
      expect(charge.data).toMatchObject({
        relayMode: 'audio-transcriptions',
        modelName: 'whisper-1',
        promptTokens: 0,
        completionTokens: tokens,
        quota: tokens * 15,
      });
    });

    it('answers text and srt formats as the upstream sent them, billing only the spoken text', async () => {
      const text = await client.audio.transcriptions
        .create({ file: await toFile(speech, 'speech.mp3'), model: 'whisper-1', response_format: 'text' })
        .withResponse();
      expect(text.data).toBe(`${audio.transcript}\n`);
      expect(text.response.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(audio.requests.at(-1)!.fields.response_format).toBe('text');
      const [textCharge] = await chargesOf(target, requestIdOf(text.response));
      expect(textCharge.data.completionTokens).toBe(countTextTokens(`${audio.transcript}\n`, 'whisper-1'));

      const srt = await client.audio.transcriptions
        .create({ file: await toFile(speech, 'speech.mp3'), model: 'whisper-1', response_format: 'srt' })
        .withResponse();
      expect(srt.data).toMatch(/^1\n00:00:00,000 --> 00:00:02,500\n/);
      const [srtCharge] = await chargesOf(target, requestIdOf(srt.response));
      expect(srtCharge.data.completionTokens).toBe(countTextTokens(audio.transcript, 'whisper-1'));
    });

    it('translates, maps the model inside the form, and uses the upstream token usage when it reports one', async () => {
      const translation = await client.audio.translations
        .create({ file: await toFile(speech, 'rede.mp3'), model: 'my-whisper', response_format: 'json' })
        .withResponse();
      expect(translation.data.text).toBe(audio.transcript);
      expect(audio.requests.at(-1)!.url).toBe('/v1/audio/translations');
      expect(audio.requests.at(-1)!.fields.model).toBe('whisper-1');
      const [charge] = await chargesOf(target, requestIdOf(translation.response));
      expect(charge.data).toMatchObject({ relayMode: 'audio-translations', modelName: 'my-whisper', upstreamModel: 'whisper-1' });

      const text = await client.audio.translations
        .create({ file: await toFile(speech, 'rede.mp3'), model: 'whisper-1', response_format: 'text' })
        .withResponse();
      expect(text.data).toBe(`${audio.transcript}\n`);
      expect(audio.requests.at(-1)!.fields).toMatchObject({ model: 'whisper-1', response_format: 'text' });
      const [textCharge, ...moreText] = await chargesOf(target, requestIdOf(text.response));
      expect(moreText).toHaveLength(0);
      expect(textCharge.data).toMatchObject({
        relayMode: 'audio-translations',
        promptTokens: 0,
        completionTokens: countTextTokens(`${audio.transcript}\n`, 'whisper-1'),
      });

      audio.tokenUsage = { input_tokens: 14, output_tokens: 9 };
      try {
        const usage = await client.audio.transcriptions
          .create({ file: await toFile(speech, 'a.mp3'), model: 'gpt-4o-transcribe' })
          .withResponse();
        const [usageCharge] = await chargesOf(target, requestIdOf(usage.response));
        expect(usageCharge.data).toMatchObject({ promptTokens: 14, completionTokens: 9 });
      } finally {
        audio.tokenUsage = null;
      }
    });

    it('refuses a JSON body, a broken form, a missing file or model, an unknown model and an over-sized body, charging nothing', async () => {
      await nothingCharged(async () => {
        const form = (entries: Record<string, string>, withFile = true) => {
          const data = new FormData();
          for (const [name, value] of Object.entries(entries)) data.append(name, value);
          if (withFile) data.append('file', new Blob([speech], { type: 'audio/mpeg' }), 'a.mp3');
          return data;
        };
        await expectRelayError(await post('/v1/audio/transcriptions', JSON.stringify({ model: 'whisper-1' })), 400, {
          type: 'new_api_error',
          message: expect.stringMatching(/^无效的请求, /),
        });
        await expectRelayError(
          await post('/v1/audio/transcriptions', Buffer.from('--b\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper-1'), {
            'content-type': 'multipart/form-data; boundary=b',
          }),
          400,
          { message: expect.stringMatching(/^无效的请求, multipart/) },
        );
        await expectRelayError(await post('/v1/audio/transcriptions', form({ model: 'whisper-1' }, false)), 400, {
          code: 'invalid_audio_request',
          message: expect.stringMatching(/^file is required/),
        });
        await expectRelayError(await post('/v1/audio/translations', form({})), 400, {
          code: 'invalid_audio_request',
          message: expect.stringMatching(/^model is required/),
        });
        await expectRelayError(await post('/v1/audio/translations', form({ model: 'whisper-9' })), 503, {
          message: expect.stringMatching(/^当前分组 default 下对于模型 whisper-9 无可用渠道/),
        });
        const huge = new FormData();
        huge.append('model', 'whisper-1');
        huge.append('file', new Blob([Buffer.alloc(33 * 1024 * 1024, 1)]), 'long.wav');
        await expectRelayError(await post('/v1/audio/transcriptions', huge), 413, {
          message: expect.stringMatching(/request body too large/),
        });
      });
    });
  });

  async function sumCharges(): Promise<number> {
    const rows: Array<{ event_id: string; stream_id: string; data: unknown }> = await dataSource(target).query(
      `SELECT event_id, stream_id, data FROM events WHERE type = 'QuotaConsumed'`,
    );
    return rows.map(chargeOfRow).reduce((total, charge) => (charge.tokenId === alice.tokenId ? total + charge.quota : total), 0);
  }
});
