import OpenAI from 'openai';
import { BaiduFake } from '../fakes/upstreams/baidu-fake';
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

/** Baidu Wenxin (type 15) through the official SDK against a fake that exchanges and checks access tokens. */
describe('relay: Baidu Wenxin through the official SDK', () => {
  const baidu = new BaiduFake();
  let app: CnProviderApp;

  beforeAll(async () => {
    await baidu.start();
    baidu.apps.set('bd-revoked', 'bd-revoked-secret');
    const channel = (name: string, models: string[], key = 'bd-api-key|bd-secret-key') => ({
      type: 15,
      name,
      baseUrl: baidu.baseUrl,
      key,
      models,
    });
    app = await startCnProviderApp('baidu', [
      channel('ernie ok', ['ERNIE-4.0-8K', 'ernie-limited', 'Embedding-V1']),
      channel('ernie wrong secret', ['ERNIE-Speed'], 'bd-api-key|not-the-secret'),
      channel('ernie revoked later', ['ERNIE-Lite-8K'], 'bd-revoked|bd-revoked-secret'),
      channel('ernie shared exchange', ['ERNIE-Bot-8K'], 'bd-shared|bd-shared-secret'),
      channel('ernie background refresh', ['ERNIE-Speed-128K'], 'bd-refresh|bd-refresh-secret'),
    ]);
    baidu.apps.set('bd-shared', 'bd-shared-secret');
    baidu.apps.set('bd-refresh', 'bd-refresh-secret');
  });

  afterAll(async () => {
    await app?.target.close();
    await baidu.close();
  });

  it('exchanges the key once on the channel’s base URL, answers a plain chat and charges Baidu’s usage', async () => {
    const tokensBefore = baidu.tokenRequests.length;
    const { data, response } = await app.client.chat.completions
      .create({ model: 'ERNIE-4.0-8K', messages, temperature: 0.5 })
      .withResponse();
    expect(data.choices[0]).toMatchObject({ message: { role: 'assistant', content: baidu.reply }, finish_reason: 'stop' });
    expect(data.usage).toMatchObject({ prompt_tokens: 9, completion_tokens: 7 });
    const upstream = baidu.apiRequests.at(-1)!;
    expect(upstream.url).toMatch(/^\/rpc\/2\.0\/ai_custom\/v1\/wenxinworkshop\/chat\/completions_pro\?access_token=24\./);
    expect(JSON.parse(upstream.body)).toEqual({
      messages: [{ role: 'user', content: 'Say hello.' }],
      system: 'You are a test.',
      temperature: 0.5,
    });
    await expectOneCharge(app, response.headers.get('x-oneapi-request-id')!, 'ERNIE-4.0-8K', [9, 7], false);

    await app.client.chat.completions.create({ model: 'ERNIE-4.0-8K', messages });
    expect(baidu.tokenRequests.length - tokensBefore).toBe(1);
  });

  it('streams the answer and charges total − prompt from the last event', async () => {
    const { data: stream, response } = await app.client.chat.completions
      .create({ model: 'ERNIE-4.0-8K', messages, stream: true, stream_options: { include_usage: true } })
      .withResponse();
    const { text, finish, usage } = await readStream(stream);
    expect(text).toBe(baidu.reply);
    expect(finish).toBe('stop');
    expect(usage).toMatchObject({ prompt_tokens: 9, completion_tokens: 7 });
    await expectOneCharge(app, response.headers.get('x-oneapi-request-id')!, 'ERNIE-4.0-8K', [9, 7], true);
  });

  it('embeds through embeddings/embedding-v1 with Baidu’s usage', async () => {
    const { data, response } = await app.client.embeddings.create({ model: 'Embedding-V1', input: ['hello', 'world!'] }).withResponse();
    expect(data.data).toHaveLength(2);
    expect(data.data[1].embedding.map((value) => Math.round(value * 1000) / 1000)).toEqual([0.5, -0.5, 0.06]);
    expect(baidu.apiRequests.at(-1)!.url).toMatch(/^\/rpc\/2\.0\/ai_custom\/v1\/wenxinworkshop\/embeddings\/embedding-v1\?access_token=/);
    await expectOneCharge(app, response.headers.get('x-oneapi-request-id')!, 'Embedding-V1', [6, 0], false);
  });

  it('maps Baidu’s QPS limit (HTTP 200, error_code 18) to 429, charging nothing', async () => {
    const charges = await chargeCount(app.target);
    const error = await app.client.chat.completions.create({ model: 'ernie-limited', messages }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    // Asked for a stream, Baidu still refuses with HTTP 200 and JSON: the client gets the 429 before any stream starts.
    const streamed = await app.client.chat.completions
      .create({ model: 'ernie-limited', messages, stream: true })
      .catch((caught: unknown) => caught);
    expect(streamed).toBeInstanceOf(OpenAI.RateLimitError);
    expect(await chargeCount(app.target)).toBe(charges);
  });

  it('a wrong secret is refused at the exchange: 401 for the client, and the channel test disables the channel', async () => {
    const charges = await chargeCount(app.target);
    const error = await app.client.chat.completions.create({ model: 'ERNIE-Speed', messages }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((error as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({
      type: 'baidu_error',
      code: 'invalid_client',
      message: expect.stringMatching(/^invalid_client: Client authentication failed/),
    });
    expect(await chargeCount(app.target)).toBe(charges);

    const id = await channelIdByName(app, 'ernie wrong secret');
    await enableAutoBan(app, id);
    expect(await testChannel(app, id)).toMatchObject({ success: false, message: expect.stringContaining('Client authentication failed') });
    expect((await channelRow(app, id)).status).toBe(3);
  });

  it('a key revoked after its token was cached: Baidu’s 110 is a 401, the token is dropped, and the next exchange is refused', async () => {
    await app.client.chat.completions.create({ model: 'ERNIE-Lite-8K', messages });
    baidu.revoke('bd-revoked');
    const first = await app.client.chat.completions.create({ model: 'ERNIE-Lite-8K', messages }).catch((caught: unknown) => caught);
    expect(first).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((first as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ code: '110' });
    const tokensBefore = baidu.tokenRequests.length;
    const second = await app.client.chat.completions.create({ model: 'ERNIE-Lite-8K', messages }).catch((caught: unknown) => caught);
    expect(second).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((second as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ code: 'invalid_client' });
    expect(baidu.tokenRequests.length).toBe(tokensBefore + 1);
  });

  /** A chat request a client sends and abandons after `afterMs` (the relay sees the client go). */
  async function abandoned(model: string, afterMs: number): Promise<void> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), afterMs);
    await fetch(`${app.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${app.user.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages }),
      signal: controller.signal,
    })
      .then((response) => response.text())
      .catch(() => undefined)
      .finally(() => clearTimeout(timer));
  }

  const tokenOf = (url: string) => new URL(url, 'http://x').searchParams.get('access_token');

  it('concurrent requests share one exchange, and the client that started it leaving does not cancel it for the others', async () => {
    const tokensBefore = baidu.tokenRequests.length;
    baidu.tokenDelayMs = 600;
    try {
      const leaving = abandoned('ERNIE-Bot-8K', 150);
      await new Promise((resolve) => setTimeout(resolve, 50)); // the first request's exchange is under way
      const staying = app.client.chat.completions.create({ model: 'ERNIE-Bot-8K', messages });
      await leaving;
      const answer = await staying;
      expect(answer.choices[0].message.content).toBe(baidu.reply);
    } finally {
      baidu.tokenDelayMs = 0;
    }
    expect(baidu.tokenRequests.length - tokensBefore).toBe(1);
    expect(baidu.abandonedExchanges).toBe(0);
    // The token is cached: the next request exchanges nothing.
    await app.client.chat.completions.create({ model: 'ERNIE-Bot-8K', messages });
    expect(baidu.tokenRequests.length - tokensBefore).toBe(1);
  });

  it('a background refresh started by a request whose client leaves still completes and is cached', async () => {
    // A token that lives 30 min is inside the last hour at once: every request refreshes it in the background.
    baidu.tokenLifetimeSeconds = 1800;
    try {
      await app.client.chat.completions.create({ model: 'ERNIE-Speed-128K', messages });
    } finally {
      baidu.tokenLifetimeSeconds = 2_592_000;
    }
    const first = tokenOf(baidu.apiRequests.at(-1)!.url);
    const tokensBefore = baidu.tokenRequests.length;
    baidu.tokenDelayMs = 500;
    baidu.apiDelayMs = 400;
    try {
      // Uses the cached token, starts the refresh, and leaves while its own chat call is still out.
      await abandoned('ERNIE-Speed-128K', 150);
      await new Promise((resolve) => setTimeout(resolve, 700));
    } finally {
      baidu.tokenDelayMs = 0;
      baidu.apiDelayMs = 0;
    }
    expect(baidu.tokenRequests.length - tokensBefore).toBe(1);
    expect(baidu.abandonedExchanges).toBe(0);
    // The refreshed token (a month long) is the one used now, without another exchange.
    await app.client.chat.completions.create({ model: 'ERNIE-Speed-128K', messages });
    const now = tokenOf(baidu.apiRequests.at(-1)!.url);
    expect(now).not.toBe(first);
    expect(baidu.tokenRequests.length - tokensBefore).toBe(1);
  });
});
