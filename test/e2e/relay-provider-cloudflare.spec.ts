import OpenAI, { toFile } from 'openai';
import { CloudflareFake } from '../fakes/upstreams/cloudflare-fake';
import { chargeCount, chargesOf } from './relay-support';
import {
  channelTest,
  expectAutoDisabled,
  expectOneCharge,
  localCount,
  messages,
  miscProviderFixture,
  streamChat,
} from './relay-provider-misc-support';

jest.setTimeout(90_000);

/** Cloudflare Workers AI (39) through the relay with the official SDK: chat, completions, embeddings, transcriptions. */
describe('relay: Cloudflare Workers AI (type 39)', () => {
  const cf = new CloudflareFake();
  const chatModel = '@cf/meta/llama-3.1-8b-instruct';
  const context = miscProviderFixture(
    [cf],
    [
      {
        name: 'workers ai ok',
        type: 39,
        key: 'cf-token',
        other: 'acc-fake',
        baseUrl: () => cf.baseUrl,
        models: [chatModel, '@cf/baai/bge-base-en-v1.5', '@cf/openai/whisper'],
      },
      {
        name: 'workers ai no account',
        type: 39,
        key: 'cf-token',
        baseUrl: () => cf.baseUrl,
        models: ['@cf/mistral/mistral-7b-instruct-v0.1'],
      },
      {
        name: 'workers ai revoked',
        type: 39,
        key: 'revoked-token',
        other: 'acc-fake',
        baseUrl: () => cf.baseUrl,
        models: ['@cf/qwen/qwen1.5-7b-chat'],
      },
    ],
  );
  const account = '/client/v4/accounts/acc-fake/ai';

  it('answers a plain chat from the account’s OpenAI-compatible endpoint with its usage, charged once', async () => {
    const before = cf.requests.length;
    const { data, response } = await context.client.chat.completions.create({ model: chatModel, messages }).withResponse();
    expect(data.choices[0].message.content).toBe(cf.reply);
    expect(cf.requests[before].url).toBe(`${account}/v1/chat/completions`);
    expect(cf.requests[before].headers.authorization).toBe('Bearer cf-token');
    await expectOneCharge(context, response.headers.get('x-oneapi-request-id')!, chatModel, [10, 7], false);
  });

  it('streams a chat, counted locally as Workers AI reports no stream usage', async () => {
    const run = await streamChat(context, chatModel);
    expect(run.text).toBe(cf.reply);
    expect(run.finish).toBe('stop');
    const expected = localCount(run.body, chatModel, cf.reply);
    expect(run.usage).toMatchObject({ prompt_tokens: expected[0], completion_tokens: expected[1] });
    await expectOneCharge(context, run.requestId, chatModel, expected, true);
  });

  it('answers completions from /ai/run/{model} as text_completion, plain and streamed, with the run usage', async () => {
    const before = cf.requests.length;
    const { data, response } = await context.client.completions
      .create({ model: chatModel, prompt: 'Say hello.', max_tokens: 20 })
      .withResponse();
    expect(data).toMatchObject({ object: 'text_completion', choices: [{ text: cf.reply, finish_reason: 'stop' }] });
    expect(cf.requests[before].url).toBe(`${account}/run/@cf/meta/llama-3.1-8b-instruct`);
    expect(JSON.parse(cf.requests[before].body)).toEqual({ prompt: 'Say hello.', max_tokens: 20 });
    await expectOneCharge(context, response.headers.get('x-oneapi-request-id')!, chatModel, [10, 7], false);

    const { data: stream, response: streamed } = await context.client.completions
      .create({ model: chatModel, prompt: 'Say hello.', stream: true, stream_options: { include_usage: true } })
      .withResponse();
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.text ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe(cf.reply);
    expect(usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 7 });
    await expectOneCharge(context, streamed.headers.get('x-oneapi-request-id')!, chatModel, [10, 7], true);
  });

  it('answers embeddings with the vectors (new-api lost them) and their usage', async () => {
    const { data, response } = await context.client.embeddings
      .create({ model: '@cf/baai/bge-base-en-v1.5', input: ['a', 'b'], encoding_format: 'float' })
      .withResponse();
    expect(data.data.map((item) => item.embedding)).toEqual([
      [0.25, -0.5, 0],
      [0.25, -0.5, 1],
    ]);
    await expectOneCharge(context, response.headers.get('x-oneapi-request-id')!, '@cf/baai/bge-base-en-v1.5', [6, 0], false);
  });

  it('transcribes audio through Whisper with the raw bytes', async () => {
    const before = cf.requests.length;
    const file = await toFile(Buffer.from('ID3fake-audio'), 'hello.mp3', { type: 'audio/mpeg' });
    const { data, response } = await context.client.audio.transcriptions.create({ model: '@cf/openai/whisper', file }).withResponse();
    expect(data.text).toBe(cf.transcript);
    expect(cf.requests[before].url).toBe(`${account}/run/@cf/openai/whisper`);
    expect(cf.requests[before].body).toBe('ID3fake-audio');
    const charges = await chargesOf(context.target, response.headers.get('x-oneapi-request-id')!);
    expect(charges).toHaveLength(1);
  });

  it('passes the admin channel test through the same adapter', async () => {
    expect(await channelTest(context, 'workers ai ok')).toEqual({ success: true, message: '', time: expect.any(Number) });
  });

  it('refuses a channel without an account id locally with 500 invalid_channel_config, calling nothing and charging nothing', async () => {
    const charges = await chargeCount(context.target);
    const before = cf.requests.length;
    const error = await context.client.chat.completions
      .create({ model: '@cf/mistral/mistral-7b-instruct-v0.1', messages })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect((error as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({
      type: 'new_api_error',
      code: 'invalid_channel_config',
      message: expect.stringMatching(/^the Cloudflare channel has no account id/),
    });
    expect(cf.requests.length).toBe(before);
    expect(await chargeCount(context.target)).toBe(charges);
  });

  it('maps a revoked token (Authentication error) to 401, charges nothing and disables the channel', async () => {
    const charges = await chargeCount(context.target);
    const error = await context.client.chat.completions
      .create({ model: '@cf/qwen/qwen1.5-7b-chat', messages })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((error as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({
      type: 'cloudflare_error',
      code: '10000',
      message: expect.stringMatching(/^Authentication error \(request id: /),
    });
    expect(await chargeCount(context.target)).toBe(charges);
    await expectAutoDisabled(context, context.channelIds['workers ai revoked']);
  });
});
