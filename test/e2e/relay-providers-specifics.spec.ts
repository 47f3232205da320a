import OpenAI from 'openai';
import { countTextTokens } from '#server/relay/tokenizer/token-counter';
import type { TestApp } from '../support/app';
import { messages, type RelayProvidersContext, relayProvidersFixture } from './relay-providers-support';
import { chargeCount, chargesOf } from './relay-support';

jest.setTimeout(90_000);

/**
 * What one provider does beyond the common row of relay-providers.spec.ts, through the official SDK against the same
 * fakes: Azure's stream_options and api-version, Ollama's native embeddings and max_tokens, a Gemini error mid-stream,
 * and Anthropic's overload and rate-limit errors.
 */
describe('relay: provider specifics through the official SDK', () => {
  const fixture = relayProvidersFixture();
  const { azure, ollama, claude, gemini } = fixture.context;
  let target: TestApp;
  let baseURL: string;
  let client: OpenAI;
  let user: RelayProvidersContext['user'];

  beforeAll(() => {
    ({ target, baseURL, client, user } = fixture.context);
  });

  it('Azure: the deployment never sees stream_options, so an old api-version does not refuse the stream', async () => {
    const before = azure.requests.length;
    const stream = await client.chat.completions.create({
      model: 'gpt-3.5-turbo',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const chunk of stream) void chunk;
    expect(azure.requests.slice(before).map((request) => JSON.parse(request.body).stream_options)).toEqual([undefined]);
  });

  it("Azure: a client's ?api-version= wins over the channel's", async () => {
    const before = azure.requests.length;
    const response = await fetch(`${baseURL}/chat/completions?api-version=2024-06-01`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-3.5-turbo', messages }),
    });
    expect(response.status).toBe(200);
    expect(azure.requests[before].url).toBe('/openai/deployments/gpt-35-turbo/chat/completions?api-version=2024-06-01');
  });

  it('Ollama: embeddings go to the native /api/embed and come back as an OpenAI list, charged with prompt_eval_count', async () => {
    const before = ollama.requests.length;
    const { data, response } = await client.embeddings.create({ model: 'nomic-embed-text', input: ['a', 'bb'] }).withResponse();
    expect(ollama.requests[before].url).toBe('/api/embed');
    expect(JSON.parse(ollama.requests[before].body)).toEqual({ model: 'nomic-embed-text', input: ['a', 'bb'] });
    expect(data.object).toBe('list');
    expect(data.data.map((item) => item.index)).toEqual([0, 1]);
    // The SDK asked for base64 and decoded it: the vectors are the fake's, as float32.
    expect(data.data[1].embedding).toEqual([0.5, -0.5, Math.fround(0.02), 0.125]);
    expect(data.usage).toEqual({ prompt_tokens: 8, total_tokens: 8 });
    const charges = await chargesOf(target, response.headers.get('x-oneapi-request-id')!);
    expect(charges).toHaveLength(1);
    expect(charges[0].data).toMatchObject({ modelName: 'nomic-embed-text', promptTokens: 8, completionTokens: 0 });
  });

  it('Ollama: max_tokens reaches the upstream (new-api dropped it)', async () => {
    const before = ollama.requests.length;
    await client.chat.completions.create({ model: 'llama3.2', messages, max_tokens: 33 });
    expect(JSON.parse(ollama.requests[before].body)).toMatchObject({ max_tokens: 33 });
  });

  it('Gemini: an error event mid-stream ends the stream with an error event and bills the prompt and the text delivered', async () => {
    gemini.errorAfterEvents = 2;
    const response = await fetch(`${baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gemini-2.0-flash', messages, stream: true }),
    });
    expect(response.status).toBe(200);
    const events = (await response.text())
      .split('\n\n')
      .filter(Boolean)
      .map((event) => event.replace(/^data: /, ''));
    expect(events).not.toContain('[DONE]');
    expect(JSON.parse(events.at(-1)!)).toEqual({
      error: {
        message: expect.stringMatching(/^The model is overloaded\. Please try again later\. \(request id: /),
        type: 'UNAVAILABLE',
        param: null,
        code: 503,
      },
    });
    const delivered = events
      .slice(0, -1)
      .map((event) => (JSON.parse(event).choices?.[0]?.delta?.content as string | undefined) ?? '')
      .join('');
    expect(delivered).toBe(
      gemini.reply
        .split(/(?<=\s)/)
        .slice(0, 2)
        .join(''),
    );
    const [charge, ...rest] = await chargesOf(target, response.headers.get('x-oneapi-request-id')!);
    expect(rest).toHaveLength(0);
    // The prompt count Gemini reported, and the delivered text counted locally (not the 0 completion of its partial usage).
    expect(charge.data).toMatchObject({
      promptTokens: 5,
      completionTokens: countTextTokens(delivered, 'gemini-2.0-flash'),
      isStream: true,
    });
    expect(charge.data.completionTokens).toBeGreaterThan(0);
  });

  it('Anthropic: an overloaded upstream (529) reaches the client as a 5xx with the Claude error type, charging nothing', async () => {
    const charges = await chargeCount(target);
    claude.failNext(529, 'overloaded_error', 'Overloaded');
    const error = await client.chat.completions.create({ model: 'claude-3-5-haiku-20241022', messages }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(529);
    expect((error as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({
      type: 'overloaded_error',
      message: expect.stringMatching(/^Overloaded \(request id: /),
    });
    expect(await chargeCount(target)).toBe(charges);
  });

  it('Anthropic: a rate limit (429) gets the new-api saturation message', async () => {
    claude.failNext(429, 'rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit');
    const error = await client.chat.completions.create({ model: 'claude-3-5-haiku-20241022', messages }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect((error as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({
      type: 'rate_limit_error',
      message: expect.stringMatching(/^当前分组上游负载已饱和，请稍后再试 \(request id: /),
    });
  });
});
