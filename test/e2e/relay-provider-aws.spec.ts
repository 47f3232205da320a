import OpenAI from 'openai';
import { createTestApp, type TestApp } from '../support/app';
import { AwsBedrockFake } from '../fakes/upstreams/aws-fake';
import { chargeCount, createChannel, expectSingleCharge, listen, routable, requestIdOf, sdk, userWithToken } from './relay-support';
import { call, type Caller, dataSource, projected, rootCaller, setOptions } from './users-support';

jest.setTimeout(90_000);

const messages: OpenAI.ChatCompletionMessageParam[] = [
  { role: 'system', content: 'You are a test.' },
  { role: 'user', content: 'Say hello.' },
];
const weather: OpenAI.ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } } },
  },
};

/** Type 33 (Claude on AWS Bedrock) through the relay with the official SDK, against a fake that verifies SigV4. */
describe('relay: AWS Bedrock Claude (type 33)', () => {
  const fake = new AwsBedrockFake();
  let target: TestApp;
  let root: Caller;
  let client: OpenAI;
  let baseURL: string;
  let userId: number;

  beforeAll(async () => {
    await fake.start();
    target = await createTestApp();
    root = await rootCaller(target);
    baseURL = await listen(target);
    await setOptions(target, { AutomaticDisableChannelEnabled: 'true' });
    const key = `${fake.accessKeyId}|${fake.secretKey}|${fake.region}`;
    await createChannel(target, root, {
      type: 33,
      name: 'bedrock',
      baseUrl: fake.baseUrl,
      key,
      models: ['claude-3-haiku-20240307', 'claude-3-5-sonnet-20241022', 'claude-sonnet-x', 'claude-unknown'],
      modelMapping: { 'claude-sonnet-x': 'us.anthropic.claude-sonnet-4-20250514-v1:0' },
    });
    await createChannel(target, root, {
      type: 33,
      name: 'bedrock-wrong-secret',
      baseUrl: fake.baseUrl,
      key: `${fake.accessKeyId}|not-the-secret|${fake.region}`,
      models: ['claude-3-opus-20240229'],
    });
    const user = await userWithToken(target, 'bedrockuser', 50_000_000);
    userId = user.id;
    client = sdk(baseURL, user.key);
    await routable(target, user.key, baseURL, 'claude-3-opus-20240229');
  });

  afterAll(async () => {
    await target?.close();
    await fake.close();
  });

  const expectOneCharge = (response: Response, model: string, tokens: [number, number], isStream: boolean) =>
    expectSingleCharge(target, requestIdOf(response), { userId, model, tokens, isStream });

  it('answers a plain chat through InvokeModel: the Bedrock model id, a SigV4-signed call, usage charged once', async () => {
    const before = fake.requests.length;
    const { data, response } = await client.chat.completions
      .create({ model: 'claude-3-haiku-20240307', messages, temperature: 0, user: 'u-1' })
      .withResponse();
    expect(data.choices[0].message.content).toBe(fake.reply);
    expect(data.choices[0].finish_reason).toBe('stop');
    expect(data.usage).toMatchObject({ prompt_tokens: 17, completion_tokens: 8, total_tokens: 25 });
    expect(fake.requests).toHaveLength(before + 1);
    const upstream = fake.requests[before];
    expect(upstream.url).toBe('/model/anthropic.claude-3-haiku-20240307-v1%3A0/invoke');
    expect(upstream.headers.authorization).toMatch(
      new RegExp(
        `^AWS4-HMAC-SHA256 Credential=${fake.accessKeyId}/\\d{8}/us-east-1/bedrock/aws4_request, SignedHeaders=[a-z0-9;-]*host[a-z0-9;-]*, Signature=[0-9a-f]{64}$`,
      ),
    );
    const sent = JSON.parse(upstream.body);
    expect(sent).toEqual({
      anthropic_version: 'bedrock-2023-05-31',
      system: 'You are a test.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Say hello.' }] }],
      max_tokens: 4096,
      temperature: 0,
    });
    await expectOneCharge(response, 'claude-3-haiku-20240307', [17, 8], false);
  });

  it('streams through InvokeModelWithResponseStream (the binary event stream), with the usage asked for, charged once', async () => {
    const before = fake.requests.length;
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'claude-3-5-sonnet-20241022', messages, stream: true, stream_options: { include_usage: true } })
      .withResponse();
    let text = '';
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe(fake.reply);
    expect(finish).toBe('stop');
    expect(usage).toMatchObject({ prompt_tokens: 17, completion_tokens: 8 });
    expect(fake.requests[before].url).toBe('/model/anthropic.claude-3-5-sonnet-20241022-v2%3A0/invoke-with-response-stream');
    expect(JSON.parse(fake.requests[before].body).stream).toBeUndefined();
    await expectOneCharge(response, 'claude-3-5-sonnet-20241022', [17, 8], true);
  });

  it('reads the binary event stream however it is split: written one byte at a time', async () => {
    fake.streamWriteBytes = 1;
    try {
      const stream = await client.chat.completions.create({
        model: 'claude-3-haiku-20240307',
        messages,
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = '';
      let usage: OpenAI.CompletionUsage | null | undefined;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? '';
        if (chunk.usage) usage = chunk.usage;
      }
      expect(text).toBe(fake.reply);
      expect(usage).toMatchObject({ prompt_tokens: 17, completion_tokens: 8 });
    } finally {
      fake.streamWriteBytes = null;
    }
  });

  it('passes tools and reads tool calls back, plain and streamed; a Bedrock id from the model mapping is used as is', async () => {
    fake.toolCall = { name: 'get_weather', input: { city: 'Paris' } };
    try {
      const before = fake.requests.length;
      const plain = await client.chat.completions.create({ model: 'claude-sonnet-x', messages, tools: [weather], tool_choice: 'required' });
      expect(plain.choices[0].finish_reason).toBe('tool_calls');
      expect(plain.choices[0].message.tool_calls).toEqual([
        { id: 'toolu_bdrk_01', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
      ]);
      expect(fake.modelIds()[before]).toBe('us.anthropic.claude-sonnet-4-20250514-v1:0');
      const sent = JSON.parse(fake.requests[before].body);
      expect(sent.tools).toEqual([{ name: 'get_weather', description: 'Weather of a city', input_schema: weather.function.parameters }]);
      expect(sent.tool_choice).toEqual({ type: 'any' });

      const stream = await client.chat.completions.create({ model: 'claude-sonnet-x', messages, tools: [weather], stream: true });
      let name = '';
      let args = '';
      let finish: string | null = null;
      for await (const chunk of stream) {
        for (const call of chunk.choices[0]?.delta?.tool_calls ?? []) {
          name += call.function?.name ?? '';
          args += call.function?.arguments ?? '';
        }
        finish = chunk.choices[0]?.finish_reason ?? finish;
      }
      expect({ name, args, finish }).toEqual({ name: 'get_weather', args: '{"city":"Paris"}', finish: 'tool_calls' });
    } finally {
      fake.toolCall = null;
    }
  });

  it('maps AWS throttling to 429 and an unmapped model to a local error, charging nothing', async () => {
    const charges = await chargeCount(target);
    fake.failNext(429, 'ThrottlingException', 'Too many requests, please wait before trying again.');
    const throttled = (await client.chat.completions
      .create({ model: 'claude-3-haiku-20240307', messages })
      .catch((error: unknown) => error)) as InstanceType<typeof OpenAI.APIError>;
    expect(throttled).toBeInstanceOf(OpenAI.RateLimitError);
    expect(throttled.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });

    const before = fake.requests.length;
    const unknown = (await client.chat.completions
      .create({ model: 'claude-unknown', messages })
      .catch((error: unknown) => error)) as InstanceType<typeof OpenAI.APIError>;
    expect(unknown.status).toBe(500);
    expect(unknown.error).toMatchObject({ code: 'model_not_found', message: expect.stringMatching(/^model claude-unknown not found/) });
    expect(fake.requests).toHaveLength(before);
    expect(await chargeCount(target)).toBe(charges);
  });

  it('ends a stream whose Bedrock stream raises an exception with an error event and no [DONE]', async () => {
    fake.midStreamException = 'modelStreamErrorException';
    try {
      const response = await fetch(`${baseURL}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${(client as any).apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'claude-3-haiku-20240307', messages, stream: true }),
      });
      const body = await response.text();
      expect(body).toContain('"error"');
      expect(body).toContain('The model stream failed.');
      expect(body).not.toContain('[DONE]');
    } finally {
      fake.midStreamException = null;
    }
  });

  it('a wrong secret key is refused by its signature (401 invalid_api_key), and the channel test disables the channel', async () => {
    const refused = (await client.chat.completions
      .create({ model: 'claude-3-opus-20240229', messages })
      .catch((error: unknown) => error)) as InstanceType<typeof OpenAI.APIError>;
    expect(refused).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(refused.error).toMatchObject({
      code: 'invalid_api_key',
      message: expect.stringMatching(/^The request signature we calculated does not match/),
    });
    const [{ id }] = await dataSource(target).query(`SELECT id FROM channels WHERE name = 'bedrock-wrong-secret'`);
    expect((await call(target, root, 'put', '/api/channel/', { id, auto_ban: 1 })).body).toMatchObject({ success: true });
    const tested = await call(target, root, 'get', `/api/channel/test/${id}`).expect(200);
    expect(tested.body).toMatchObject({ success: false, message: expect.stringContaining('signature') });
    await projected(target);
    const row = await call(target, root, 'get', `/api/channel/${id}`).expect(200);
    expect(row.body.data.status).toBe(3);
  });

  it('tests a working channel through InvokeModel', async () => {
    const [{ id }] = await dataSource(target).query(`SELECT id FROM channels WHERE name = 'bedrock'`);
    const before = fake.requests.length;
    const tested = await call(target, root, 'get', `/api/channel/test/${id}`).expect(200);
    expect(tested.body).toEqual({ success: true, message: '', time: expect.any(Number) });
    expect(fake.requests[before].url).toMatch(/^\/model\/anthropic\.claude-3-haiku-20240307-v1%3A0\/invoke$/);
  });
});
