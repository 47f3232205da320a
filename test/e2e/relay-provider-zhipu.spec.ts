import { createHmac } from 'node:crypto';
import OpenAI from 'openai';
import { signZhipuToken } from '#server/upstreams/zhipu/zhipu-jwt';
import { ZhipuFake } from '../fakes/upstreams/zhipu-fake';
import {
  channelIdByName,
  channelRow,
  type CnProviderApp,
  enableAutoBan,
  expectOneCharge,
  readStream,
  startCnProviderApp,
  testChannel,
} from './relay-provider-cn-support';
import { chargeCount } from './relay-support';

jest.setTimeout(90_000);

const messages: OpenAI.ChatCompletionMessageParam[] = [
  { role: 'system', content: 'You are a test.' },
  { role: 'user', content: 'Say hello.' },
];

/** Zhipu GLM-4 (type 26) and ChatGLM v3 (type 16) through the official SDK against a fake that checks the JWT. */
describe('relay: Zhipu through the official SDK', () => {
  const zhipu = new ZhipuFake();
  let app: CnProviderApp;

  beforeAll(async () => {
    await zhipu.start();
    const channel = (type: number, name: string, models: string[], key = 'zp-id.zp-secret') => ({
      type,
      name,
      baseUrl: `${zhipu.baseUrl}/`,
      key,
      models,
    });
    app = await startCnProviderApp('zhipu', [
      channel(26, 'glm4 ok', ['glm-4', 'glm-limited']),
      channel(26, 'glm4 revoked', ['glm-4-revoked'], 'zp-id.wrong-secret'),
      channel(16, 'chatglm ok', ['chatglm_turbo']),
      channel(16, 'chatglm revoked', ['chatglm_std'], 'zp-id.wrong-secret'),
    ]);
  });

  afterAll(async () => {
    await app?.target.close();
    await zhipu.close();
  });

  describe('GLM-4 (type 26)', () => {
    it('answers a plain chat on /api/paas/v4 with a valid JWT and charges Zhipu’s usage once', async () => {
      const before = zhipu.requests.length;
      const { data, response } = await client().chat.completions.create({ model: 'glm-4', messages, top_p: 1 }).withResponse();
      expect(data.choices[0].message.content).toBe(zhipu.reply);
      expect(data.usage).toMatchObject({ prompt_tokens: 13, completion_tokens: 6 });
      const upstream = zhipu.requests[before];
      expect(upstream.url).toBe('/api/paas/v4/chat/completions');
      expect(upstream.headers.authorization).not.toMatch(/^Bearer /);
      expect(JSON.parse(upstream.body)).toMatchObject({ model: 'glm-4', messages, top_p: 0.99 });
      await expectOneCharge(app, response.headers.get('x-oneapi-request-id')!, 'glm-4', [13, 6], false);
    });

    it('streams the answer with the usage from Zhipu’s last chunk, charged once', async () => {
      const { data: stream, response } = await client()
        .chat.completions.create({ model: 'glm-4', messages, stream: true, stream_options: { include_usage: true } })
        .withResponse();
      const { text, finish, usage } = await readStream(stream);
      expect(text).toBe(zhipu.reply);
      expect(finish).toBe('stop');
      expect(usage).toMatchObject({ prompt_tokens: 13, completion_tokens: 6 });
      await expectOneCharge(app, response.headers.get('x-oneapi-request-id')!, 'glm-4', [13, 6], true);
    });

    it('maps a rate limit to 429 and charges nothing', async () => {
      const charges = await chargeCount(app.target);
      const error = await client()
        .chat.completions.create({ model: 'glm-limited', messages })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.RateLimitError);
      expect(await chargeCount(app.target)).toBe(charges);
    });

    it('a wrong secret is refused with 401 (nothing charged) and the channel test disables the channel', async () => {
      const charges = await chargeCount(app.target);
      const error = await client()
        .chat.completions.create({ model: 'glm-4-revoked', messages })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
      expect((error as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({
        code: '1000',
        message: expect.stringMatching(/^身份验证失败。/),
      });
      expect(await chargeCount(app.target)).toBe(charges);

      const id = await channelIdByName(app, 'glm4 revoked');
      await enableAutoBan(app, id);
      expect(await testChannel(app, id)).toMatchObject({ success: false, message: expect.stringContaining('身份验证失败') });
      expect((await channelRow(app, id)).status).toBe(3);
    });

    it('the fake refuses a token dated in seconds, so the milliseconds matter', async () => {
      const seconds = signZhipuToken('zp-id.zp-secret', Date.now()).split('.');
      const claims = { api_key: 'zp-id', exp: Math.floor(Date.now() / 1000) + 3600, timestamp: Math.floor(Date.now() / 1000) };
      const forged = `${seconds[0]}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
      const token = `${forged}.${createHmac('sha256', 'zp-secret').update(forged).digest('base64url')}`;
      const response = await fetch(`${zhipu.baseUrl}/api/paas/v4/chat/completions`, {
        method: 'POST',
        headers: { authorization: token, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'glm-4', messages }),
      });
      expect(response.status).toBe(401);
    });
  });

  describe('ChatGLM v3 (type 16)', () => {
    it('answers a plain chat from /invoke, unquoting ChatGLM’s content, and charges its usage once', async () => {
      const before = zhipu.requests.length;
      const { data, response } = await client().chat.completions.create({ model: 'chatglm_turbo', messages }).withResponse();
      expect(data.choices[0]).toMatchObject({ message: { content: zhipu.reply }, finish_reason: 'stop' });
      const upstream = zhipu.requests[before];
      expect(upstream.url).toBe('/api/paas/v3/model-api/chatglm_turbo/invoke');
      expect(JSON.parse(upstream.body)).toEqual({
        prompt: [
          { role: 'system', content: 'You are a test.' },
          { role: 'user', content: 'Okay' },
          { role: 'user', content: 'Say hello.' },
        ],
        incremental: true,
      });
      await expectOneCharge(app, response.headers.get('x-oneapi-request-id')!, 'chatglm_turbo', [13, 6], false);
    });

    it('streams from /sse-invoke (add events, then finish with meta usage) and charges it once', async () => {
      const { data: stream, response } = await client()
        .chat.completions.create({ model: 'chatglm_turbo', messages, stream: true, stream_options: { include_usage: true } })
        .withResponse();
      const { text, finish, usage } = await readStream(stream);
      expect(text).toBe(zhipu.reply);
      expect(finish).toBe('stop');
      expect(usage).toMatchObject({ prompt_tokens: 13, completion_tokens: 6 });
      expect(zhipu.requests.at(-1)!.url).toBe('/api/paas/v3/model-api/chatglm_turbo/sse-invoke');
      await expectOneCharge(app, response.headers.get('x-oneapi-request-id')!, 'chatglm_turbo', [13, 6], true);
    });

    it('a wrong secret is a 401 zhipu_error, and the channel test disables the channel', async () => {
      const error = await client()
        .chat.completions.create({ model: 'chatglm_std', messages })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
      expect((error as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ type: 'zhipu_error', code: '1000' });
      const id = await channelIdByName(app, 'chatglm revoked');
      await enableAutoBan(app, id);
      expect(await testChannel(app, id)).toMatchObject({ success: false });
      expect((await channelRow(app, id)).status).toBe(3);
    });
  });

  function client(): OpenAI {
    return app.client;
  }
});
