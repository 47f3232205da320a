import OpenAI from 'openai';
import { createTestApp, type TestApp } from '../support/app';
import { SparkFake } from '../fakes/upstreams/spark-fake';
import { chargeCount, createChannel, expectSingleCharge, listen, routable, requestIdOf, sdk, userWithToken } from './relay-support';
import { call, type Caller, dataSource, projected, rootCaller, setOptions } from './users-support';

jest.setTimeout(90_000);

const messages: OpenAI.ChatCompletionMessageParam[] = [
  { role: 'system', content: 'You are a test.' },
  { role: 'user', content: 'Say hello.' },
];

/** Type 18 (iFlytek Spark) through the relay with the official SDK, against a WebSocket fake that checks the HMAC-signed URL. */
describe('relay: iFlytek Spark (type 18)', () => {
  const fake = new SparkFake();
  let target: TestApp;
  let root: Caller;
  let client: OpenAI;
  let baseURL: string;
  let userKey: string;
  let userId: number;

  beforeAll(async () => {
    await fake.start();
    target = await createTestApp();
    root = await rootCaller(target);
    baseURL = await listen(target);
    await setOptions(target, { AutomaticDisableChannelEnabled: 'true' });
    await createChannel(target, root, {
      type: 18,
      name: 'spark',
      baseUrl: fake.baseUrl.replace('ws://', 'http://'),
      key: `${fake.appId}|${fake.apiSecret}|${fake.apiKey}`,
      models: ['SparkDesk-v3.5', 'SparkDesk'],
    });
    await createChannel(target, root, {
      type: 18,
      name: 'spark-wrong-secret',
      baseUrl: fake.baseUrl,
      key: `${fake.appId}|not-the-secret|${fake.apiKey}`,
      models: ['SparkDesk-v4.0'],
    });
    const user = await userWithToken(target, 'sparkuser', 50_000_000);
    userId = user.id;
    userKey = user.key;
    client = sdk(baseURL, user.key);
    await routable(target, user.key, baseURL, 'SparkDesk-v4.0');
  });

  afterAll(async () => {
    await target?.close();
    await fake.close();
  });

  const expectOneCharge = (response: Response, model: string, tokens: [number, number], isStream: boolean) =>
    expectSingleCharge(target, requestIdOf(response), { userId, model, tokens, isStream });

  it('answers a plain chat over the signed WebSocket: version from the model, its domain, usage from the last frame', async () => {
    const before = fake.calls.length;
    const { data, response } = await client.chat.completions
      .create({ model: 'SparkDesk-v3.5', messages, temperature: 0.5, max_tokens: 100 })
      .withResponse();
    expect(data.choices[0].message.content).toBe(fake.reply);
    expect(data.choices[0].finish_reason).toBe('stop');
    expect(data.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 7 });
    expect(fake.calls[before].path).toBe('/v3.5/chat');
    expect(fake.calls[before].frame).toEqual({
      header: { app_id: fake.appId },
      parameter: { chat: { domain: 'generalv3.5', temperature: 0.5, max_tokens: 100 } },
      payload: {
        message: {
          text: [
            { role: 'system', content: 'You are a test.' },
            { role: 'user', content: 'Say hello.' },
          ],
        },
      },
    });
    await expectOneCharge(response, 'SparkDesk-v3.5', [11, 7], false);
  });

  it('streams frames as chunks, with the usage asked for, charged once; a model without a version uses the channel version', async () => {
    const before = fake.calls.length;
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'SparkDesk', messages, stream: true, stream_options: { include_usage: true } })
      .withResponse();
    let text = '';
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect({ text, finish }).toEqual({ text: fake.reply, finish: 'stop' });
    expect(usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 7 });
    // The console's default version v2.1, whose model takes no system message: a user turn answered "Okay".
    expect(fake.calls[before].path).toBe('/v2.1/chat');
    expect(fake.calls[before].frame.payload.message.text).toEqual([
      { role: 'user', content: 'You are a test.' },
      { role: 'assistant', content: 'Okay' },
      { role: 'user', content: 'Say hello.' },
    ]);
    await expectOneCharge(response, 'SparkDesk', [11, 7], true);
  });

  it('sends tools as functions and reads a function call back as a tool call', async () => {
    fake.functionCall = { name: 'get_weather', arguments: '{"city":"Hefei"}' };
    try {
      const before = fake.calls.length;
      const tool: OpenAI.ChatCompletionTool = {
        type: 'function',
        function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
      };
      const data = await client.chat.completions.create({ model: 'SparkDesk-v3.5', messages, tools: [tool] });
      expect(data.choices[0].finish_reason).toBe('tool_calls');
      expect(data.choices[0].message.tool_calls?.[0]).toMatchObject({ type: 'function', function: fake.functionCall });
      expect(fake.calls[before].frame.payload.functions).toEqual({ text: [tool.function] });
    } finally {
      fake.functionCall = null;
    }
  });

  it('maps an error frame (daily quota) to 429 and an audit error mid-stream to an error event without [DONE]', async () => {
    const charges = await chargeCount(target);
    fake.errorCode = { code: 11201, message: 'licc limit: daily quota exceeded' };
    try {
      const limited = (await client.chat.completions
        .create({ model: 'SparkDesk-v3.5', messages })
        .catch((error: unknown) => error)) as InstanceType<typeof OpenAI.APIError>;
      expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
    } finally {
      fake.errorCode = null;
    }
    expect(await chargeCount(target)).toBe(charges);

    fake.errorAfterFirst = true;
    try {
      const response = await fetch(`${baseURL}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${userKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'SparkDesk-v3.5', messages, stream: true }),
      });
      const body = await response.text();
      expect(body).toContain('"content":"Hello "');
      expect(body).toContain('input content is not compliant (audit)');
      expect(body).toContain('"code":"10013"');
      expect(body).not.toContain('[DONE]');
    } finally {
      fake.errorAfterFirst = false;
    }
  });

  it('a wrong API secret fails the signature (401 invalid_api_key) and the channel test disables the channel', async () => {
    const refused = (await client.chat.completions
      .create({ model: 'SparkDesk-v4.0', messages })
      .catch((error: unknown) => error)) as InstanceType<typeof OpenAI.APIError>;
    expect(refused).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(refused.error).toMatchObject({ code: 'invalid_api_key', message: expect.stringMatching(/^HMAC signature does not match/) });
    const [{ id }] = await dataSource(target).query(`SELECT id FROM channels WHERE name = 'spark-wrong-secret'`);
    expect((await call(target, root, 'put', '/api/channel/', { id, auto_ban: 1 })).body).toMatchObject({ success: true });
    const tested = await call(target, root, 'get', `/api/channel/test/${id}`).expect(200);
    expect(tested.body).toMatchObject({ success: false, message: expect.stringContaining('HMAC signature does not match') });
    await projected(target);
    expect((await call(target, root, 'get', `/api/channel/${id}`).expect(200)).body.data.status).toBe(3);
  });

  it('tests a working channel over the WebSocket', async () => {
    const [{ id }] = await dataSource(target).query(`SELECT id FROM channels WHERE name = 'spark'`);
    const tested = await call(target, root, 'get', `/api/channel/test/${id}`).expect(200);
    expect(tested.body).toEqual({ success: true, message: '', time: expect.any(Number) });
  });
});
