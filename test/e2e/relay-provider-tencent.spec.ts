import OpenAI from 'openai';
import { TencentFake } from '../fakes/upstreams/tencent-fake';
import { chargeCount } from './relay-support';
import { channelTest, expectAutoDisabled, expectOneCharge, messages, miscProviderFixture, streamChat } from './relay-provider-misc-support';

jest.setTimeout(90_000);

/** Tencent Hunyuan (23) through the relay with the official SDK against a fake that checks the TC3 signature. */
describe('relay: Tencent Hunyuan (type 23)', () => {
  const tencent = new TencentFake();
  const context = miscProviderFixture(
    [tencent],
    [
      { name: 'hunyuan ok', type: 23, key: '1300000000|AKIDfake|fake-secret', baseUrl: () => tencent.baseUrl, models: ['hunyuan-lite'] },
      {
        name: 'hunyuan revoked',
        type: 23,
        key: '1300000000|AKIDfake|revoked-secret',
        baseUrl: () => tencent.baseUrl,
        models: ['hunyuan-pro'],
      },
    ],
  );

  it('answers a plain chat through a signed ChatCompletions call and charges Response.Usage once', async () => {
    const before = tencent.requests.length;
    const { data, response } = await context.client.chat.completions
      .create({ model: 'hunyuan-lite', messages, temperature: 0 })
      .withResponse();
    expect(data.choices[0]).toMatchObject({ message: { role: 'assistant', content: tencent.reply }, finish_reason: 'stop' });
    expect(data.usage).toMatchObject({ prompt_tokens: 8, completion_tokens: 7 });
    const upstream = tencent.requests[before];
    expect(upstream.url).toBe('/');
    expect(upstream.headers).toMatchObject({ 'x-tc-action': 'ChatCompletions', 'x-tc-version': '2023-09-01' });
    expect(upstream.headers.authorization).toMatch(/^TC3-HMAC-SHA256 Credential=AKIDfake\//);
    expect(JSON.parse(upstream.body)).toEqual({
      Model: 'hunyuan-lite',
      Messages: [
        { Role: 'system', Content: 'You are a test.' },
        { Role: 'user', Content: 'Say hello.' },
      ],
      Stream: false,
      Temperature: 0,
    });
    await expectOneCharge(context, response.headers.get('x-oneapi-request-id')!, 'hunyuan-lite', [8, 7], false);
  });

  it('streams the SSE as OpenAI chunks with the final event’s Usage, charged once', async () => {
    const run = await streamChat(context, 'hunyuan-lite');
    expect(run.text).toBe(tencent.reply);
    expect(run.finish).toBe('stop');
    expect(run.usage).toMatchObject({ prompt_tokens: 8, completion_tokens: 7 });
    await expectOneCharge(context, run.requestId, 'hunyuan-lite', [8, 7], true);
  });

  it('maps LimitExceeded (an HTTP 200 from Tencent) to 429, charging nothing', async () => {
    const charges = await chargeCount(context.target);
    tencent.failNext('LimitExceeded', '超过配额限制。');
    const error = await context.client.chat.completions.create({ model: 'hunyuan-lite', messages }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(await chargeCount(context.target)).toBe(charges);
  });

  it('passes the admin channel test through the same adapter', async () => {
    expect(await channelTest(context, 'hunyuan ok')).toEqual({ success: true, message: '', time: expect.any(Number) });
  });

  it('answers a stream request Tencent refuses (an HTTP-200 JSON error, not SSE) as that error before any stream, charging nothing', async () => {
    const charges = await chargeCount(context.target);
    tencent.failNext('RequestLimitExceeded', '请求限频');
    const error = await context.client.chat.completions
      .create({ model: 'hunyuan-lite', messages, stream: true })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(await chargeCount(context.target)).toBe(charges);
  });

  it('maps a wrong secret (signature refused) to 401, charges nothing and disables the channel', async () => {
    const charges = await chargeCount(context.target);
    const error = await context.client.chat.completions.create({ model: 'hunyuan-pro', messages }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((error as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({
      type: 'tencent_error',
      code: 'AuthFailure.SignatureFailure',
      message: expect.stringMatching(/^The provided credentials could not be validated.* \(request id: /),
    });
    expect(await chargeCount(context.target)).toBe(charges);
    await expectAutoDisabled(context, context.channelIds['hunyuan revoked']);
  });
});
