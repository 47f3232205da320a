import OpenAI from 'openai';
import { MiniMaxFake } from '../fakes/upstreams/minimax-fake';
import { chargeCount } from './relay-support';
import { channelTest, expectAutoDisabled, expectOneCharge, messages, miscProviderFixture, streamChat } from './relay-provider-misc-support';

jest.setTimeout(90_000);

/** MiniMax (35) through the relay with the official SDK against a fake of its v2 chat API. */
describe('relay: MiniMax (type 35)', () => {
  const minimax = new MiniMaxFake();
  const context = miscProviderFixture(
    [minimax],
    [
      { name: 'minimax ok', type: 35, key: 'minimax-key', baseUrl: () => minimax.baseUrl, models: ['abab6.5s-chat'] },
      { name: 'minimax revoked', type: 35, key: 'revoked-key', baseUrl: () => minimax.baseUrl, models: ['abab5.5-chat'] },
    ],
  );

  it('answers a plain chat from /v1/text/chatcompletion_v2 and charges its usage once', async () => {
    const before = minimax.requests.length;
    const { data, response } = await context.client.chat.completions
      .create({ model: 'abab6.5s-chat', messages, temperature: 0 })
      .withResponse();
    expect(data.choices[0]).toMatchObject({ message: { content: minimax.reply }, finish_reason: 'stop' });
    expect(minimax.requests[before].url).toBe('/v1/text/chatcompletion_v2');
    expect(JSON.parse(minimax.requests[before].body)).toMatchObject({ model: 'abab6.5s-chat', messages, temperature: 0 });
    await expectOneCharge(context, response.headers.get('x-oneapi-request-id')!, 'abab6.5s-chat', [40, 7], false);
  });

  it('streams the chunks and charges the usage of the finishing chunk once', async () => {
    const run = await streamChat(context, 'abab6.5s-chat');
    expect(run.text).toBe(minimax.reply);
    expect(run.finish).toBe('stop');
    expect(run.usage).toMatchObject({ prompt_tokens: 40, completion_tokens: 7 });
    await expectOneCharge(context, run.requestId, 'abab6.5s-chat', [40, 7], true);
  });

  it('maps a base_resp rate limit (HTTP 200 from MiniMax) to 429, charging nothing', async () => {
    const charges = await chargeCount(context.target);
    minimax.failNext(1002, 'rate limit exceeded(RPM)');
    const error = await context.client.chat.completions.create({ model: 'abab6.5s-chat', messages }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(await chargeCount(context.target)).toBe(charges);
  });

  it('answers a stream request MiniMax refuses (base_resp in a JSON body) as that error before any stream, charging nothing', async () => {
    const charges = await chargeCount(context.target);
    minimax.failNext(1008, 'insufficient balance');
    const error = await context.client.chat.completions
      .create({ model: 'abab6.5s-chat', messages, stream: true })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(402);
    expect((error as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({
      type: 'minimax_error',
      message: expect.stringMatching(/^insufficient balance/),
    });
    expect(await chargeCount(context.target)).toBe(charges);
  });

  it('passes the admin channel test through the same adapter', async () => {
    expect(await channelTest(context, 'minimax ok')).toEqual({ success: true, message: '', time: expect.any(Number) });
  });

  it('maps a revoked key (login fail) to 401, charges nothing and disables the channel', async () => {
    const charges = await chargeCount(context.target);
    const error = await context.client.chat.completions.create({ model: 'abab5.5-chat', messages }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((error as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({
      type: 'minimax_error',
      message: expect.stringMatching(/^login fail/),
    });
    expect(await chargeCount(context.target)).toBe(charges);
    await expectAutoDisabled(context, context.channelIds['minimax revoked']);
  });
});
