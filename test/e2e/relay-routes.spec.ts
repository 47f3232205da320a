import OpenAI, { toFile } from 'openai';
import { countInputTokens, countTextTokens } from '../../server/src/relay/tokenizer/token-counter';
import { OpenAIAudioUpstreamFake } from '../fakes/upstreams/openai-audio-upstream-fake';
import { OpenAIUpstreamFake } from '../fakes/upstreams/openai-upstream-fake';
import { createTestApp, type TestApp } from '../support/app';
import { admission, chargeCount, chargesOf, createChannel, listen, routable, sdk, userWithToken } from './relay-support';
import { type Caller, dataSource, projected, rootCaller, setOptions } from './users-support';

jest.setTimeout(120_000);

/**
 * Every relay route besides chat, completions and embeddings (those are in relay-openai.spec.ts): models/:model,
 * moderations, images, audio speech, transcriptions and translations (multipart), rerank, engines embeddings, the
 * playground and the 501 routes, through the official SDK where it has the call. For each: the reference's
 * status and shape for good and bad input; an answered request is charged exactly once, a refused one not at all.
 */
describe('relay routes', () => {
  let target: TestApp;
  let baseURL: string;
  let origin: string;
  let root: Caller;
  const openai = new OpenAIUpstreamFake();
  const audio = new OpenAIAudioUpstreamFake();
  let alice: Caller & { key: string; tokenId: number };
  let client: OpenAI;

  beforeAll(async () => {
    await Promise.all([openai.start(), audio.start()]);
    target = await createTestApp();
    baseURL = await listen(target);
    origin = baseURL.replace(/\/v1$/, '');
    root = await rootCaller(target);
    await createChannel(target, root, {
      type: 1,
      name: 'fake-openai',
      baseUrl: openai.baseUrl,
      models: ['gpt-3.5-turbo', 'text-embedding-ada-002', 'text-moderation-stable', 'omni-moderation-latest', 'dall-e-2', 'dall-e-3'],
    });
    await createChannel(target, root, {
      type: 1,
      name: 'fake-openai-audio',
      baseUrl: audio.baseUrl,
      models: ['whisper-1', 'tts-1', 'gpt-4o-transcribe', 'my-whisper'],
      modelMapping: { 'my-whisper': 'whisper-1' },
    });
    await createChannel(target, root, { type: 38, name: 'fake-jina', baseUrl: openai.baseUrl, models: ['jina-reranker-v2-base-multilingual'] });
    await createChannel(target, root, { type: 1, name: 'fake-openai-vip', baseUrl: openai.baseUrl, models: ['gpt-4o-mini'], group: 'vip' });
    alice = await userWithToken(target, 'alice', 10_000_000, { unlimited_quota: false, remain_quota: 5_000_000 });
    client = sdk(baseURL, alice.key);
    await routable(target, alice.key, baseURL, 'jina-reranker-v2-base-multilingual');
  });

  afterAll(async () => {
    await target?.close();
    await Promise.all([openai.close(), audio.close()]);
  });

  const requestIdOf = (response: { headers: Headers }) => response.headers.get('x-oneapi-request-id')!;

  async function post(path: string, body: string | Buffer | FormData, headers: Record<string, string> = {}, key = alice.key) {
    const sent: Record<string, string> = { authorization: `Bearer ${key}` };
    // A FormData body sets its own multipart Content-Type (with the boundary).
    if (typeof body === 'string' || Buffer.isBuffer(body)) sent['content-type'] = 'application/json';
    return fetch(`${origin}${path}`, { method: 'POST', headers: { ...sent, ...headers }, body });
  }

  /**
   * Runs `refused` requests and checks that none reached an upstream, appended a QuotaConsumed or kept quota
   * reserved. Admission's figure can move for a moment after earlier requests (an idle quota block drains back to
   * Redis), so it is read once it holds still, and compared until it matches again: a request that charged or leaked
   * a reservation leaves it lower for good.
   */
  async function nothingCharged(refused: () => Promise<void>): Promise<void> {
    await projected(target);
    const charges = await chargeCount(target);
    const upstreamCalls = openai.requests.length + audio.requests.length;
    // Three reads 100 ms apart that agree (at most 5 s).
    const available = await availableWhen((_now, same) => same >= 2, 50);
    await refused();
    expect(await chargeCount(target)).toBe(charges);
    expect(openai.requests.length + audio.requests.length).toBe(upstreamCalls);
    // Back to the figure before (at most 3 s); a charge or a leaked reservation keeps it lower.
    expect(await availableWhen((now) => sameAvailable(now, available), 30)).toEqual(available);
  }

  type Available = { user: number; token: number | null };
  const sameAvailable = (a: Available, b: Available) => a.user === b.user && a.token === b.token;

  /** Alice's available quota, read every 100 ms until `done(latest, reads in a row that agreed)` or `tries` run out. */
  async function availableWhen(done: (now: Available, same: number) => boolean, tries: number): Promise<Available> {
    let last = await admission(target).available(alice.id, alice.tokenId);
    for (let same = 0, n = 0; n < tries && !done(last, same); n++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const now = await admission(target).available(alice.id, alice.tokenId);
      same = sameAvailable(now, last) ? same + 1 : 0;
      last = now;
    }
    return last;
  }

  async function expectRelayError(response: Response, status: number, error: Record<string, unknown>): Promise<void> {
    const body = (await response.json()) as { error: Record<string, unknown> };
    expect({ status: response.status, error: body.error }).toMatchObject({ status, error });
    expect(String(body.error.message)).toMatch(new RegExp(`\\(request id: ${requestIdOf(response)}\\)$`));
  }

  describe('GET /v1/models/:model', () => {
    it('answers a catalogue model in the OpenAI shape, and 200 with model_not_found for an unknown one', async () => {
      const model = await client.models.retrieve('gpt-3.5-turbo');
      expect(model).toMatchObject({ id: 'gpt-3.5-turbo', object: 'model', created: 1626777600, owned_by: 'openai', root: 'gpt-3.5-turbo', parent: null });

      const unknown = await fetch(`${baseURL}/models/no-such-model`, { headers: { authorization: `Bearer ${alice.key}` } });
      expect(unknown.status).toBe(200);
      expect(await unknown.json()).toEqual({
        error: { message: "The model 'no-such-model' does not exist", type: 'invalid_request_error', param: 'model', code: 'model_not_found' },
      });

      const noToken = await fetch(`${baseURL}/models/gpt-3.5-turbo`);
      expect(noToken.status).toBe(401);
      expect(await noToken.json()).toEqual({ error: { message: expect.stringMatching(/^未提供令牌 \(request id: /), type: 'new_api_error' } });
    });

    it('looks in the adaptors\' model lists, not in the pricing tables', async () => {
      // dall-e-2 is in OpenAI's list but has no model ratio; gpt-4-all has a ratio but no adaptor lists it.
      expect(await client.models.retrieve('dall-e-2')).toMatchObject({ id: 'dall-e-2', object: 'model', owned_by: 'openai' });
      expect(await client.models.retrieve('claude-instant-1.2')).toMatchObject({ id: 'claude-instant-1.2', owned_by: 'claude' });
      const priced = await fetch(`${baseURL}/models/gpt-4-all`, { headers: { authorization: `Bearer ${alice.key}` } });
      expect(priced.status).toBe(200);
      expect(await priced.json()).toMatchObject({ error: { code: 'model_not_found', message: "The model 'gpt-4-all' does not exist" } });
    });
  });

  describe('GET /dashboard/billing/subscription and /usage (also under /v1)', () => {
    it('answers the token\'s figures (DisplayTokenStatEnabled), or the user\'s, in dollars or raw quota, and charges nothing', async () => {
      const bob = await userWithToken(target, 'bill-bob', 2_000_000, { unlimited_quota: false, remain_quota: 1_000_000 });
      const get = async (path: string, key = bob.key) => {
        const response = await fetch(`${origin}${path}`, { headers: { authorization: `Bearer ${key}` } });
        return { status: response.status, body: (await response.json()) as Record<string, unknown> };
      };
      const chargesBefore = await chargeCount(target);
      const subscription = { object: 'billing_subscription', has_payment_method: true, soft_limit_usd: 2, hard_limit_usd: 2, system_hard_limit_usd: 2, access_until: 0 };
      expect(await get('/v1/dashboard/billing/subscription')).toEqual({ status: 200, body: subscription });
      expect(await get('/dashboard/billing/subscription')).toEqual({ status: 200, body: subscription });
      expect(await get('/dashboard/billing/usage')).toEqual({ status: 200, body: { object: 'list', total_usage: 0 } });
      expect(await chargeCount(target)).toBe(chargesBefore);

      // One answered request: the token's used quota grows, its remain shrinks, remain + used stays the limit.
      await sdk(baseURL, bob.key).chat.completions.create({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] });
      await projected(target);
      const [row] = await dataSource(target).query('SELECT used_quota FROM token_balances WHERE token_id = $1', [bob.tokenId]);
      const used = Number(row.used_quota);
      expect(used).toBeGreaterThan(0);
      expect(await get('/v1/dashboard/billing/usage')).toEqual({ status: 200, body: { object: 'list', total_usage: (used / 500_000) * 100 } });
      expect((await get('/v1/dashboard/billing/subscription')).body).toMatchObject({ hard_limit_usd: 2 });

      // The user's figures: quota 2,000,000 − used, plus used.
      await setOptions(target, { DisplayTokenStatEnabled: 'false' });
      try {
        expect((await get('/v1/dashboard/billing/subscription')).body).toMatchObject({ hard_limit_usd: 4, soft_limit_usd: 4 });
        await setOptions(target, { DisplayInCurrencyEnabled: 'false' });
        expect((await get('/v1/dashboard/billing/subscription')).body).toMatchObject({ hard_limit_usd: 2_000_000 });
        expect(await get('/dashboard/billing/usage')).toEqual({ status: 200, body: { object: 'list', total_usage: used * 100 } });
      } finally {
        await setOptions(target, { DisplayTokenStatEnabled: 'true', DisplayInCurrencyEnabled: 'true' });
      }

      // An unlimited token reports 100000000; a bad key gets TokenAuth's 401 in the middleware shape.
      const unlimited = await userWithToken(target, 'bill-carol', 1_000_000);
      expect((await get('/dashboard/billing/subscription', unlimited.key)).body).toMatchObject({ hard_limit_usd: 100000000, access_until: 0 });
      expect(await get('/dashboard/billing/usage', 'sk-nope')).toEqual({
        status: 401,
        body: { error: { message: expect.stringMatching(/^无效的令牌 \(request id: /), type: 'new_api_error' } },
      });
    });
  });

  describe('POST /v1/moderations', () => {
    it('selects by text-moderation-stable, sends text-moderation-latest upstream when no model is named, and charges once', async () => {
      const before = openai.requests.length;
      const { data, response } = await client.moderations.create({ input: 'I want to hug you' }).withResponse();
      expect(data.results[0].flagged).toBe(false);
      expect(openai.bodies()[before]).toMatchObject({ model: 'text-moderation-latest', input: 'I want to hug you' });
      const charges = await chargesOf(target, requestIdOf(response));
      expect(charges).toHaveLength(1);
      // The fixture reports no usage: the input is counted locally (ratio 0.1).
      const tokens = countInputTokens('I want to hug you', 'text-moderation-latest');
      expect(charges[0].data).toMatchObject({ modelName: 'text-moderation-stable', upstreamModel: 'text-moderation-latest', promptTokens: tokens, quota: Math.round(tokens * 0.1) || 1 });

      const named = await client.moderations.create({ model: 'omni-moderation-latest', input: ['a', 'b'] }).withResponse();
      expect(openai.bodies().at(-1)).toMatchObject({ model: 'omni-moderation-latest', input: ['a', 'b'] });
      expect(await chargesOf(target, requestIdOf(named.response))).toHaveLength(1);
    });

    it('refuses a missing input, malformed JSON and an unknown model, charging nothing', async () => {
      await nothingCharged(async () => {
        await expectRelayError(await post('/v1/moderations', '{}'), 400, { type: 'new_api_error', code: 'invalid_text_request', message: expect.stringMatching(/^field input is required/) });
        await expectRelayError(await post('/v1/moderations', '{"input": "x",'), 400, { type: 'new_api_error', message: expect.stringMatching(/^无效的请求, /) });
        await expectRelayError(await post('/v1/moderations', JSON.stringify({ model: 'nope', input: 'x' })), 503, {
          message: expect.stringMatching(/^当前分组 default 下对于模型 nope 无可用渠道/),
        });
      });
    });
  });

  describe('POST /v1/images/generations', () => {
    it('prices model, size, quality and n as the reference does and charges once', async () => {
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

      // No model: dall-e-2, as the reference defaults it (for selection and upstream alike).
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
        await expectRelayError(await post('/v1/images/generations', JSON.stringify({ model: 'dall-e-2', prompt: 'x', size: '1024×1024' })), 400, invalid);
        await expectRelayError(await post('/v1/images/generations', JSON.stringify({ model: 'dall-e-2', prompt: 'x', size: '1792x1024' })), 400, invalid);
        await expectRelayError(await post('/v1/images/generations', JSON.stringify({ model: 'dall-e-3', prompt: 'x', n: 2 })), 400, invalid);
        await expectRelayError(await post('/v1/images/generations', JSON.stringify({ model: 'dall-e-3' })), 400, invalid);
        await expectRelayError(await post('/v1/images/generations', '[1,2]'), 400, { message: expect.stringMatching(/^无效的请求, /) });
        await expectRelayError(await post('/v1/images/generations', JSON.stringify({ model: 'dall-e-9', prompt: 'x' })), 503, { message: expect.stringMatching(/模型 dall-e-9 无可用渠道/) });
        const sdkError = await client.images.generate({ model: 'dall-e-3', prompt: 'x', size: '256x256' }).catch((caught: unknown) => caught);
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
      const error = await client.audio.speech.create({ model: 'tts-1', input: 'Hi', voice: 'nobody' as never }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect((error as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ message: expect.stringMatching(/^Invalid voice \(request id: /), param: 'voice' });
      expect(await chargeCount(target)).toBe(charges);
    });

    it('reserves the whole input of a long text before the call, so a charge never exceeds what admission allowed', async () => {
      // 5 000 quota; tts-1 costs 7.5 per character. The 500-token default (3 750) would admit 1 000 characters
      // (7 500) and leave the balance at -2 500; the input is reserved whole instead.
      const carol = await userWithToken(target, 'carol', 5_000);
      const long = await post('/v1/audio/speech', JSON.stringify({ model: 'tts-1', input: 'a'.repeat(1000), voice: 'alloy' }), {}, carol.key);
      await expectRelayError(long, 400, { code: 'insufficient_user_quota', message: expect.stringMatching(/^audio pre-consumed quota failed, user quota: 5000, need quota: 7500/) });
      expect(await chargesOf(target, requestIdOf(long))).toHaveLength(0);

      const fits = await post('/v1/audio/speech', JSON.stringify({ model: 'tts-1', input: 'a'.repeat(600), voice: 'alloy' }), {}, carol.key);
      expect(fits.status).toBe(200);
      await fits.arrayBuffer();
      const [charge] = await chargesOf(target, requestIdOf(fits));
      expect(charge.data).toMatchObject({ promptTokens: 600, quota: 4_500 });
      await projected(target);
      expect((await admission(target).available(carol.id, null)).user).toBe(500);
    });

    it('refuses a missing model, a missing input and an unknown model, charging nothing', async () => {
      await nothingCharged(async () => {
        await expectRelayError(await post('/v1/audio/speech', JSON.stringify({ input: 'Hi', voice: 'alloy' })), 400, { code: 'invalid_audio_request', message: expect.stringMatching(/^model is required/) });
        await expectRelayError(await post('/v1/audio/speech', JSON.stringify({ model: 'tts-1', voice: 'alloy' })), 400, { code: 'invalid_text_request', message: expect.stringMatching(/^field input is required/) });
        await expectRelayError(await post('/v1/audio/speech', JSON.stringify({ model: 'tts-9', input: 'Hi' })), 503, { message: expect.stringMatching(/无可用渠道/) });
      });
    });
  });

  describe('POST /v1/audio/transcriptions and /v1/audio/translations (multipart)', () => {
    const speech = Buffer.from([0x49, 0x44, 0x33, 0x00, 0xff, 0xfb, 0x0d, 0x0a, 0x2d, 0x2d, 0xc3, 0x28, 0x00, 0x01]);

    it('forwards the whole form (every field, the file byte for byte) and bills the transcript once (json)', async () => {
      const { data, response } = await client.audio.transcriptions
        .create({ file: await toFile(speech, 'speech.mp3', { type: 'audio/mpeg' }), model: 'whisper-1', language: 'en', prompt: 'Fox.', temperature: 0 })
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
      // Reference §4.4: prompt 0, completion = the transcript's tokens, whisper-1 ratio 15.
      expect(charge.data).toMatchObject({ relayMode: 'audio-transcriptions', modelName: 'whisper-1', promptTokens: 0, completionTokens: tokens, quota: tokens * 15 });
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

      const srt = await client.audio.transcriptions.create({ file: await toFile(speech, 'speech.mp3'), model: 'whisper-1', response_format: 'srt' }).withResponse();
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

      const text = await client.audio.translations.create({ file: await toFile(speech, 'rede.mp3'), model: 'whisper-1', response_format: 'text' }).withResponse();
      expect(text.data).toBe(`${audio.transcript}\n`);
      expect(audio.requests.at(-1)!.fields).toMatchObject({ model: 'whisper-1', response_format: 'text' });
      const [textCharge, ...moreText] = await chargesOf(target, requestIdOf(text.response));
      expect(moreText).toHaveLength(0);
      expect(textCharge.data).toMatchObject({ relayMode: 'audio-translations', promptTokens: 0, completionTokens: countTextTokens(`${audio.transcript}\n`, 'whisper-1') });

      audio.tokenUsage = { input_tokens: 14, output_tokens: 9 };
      try {
        const usage = await client.audio.transcriptions.create({ file: await toFile(speech, 'a.mp3'), model: 'gpt-4o-transcribe' }).withResponse();
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
        await expectRelayError(await post('/v1/audio/transcriptions', JSON.stringify({ model: 'whisper-1' })), 400, { type: 'new_api_error', message: expect.stringMatching(/^无效的请求, /) });
        await expectRelayError(
          await post('/v1/audio/transcriptions', Buffer.from('--b\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper-1'), { 'content-type': 'multipart/form-data; boundary=b' }),
          400,
          { message: expect.stringMatching(/^无效的请求, multipart/) },
        );
        await expectRelayError(await post('/v1/audio/transcriptions', form({ model: 'whisper-1' }, false)), 400, { code: 'invalid_audio_request', message: expect.stringMatching(/^file is required/) });
        await expectRelayError(await post('/v1/audio/translations', form({})), 400, { code: 'invalid_audio_request', message: expect.stringMatching(/^model is required/) });
        await expectRelayError(await post('/v1/audio/translations', form({ model: 'whisper-9' })), 503, { message: expect.stringMatching(/^当前分组 default 下对于模型 whisper-9 无可用渠道/) });
        const huge = new FormData();
        huge.append('model', 'whisper-1');
        huge.append('file', new Blob([Buffer.alloc(33 * 1024 * 1024, 1)]), 'long.wav');
        await expectRelayError(await post('/v1/audio/transcriptions', huge), 413, { message: expect.stringMatching(/request body too large/) });
      });
    });
  });

  describe('POST /v1/rerank', () => {
    it('relays to a rerank channel and bills the upstream usage once', async () => {
      const before = openai.requests.length;
      const body = { model: 'jina-reranker-v2-base-multilingual', query: 'Organic skincare', documents: ['Eco-friendly kitchenware', 'Organic skincare for sensitive skin'], top_n: 1 };
      const response = await post('/v1/rerank', JSON.stringify(body));
      expect(response.status).toBe(200);
      const answer = (await response.json()) as { results: Array<{ index: number }> };
      expect(answer.results.length).toBeGreaterThan(0);
      expect(openai.requests[before].url).toBe('/v1/rerank');
      expect(openai.bodies()[before]).toEqual(body);
      const [charge, ...more] = await chargesOf(target, requestIdOf(response));
      expect(more).toHaveLength(0);
      expect(charge.data).toMatchObject({ modelName: 'jina-reranker-v2-base-multilingual', relayMode: 'rerank', promptTokens: 38 });
    });

    it('refuses a missing query or documents, a missing or unknown model, charging nothing', async () => {
      await nothingCharged(async () => {
        const invalid = { code: 'invalid_text_request' };
        await expectRelayError(await post('/v1/rerank', JSON.stringify({ model: 'jina-reranker-v2-base-multilingual', documents: ['a'] })), 400, { ...invalid, message: expect.stringMatching(/^field query is required/) });
        await expectRelayError(await post('/v1/rerank', JSON.stringify({ model: 'jina-reranker-v2-base-multilingual', query: 'q', documents: [] })), 400, { ...invalid, message: expect.stringMatching(/^field documents is required/) });
        await expectRelayError(await post('/v1/rerank', JSON.stringify({ query: 'q', documents: ['a'] })), 400, { ...invalid, message: expect.stringMatching(/^model is required/) });
        await expectRelayError(await post('/v1/rerank', JSON.stringify({ model: 'rerank-nope', query: 'q', documents: ['a'] })), 503, { message: expect.stringMatching(/无可用渠道/) });
      });
    });
  });

  describe('POST /v1/engines/:model/embeddings', () => {
    it('takes the model from the path when the body names none, forwards to the same path and charges once', async () => {
      const before = openai.requests.length;
      const response = await post('/v1/engines/text-embedding-ada-002/embeddings', JSON.stringify({ input: 'hello' }));
      expect(response.status).toBe(200);
      expect(((await response.json()) as { data: unknown[] }).data).toHaveLength(1);
      expect(openai.requests[before].url).toBe('/v1/engines/text-embedding-ada-002/embeddings');
      expect(openai.bodies()[before]).toEqual({ input: 'hello', model: 'text-embedding-ada-002' });
      const [charge, ...more] = await chargesOf(target, requestIdOf(response));
      expect(more).toHaveLength(0);
      expect(charge.data).toMatchObject({ modelName: 'text-embedding-ada-002', promptTokens: openai.promptTokens });
    });

    it('refuses a missing input and an unknown model in the path, charging nothing', async () => {
      await nothingCharged(async () => {
        await expectRelayError(await post('/v1/engines/text-embedding-ada-002/embeddings', '{}'), 400, { code: 'invalid_text_request' });
        await expectRelayError(await post('/v1/engines/nope/embeddings', JSON.stringify({ input: 'x' })), 503, { message: expect.stringMatching(/模型 nope 无可用渠道/) });
      });
    });
  });

  describe('POST /pg/chat/completions', () => {
    let session: { cookie: string; id: string };

    beforeAll(async () => {
      const login = await target.http().post('/api/user/login').send({ username: 'alice', password: 'password123' });
      expect(login.body.success).toBe(true);
      const cookies = login.headers['set-cookie'] as unknown as string[];
      session = { cookie: cookies.map((cookie) => cookie.split(';')[0]).join('; '), id: String(login.body.data.id) };
    });

    const playground = (body: string, auth = true) =>
      fetch(`${origin}/pg/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(auth ? { cookie: session.cookie, 'new-api-user': session.id } : {}) },
        body,
      });

    it('relays with the session user and the group from the body, charging the user only, once', async () => {
      const before = openai.requests.length;
      await projected(target);
      const tokenBefore = (await admission(target).available(alice.id, alice.tokenId)).token;
      const response = await playground(JSON.stringify({ model: 'gpt-4o-mini', group: 'vip', messages: [{ role: 'user', content: 'hi' }], temperature: 0 }));
      expect(response.status).toBe(200);
      const answer = (await response.json()) as { choices: Array<{ message: { content: string } }> };
      expect(answer.choices[0].message.content).toBe(openai.reply);
      expect(openai.requests[before].url).toBe('/v1/chat/completions');
      expect(openai.bodies()[before]).toMatchObject({ model: 'gpt-4o-mini', temperature: 0 });
      const [charge, ...more] = await chargesOf(target, requestIdOf(response));
      expect(more).toHaveLength(0);
      expect(charge.data).toMatchObject({ userId: alice.id, tokenId: 0, tokenName: 'playground-vip', group: 'vip', tokenUnlimited: true });
      await projected(target);
      expect((await admission(target).available(alice.id, alice.tokenId)).token).toBe(tokenBefore);

      const streamed = await playground(JSON.stringify({ model: 'gpt-4o-mini', group: 'vip', messages: [{ role: 'user', content: 'hi' }], stream: true }));
      expect(streamed.headers.get('content-type')).toBe('text/event-stream');
      expect(await streamed.text()).toMatch(/data: \[DONE\]\n\n$/);
      expect(await chargesOf(target, requestIdOf(streamed))).toHaveLength(1);
    });

    it('refuses no session, an access token, no model, a group not usable, no channel and malformed JSON, charging nothing', async () => {
      await nothingCharged(async () => {
        const noSession = await playground(JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }), false);
        expect(noSession.status).toBe(401);
        expect(await noSession.json()).toEqual({ success: false, message: expect.any(String) });

        const accessToken = await fetch(`${origin}/pg/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: alice.token },
          body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
        });
        await expectRelayError(accessToken, 400, { code: 'access_token_not_supported', message: expect.stringMatching(/^暂不支持使用 access token/) });

        await expectRelayError(await playground(JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] })), 400, { code: 'model_required', message: expect.stringMatching(/^请选择模型/) });
        await expectRelayError(await playground(JSON.stringify({ model: 'gpt-4o-mini', group: 'svip', messages: [{ role: 'user', content: 'hi' }] })), 403, {
          code: 'group_not_allowed',
          message: expect.stringMatching(/^无权访问该分组/),
        });
        await expectRelayError(await playground(JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })), 500, {
          code: 'get_playground_channel_failed',
          message: expect.stringMatching(/^当前分组 default 下对于模型 gpt-4o-mini 无可用渠道/),
        });
        await expectRelayError(await playground('{"model": "gpt-4o-mini",'), 400, { code: 'unmarshal_request_failed' });
      });
    });
  });

  describe('bad input on every POST route', () => {
    const routes = [
      '/v1/chat/completions',
      '/v1/completions',
      '/v1/embeddings',
      '/v1/engines/text-embedding-ada-002/embeddings',
      '/v1/moderations',
      '/v1/images/generations',
      '/v1/audio/speech',
      '/v1/rerank',
    ];

    it('answers malformed JSON and non-object bodies 400 in the middleware shape, charging nothing', async () => {
      await nothingCharged(async () => {
        for (const path of routes) {
          for (const body of ['{"model": ', '"text"', 'null', '']) {
            const response = await post(path, body);
            const answer = (await response.json()) as { error: Record<string, unknown> };
            expect({ path, body, status: response.status }).toEqual({ path, body, status: 400 });
            expect(answer).toEqual({ error: { message: expect.stringMatching(/^无效的请求, .* \(request id: [0-9a-f-]+\)$/), type: 'new_api_error' } });
          }
        }
      });
    });

    it('answers an over-sized body 413 and a bad token 401 on every route, charging nothing', async () => {
      const huge = Buffer.alloc(33 * 1024 * 1024, 0x20);
      await nothingCharged(async () => {
        for (const path of [...routes, '/v1/audio/transcriptions', '/v1/audio/translations']) {
          const response = await post(path, huge);
          expect({ path, status: response.status }).toEqual({ path, status: 413 });
          await expectRelayError(response, 413, { type: 'new_api_error', message: expect.stringMatching(/^无效的请求, http: request body too large/) });
          const unauthenticated = await post(path, JSON.stringify({ model: 'gpt-3.5-turbo' }), {}, 'sk-not-a-token');
          await expectRelayError(unauthenticated, 401, { type: 'new_api_error' });
        }
      });
    });
  });

  describe('not implemented routes', () => {
    it('authenticate the token first, then answer 501 api_not_implemented, charging nothing', async () => {
      const routes: Array<[string, string]> = [
        ['POST', '/v1/images/edits'],
        ['POST', '/v1/images/variations'],
        ['POST', '/v1/edits'],
        ['GET', '/v1/files'],
        ['POST', '/v1/files'],
        ['GET', '/v1/files/file-1'],
        ['DELETE', '/v1/files/file-1'],
        ['GET', '/v1/files/file-1/content'],
        ['POST', '/v1/fine-tunes'],
        ['GET', '/v1/fine-tunes'],
        ['GET', '/v1/fine-tunes/ft-1'],
        ['POST', '/v1/fine-tunes/ft-1/cancel'],
        ['GET', '/v1/fine-tunes/ft-1/events'],
        ['DELETE', '/v1/models/gpt-3.5-turbo'],
      ];
      await nothingCharged(async () => {
        for (const [method, path] of routes) {
          const response = await fetch(`${origin}${path}`, { method, headers: { authorization: `Bearer ${alice.key}` } });
          expect({ method, path, status: response.status }).toEqual({ method, path, status: 501 });
          expect(response.headers.get('x-oneapi-request-id')).toBeTruthy();
          expect(await response.json()).toEqual({ error: { message: 'API not implemented', type: 'new_api_error', param: '', code: 'api_not_implemented' } });

          const badToken = await fetch(`${origin}${path}`, { method, headers: { authorization: 'Bearer sk-not-a-token' } });
          expect({ method, path, status: badToken.status }).toEqual({ method, path, status: 401 });
          await expectRelayError(badToken, 401, { type: 'new_api_error' });

          const noToken = await fetch(`${origin}${path}`, { method });
          expect({ method, path, status: noToken.status }).toEqual({ method, path, status: 401 });
          expect(await noToken.json()).toEqual({ error: { message: expect.stringMatching(/^未提供令牌 \(request id: /), type: 'new_api_error' } });
        }
      });
    });
  });

  describe('CORS on relay routes', () => {
    it('answers a preflight 204 with the reference headers, allowing the Authorization header', async () => {
      for (const path of ['/v1/chat/completions', '/v1/audio/transcriptions', '/pg/chat/completions', '/v1/models']) {
        const response = await fetch(`${origin}${path}`, {
          method: 'OPTIONS',
          headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
        });
        expect({ path, status: response.status }).toEqual({ path, status: 204 });
        expect(Object.fromEntries([...response.headers].filter(([name]) => name.startsWith('access-control-')))).toEqual({
          'access-control-allow-origin': '*',
          'access-control-allow-credentials': 'true',
          'access-control-allow-methods': 'GET,POST,PUT,DELETE,OPTIONS',
          'access-control-allow-headers': 'authorization,content-type',
          'access-control-max-age': '43200',
        });
      }
      const bare = await fetch(`${baseURL}/embeddings`, { method: 'OPTIONS', headers: { origin: 'https://app.example' } });
      expect(bare.status).toBe(204);
      expect(bare.headers.get('access-control-allow-headers')).toBe('*');
    });

    it('puts the allow headers on answers, errors and streams alike, and only when the request has an Origin', async () => {
      const cors = { origin: 'https://app.example' };
      const models = await fetch(`${baseURL}/models`, { headers: { ...cors, authorization: `Bearer ${alice.key}` } });
      expect(models.status).toBe(200);
      expect(models.headers.get('access-control-allow-origin')).toBe('*');
      expect(models.headers.get('access-control-allow-credentials')).toBe('true');

      const refused = await post('/v1/chat/completions', '{', cors);
      expect(refused.status).toBe(400);
      expect(refused.headers.get('access-control-allow-origin')).toBe('*');

      const stream = await post('/v1/chat/completions', JSON.stringify({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }], stream: true }), cors);
      expect(stream.headers.get('access-control-allow-origin')).toBe('*');
      expect(await stream.text()).toMatch(/\[DONE\]/);

      const speech = await post('/v1/audio/speech', JSON.stringify({ model: 'tts-1', input: 'Hi', voice: 'alloy' }), cors);
      expect(speech.headers.get('access-control-allow-origin')).toBe('*');
      await speech.arrayBuffer();

      const noOrigin = await fetch(`${baseURL}/models`, { headers: { authorization: `Bearer ${alice.key}` } });
      expect(noOrigin.headers.get('access-control-allow-origin')).toBeNull();
      // Console routes keep their own policy (none).
      const consoleRoute = await fetch(`${origin}/api/status`, { headers: cors });
      expect(consoleRoute.headers.get('access-control-allow-origin')).toBeNull();
    });
  });

  async function sumCharges(): Promise<number> {
    const rows: Array<{ total: string }> = await dataSource(target).query(
      `SELECT coalesce(sum((data->>'quota')::bigint), 0) AS total FROM events WHERE type = 'QuotaConsumed' AND data->>'tokenId' = $1`, [String(alice.tokenId)]);
    return Number(rows[0].total);
  }
});
