import OpenAI from 'openai';
import { CohereFake } from '../fakes/upstreams/cohere-fake';
import { chargeCount, chargesOf } from './relay-support';
import { channelTest, expectAutoDisabled, expectOneCharge, messages, miscProviderFixture, streamChat } from './relay-provider-misc-support';

jest.setTimeout(90_000);

/** Cohere (34) through the relay with the official SDK against a fake that speaks Cohere's v1 chat and rerank. */
describe('relay: Cohere (type 34)', () => {
  const cohere = new CohereFake();
  const context = miscProviderFixture(
    [cohere],
    [
      { name: 'cohere ok', type: 34, key: 'cohere-key', baseUrl: () => cohere.baseUrl, models: ['command-r', 'rerank-english-v3.0'] },
      { name: 'cohere revoked', type: 34, key: 'revoked-key', baseUrl: () => cohere.baseUrl, models: ['command-r-plus'] },
    ],
  );

  it('answers a plain chat from /v1/chat and charges the billed units once', async () => {
    const before = cohere.requests.length;
    const { data, response } = await context.client.chat.completions
      .create({ model: 'command-r', messages, temperature: 0 })
      .withResponse();
    expect(data.choices[0]).toMatchObject({ message: { role: 'assistant', content: cohere.reply }, finish_reason: 'stop' });
    expect(data.usage).toMatchObject({ prompt_tokens: 13, completion_tokens: 6 });
    const upstream = cohere.requests[before];
    expect(upstream.url).toBe('/v1/chat');
    expect(upstream.headers.authorization).toBe('Bearer cohere-key');
    expect(JSON.parse(upstream.body)).toEqual({
      model: 'command-r',
      message: 'Say hello.',
      chat_history: [{ role: 'SYSTEM', message: 'You are a test.' }],
      max_tokens: 4000,
      temperature: 0,
    });
    await expectOneCharge(context, response.headers.get('x-oneapi-request-id')!, 'command-r', [13, 6], false);
  });

  it('streams the newline-delimited JSON as OpenAI chunks with the billed units as usage, charged once', async () => {
    const run = await streamChat(context, 'command-r');
    expect(run.text).toBe(cohere.reply);
    expect(run.finish).toBe('stop');
    expect(run.usage).toMatchObject({ prompt_tokens: 13, completion_tokens: 6 });
    await expectOneCharge(context, run.requestId, 'command-r', [13, 6], true);
  });

  it('reranks through /v1/rerank and answers the Jina-style shape, charging the prompt counted locally', async () => {
    const before = cohere.requests.length;
    const response = await fetch(`${context.baseURL}/rerank`, {
      method: 'POST',
      headers: { authorization: `Bearer ${context.user.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'rerank-english-v3.0',
        query: 'capital of Germany',
        documents: ['Paris is in France', 'Berlin is the capital of Germany'],
        top_n: 1,
      }),
    });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as Record<string, any>;
    expect(answer).toEqual({
      id: 'rerank-fake',
      model: 'rerank-english-v3.0',
      results: [{ index: 1, relevance_score: expect.any(Number), document: { text: 'Berlin is the capital of Germany' } }],
    });
    expect(cohere.requests[before].url).toBe('/v1/rerank');
    expect(JSON.parse(cohere.requests[before].body)).toMatchObject({ model: 'rerank-english-v3.0', top_n: 1, return_documents: true });
    const charges = await chargesOf(context.target, response.headers.get('x-oneapi-request-id')!);
    expect(charges).toHaveLength(1);
    expect(charges[0].data).toMatchObject({ modelName: 'rerank-english-v3.0', relayMode: 'rerank', completionTokens: 0 });
    expect(charges[0].data.promptTokens).toBeGreaterThan(0);
  });

  it('maps a rate limit to 429 with the relay’s saturation message (as new-api), charging nothing', async () => {
    const charges = await chargeCount(context.target);
    cohere.failNext(429, 'You are using a Trial key, which is limited to 10 API calls / minute.');
    const error = await context.client.chat.completions.create({ model: 'command-r', messages }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect((error as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({
      message: expect.stringMatching(/^当前分组上游负载已饱和，请稍后再试 \(request id: /),
      type: 'upstream_error',
    });
    expect(await chargeCount(context.target)).toBe(charges);
  });

  it('passes the admin channel test through the same adapter', async () => {
    expect(await channelTest(context, 'cohere ok')).toEqual({ success: true, message: '', time: expect.any(Number) });
  });

  it('maps a revoked key to 401, charges nothing and disables the channel', async () => {
    const charges = await chargeCount(context.target);
    const error = await context.client.chat.completions.create({ model: 'command-r-plus', messages }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((error as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({
      message: expect.stringMatching(/^invalid api token \(request id: /),
    });
    expect(await chargeCount(context.target)).toBe(charges);
    await expectAutoDisabled(context, context.channelIds['cohere revoked']);
  });
});
