import OpenAI from 'openai';
import { AliFake } from '../fakes/upstreams/ali-fake';
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
import { chargeCount, chargesOf } from './relay-support';

jest.setTimeout(90_000);

const messages: OpenAI.ChatCompletionMessageParam[] = [
  { role: 'system', content: 'You are a test.' },
  { role: 'user', content: 'Say hello.' },
];

/** Alibaba Qwen (type 17) through the official SDK against a fake DashScope. */
describe('relay: Alibaba Qwen through the official SDK', () => {
  const ali = new AliFake();
  let app: CnProviderApp;

  beforeAll(async () => {
    await ali.start();
    const channel = (name: string, models: string[], key = 'sk-dashscope-good') => ({
      type: 17,
      name,
      baseUrl: `${ali.baseUrl}/`,
      key,
      models,
    });
    app = await startCnProviderApp('ali', [
      channel('qwen ok', ['qwen-turbo', 'qwen-limited', 'text-embedding-v2', 'wanx-v1']),
      channel('qwen revoked', ['qwen-max'], 'sk-dashscope-revoked'),
    ]);
  });

  afterAll(async () => {
    await app?.target.close();
    await ali.close();
  });

  it('answers a plain chat from text-generation and charges DashScope’s usage once', async () => {
    const { data, response } = await app.client.chat.completions.create({ model: 'qwen-turbo', messages }).withResponse();
    expect(data.choices[0]).toMatchObject({ message: { content: ali.reply }, finish_reason: 'stop' });
    const upstream = ali.requests.at(-1)!;
    expect(upstream.url).toBe('/api/v1/services/aigc/text-generation/generation');
    expect(upstream.headers.authorization).toBe('Bearer sk-dashscope-good');
    expect(JSON.parse(upstream.body)).toMatchObject({ model: 'qwen-turbo', input: { messages } });
    await expectOneCharge(app, response.headers.get('x-oneapi-request-id')!, 'qwen-turbo', [11, 8], false);
  });

  it('streams incrementally with X-DashScope-SSE and charges the usage of the last event', async () => {
    const { data: stream, response } = await app.client.chat.completions
      .create({ model: 'qwen-turbo', messages, stream: true, stream_options: { include_usage: true } })
      .withResponse();
    const { text, finish, usage } = await readStream(stream);
    expect(text).toBe(ali.reply);
    expect(finish).toBe('stop');
    expect(usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 8 });
    expect(ali.requests.at(-1)!.headers['x-dashscope-sse']).toBe('enable');
    await expectOneCharge(app, response.headers.get('x-oneapi-request-id')!, 'qwen-turbo', [11, 8], true);
  });

  it('embeds with the channel’s model', async () => {
    const { data, response } = await app.client.embeddings.create({ model: 'text-embedding-v2', input: ['hi', 'there'] }).withResponse();
    expect(data.data.map((item) => item.embedding[0])).toEqual([0.5, 1]);
    expect(JSON.parse(ali.requests.at(-1)!.body)).toEqual({ model: 'text-embedding-v2', input: { texts: ['hi', 'there'] } });
    await expectOneCharge(app, response.headers.get('x-oneapi-request-id')!, 'text-embedding-v2', [4, 0], false);
  });

  it('generates an image: creates the task, polls it on the channel’s base URL, answers the URL and charges once', async () => {
    const before = ali.requests.length;
    const { data, response } = await app.client.images
      .generate({ model: 'wanx-v1', prompt: 'a red cat', size: '1024x1024', n: 1 })
      .withResponse();
    expect(data.data).toHaveLength(1);
    expect(data.data![0].url).toMatch(new RegExp(`^${ali.baseUrl}/results/`));
    const calls = ali.requests.slice(before).map((request) => `${request.method} ${request.url.replace(/[0-9a-f-]{36}/, '{id}')}`);
    expect(calls).toEqual(['POST /api/v1/services/aigc/text2image/image-synthesis', 'GET /api/v1/tasks/{id}', 'GET /api/v1/tasks/{id}']);
    expect(JSON.parse(ali.requests[before].body)).toEqual({
      model: 'wanx-v1',
      input: { prompt: 'a red cat' },
      parameters: { size: '1024*1024', n: 1 },
    });
    expect(await chargesOf(app.target, response.headers.get('x-oneapi-request-id')!)).toHaveLength(1);
  });

  it('a size DashScope refuses is the client’s error with DashScope’s message, charging nothing', async () => {
    const charges = await chargeCount(app.target);
    const error = await app.client.images
      .generate({ model: 'wanx-v1', prompt: 'a cat', size: '256x256' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ code: 'InvalidParameter' });
    expect(await chargeCount(app.target)).toBe(charges);
  });

  it('maps a rate limit to 429, charging nothing', async () => {
    const charges = await chargeCount(app.target);
    const error = await app.client.chat.completions.create({ model: 'qwen-limited', messages }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(await chargeCount(app.target)).toBe(charges);
  });

  it('a revoked key is a 401 with DashScope’s code, and the channel test disables the channel', async () => {
    const error = await app.client.chat.completions.create({ model: 'qwen-max', messages }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((error as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ type: 'InvalidApiKey', code: 'InvalidApiKey' });
    const id = await channelIdByName(app, 'qwen revoked');
    await enableAutoBan(app, id);
    expect(await testChannel(app, id)).toMatchObject({ success: false, message: expect.stringContaining('Invalid API-key provided') });
    expect((await channelRow(app, id)).status).toBe(3);
  });
});
