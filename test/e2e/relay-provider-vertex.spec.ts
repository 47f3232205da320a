import OpenAI from 'openai';
import { createTestApp, type TestApp } from '../support/app';
import { VertexFake } from '../fakes/upstreams/vertex-fake';
import { chargeCount, createChannel, expectSingleCharge, listen, routable, requestIdOf, sdk, userWithToken } from './relay-support';
import { call, type Caller, dataSource, projected, rootCaller, setOptions } from './users-support';

jest.setTimeout(90_000);

const messages: OpenAI.ChatCompletionMessageParam[] = [
  { role: 'system', content: 'You are a test.' },
  { role: 'user', content: 'Say hello.' },
];

/** Type 41 (Vertex AI) through the relay with the official SDK: the service-account token grant, then Claude, Gemini and Llama. */
describe('relay: Vertex AI (type 41)', () => {
  const fake = new VertexFake();
  let target: TestApp;
  let root: Caller;
  let client: OpenAI;
  let userId: number;
  const project = '/v1/projects/tollgate-test/locations';

  beforeAll(async () => {
    await fake.start();
    target = await createTestApp();
    root = await rootCaller(target);
    const baseURL = await listen(target);
    await setOptions(target, { AutomaticDisableChannelEnabled: 'true' });
    await createChannel(target, root, {
      type: 41,
      name: 'vertex',
      baseUrl: fake.baseUrl,
      key: fake.serviceAccountKey(),
      other: JSON.stringify({ default: 'us-central1', 'claude-3-5-sonnet-20240620': 'europe-west1' }),
      models: ['claude-3-5-sonnet-20240620', 'gemini-1.5-pro', 'meta/llama3-405b-instruct-maas', 'gpt-4o'],
    });
    await createChannel(target, root, {
      type: 41,
      name: 'vertex-unknown-key',
      baseUrl: fake.baseUrl,
      key: fake.serviceAccountKey(true),
      other: 'us-east5',
      models: ['claude-3-haiku-20240307'],
    });
    const user = await userWithToken(target, 'vertexuser', 50_000_000);
    userId = user.id;
    client = sdk(baseURL, user.key);
    await routable(target, user.key, baseURL, 'claude-3-haiku-20240307');
  });

  afterAll(async () => {
    await target?.close();
    await fake.close();
  });

  const expectOneCharge = (response: Response, model: string, tokens: [number, number], isStream: boolean) =>
    expectSingleCharge(target, requestIdOf(response), { userId, model, tokens, isStream });

  async function streamed(model: string): Promise<{ text: string; finish: string | null; usage: unknown; response: Response }> {
    const { data, response } = await client.chat.completions
      .create({ model, messages, stream: true, stream_options: { include_usage: true } })
      .withResponse();
    let text = '';
    let finish: string | null = null;
    let usage: unknown = null;
    for await (const chunk of data) {
      text += chunk.choices[0]?.delta?.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    return { text, finish, usage, response };
  }

  it('Claude: gets a token by the service-account grant, calls rawPredict in the model region, charges the usage once', async () => {
    const tokensBefore = fake.tokenRequests().length;
    const before = fake.modelRequests().length;
    const model = 'claude-3-5-sonnet-20240620';
    const { data, response } = await client.chat.completions.create({ model, messages, temperature: 0 }).withResponse();
    expect(data.choices[0].message.content).toBe(fake.reply);
    expect(data.usage).toMatchObject({ prompt_tokens: 14, completion_tokens: 6 });
    expect(fake.tokenRequests().length).toBe(tokensBefore + 1);
    const upstream = fake.modelRequests()[before];
    expect(upstream.url).toBe(`${project}/europe-west1/publishers/anthropic/models/claude-3-5-sonnet@20240620:rawPredict`);
    expect(upstream.headers.authorization).toMatch(/^Bearer ya29\.fake-/);
    expect(JSON.parse(upstream.body)).toMatchObject({ anthropic_version: 'vertex-2023-10-16', system: 'You are a test.', temperature: 0 });
    await expectOneCharge(response, model, [14, 6], false);

    const stream = await streamed(model);
    expect(stream).toMatchObject({ text: fake.reply, finish: 'stop', usage: { prompt_tokens: 14, completion_tokens: 6 } });
    expect(fake.modelRequests()[before + 1].url).toBe(
      `${project}/europe-west1/publishers/anthropic/models/claude-3-5-sonnet@20240620:streamRawPredict?alt=sse`,
    );
    await expectOneCharge(stream.response, model, [14, 6], true);
    // The token is cached: one exchange for both calls.
    expect(fake.tokenRequests().length).toBe(tokensBefore + 1);
  });

  it('Gemini: generateContent and streamGenerateContent in the default region, with the cached token', async () => {
    const tokensBefore = fake.tokenRequests().length;
    const before = fake.modelRequests().length;
    const { data, response } = await client.chat.completions.create({ model: 'gemini-1.5-pro', messages }).withResponse();
    expect(data.choices[0].message.content).toBe(fake.reply);
    expect(fake.modelRequests()[before].url).toBe(`${project}/us-central1/publishers/google/models/gemini-1.5-pro:generateContent`);
    expect(JSON.parse(fake.modelRequests()[before].body)).toMatchObject({ systemInstruction: { parts: [{ text: 'You are a test.' }] } });
    await expectOneCharge(response, 'gemini-1.5-pro', [14, 6], false);
    const stream = await streamed('gemini-1.5-pro');
    expect(stream).toMatchObject({ text: fake.reply, finish: 'stop', usage: { prompt_tokens: 14, completion_tokens: 6 } });
    expect(fake.modelRequests()[before + 1].url).toBe(
      `${project}/us-central1/publishers/google/models/gemini-1.5-pro:streamGenerateContent?alt=sse`,
    );
    expect(fake.tokenRequests().length).toBe(tokensBefore);
  });

  it('Llama: the OpenAI-compatible endpoint with the model in the body', async () => {
    const before = fake.modelRequests().length;
    const model = 'meta/llama3-405b-instruct-maas';
    const { data, response } = await client.chat.completions.create({ model, messages }).withResponse();
    expect(data.choices[0].message.content).toBe(fake.reply);
    expect(fake.modelRequests()[before].url).toBe(
      '/v1beta1/projects/tollgate-test/locations/us-central1/endpoints/openapi/chat/completions',
    );
    expect(JSON.parse(fake.modelRequests()[before].body)).toMatchObject({ model, messages });
    await expectOneCharge(response, model, [14, 6], false);
    const stream = await streamed(model);
    expect(stream.text).toBe(fake.reply);
    expect(stream.finish).toBe('stop');
  });

  it('maps RESOURCE_EXHAUSTED to 429 and refuses a model Vertex does not serve this way, charging nothing', async () => {
    const charges = await chargeCount(target);
    fake.failNext(429, 'RESOURCE_EXHAUSTED', 'Quota exceeded for aiplatform.googleapis.com/generate_content_requests_per_minute');
    const limited = (await client.chat.completions
      .create({ model: 'gemini-1.5-pro', messages })
      .catch((error: unknown) => error)) as InstanceType<typeof OpenAI.APIError>;
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
    const before = fake.requests.length;
    const refused = (await client.chat.completions.create({ model: 'gpt-4o', messages }).catch((error: unknown) => error)) as InstanceType<
      typeof OpenAI.APIError
    >;
    expect(refused.status).toBe(400);
    expect(refused.error).toMatchObject({ code: 'convert_request_failed', message: expect.stringContaining('gpt-4o') });
    expect(fake.requests).toHaveLength(before);
    expect(await chargeCount(target)).toBe(charges);
  });

  it('a key Google does not know is refused at the token exchange (401 invalid_api_key), and the channel test disables the channel', async () => {
    const refused = (await client.chat.completions
      .create({ model: 'claude-3-haiku-20240307', messages })
      .catch((error: unknown) => error)) as InstanceType<typeof OpenAI.APIError>;
    expect(refused).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(refused.error).toMatchObject({ code: 'invalid_api_key', message: expect.stringContaining('Invalid JWT Signature.') });
    const [{ id }] = await dataSource(target).query(`SELECT id FROM channels WHERE name = 'vertex-unknown-key'`);
    expect((await call(target, root, 'put', '/api/channel/', { id, auto_ban: 1 })).body).toMatchObject({ success: true });
    const tested = await call(target, root, 'get', `/api/channel/test/${id}`).expect(200);
    expect(tested.body).toMatchObject({ success: false, message: expect.stringContaining('invalid_grant') });
    await projected(target);
    expect((await call(target, root, 'get', `/api/channel/${id}`).expect(200)).body.data.status).toBe(3);
  });
});
