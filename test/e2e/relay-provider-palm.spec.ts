import OpenAI from 'openai';
import { PalmFake } from '../fakes/upstreams/palm-fake';
import { chargeCount } from './relay-support';
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

/** Google PaLM 2 (11) through the relay with the official SDK: generateMessage, streams made from the whole answer. */
describe('relay: Google PaLM 2 (type 11)', () => {
  const palm = new PalmFake();
  const context = miscProviderFixture(
    [palm],
    [
      { name: 'palm ok', type: 11, key: 'palm-key', baseUrl: () => palm.baseUrl, models: ['PaLM-2'] },
      { name: 'palm revoked', type: 11, key: 'revoked-key', baseUrl: () => palm.baseUrl, models: ['chat-bison-001'] },
    ],
  );

  it('answers a plain chat from generateMessage, charging the local count once', async () => {
    const before = palm.requests.length;
    const body = { model: 'PaLM-2', messages, temperature: 0 };
    const { data, response } = await context.client.chat.completions.create(body).withResponse();
    expect(data.choices[0]).toMatchObject({ message: { content: palm.reply }, finish_reason: 'stop' });
    const expected = localCount(body, 'PaLM-2', palm.reply);
    expect(data.usage).toBeUndefined(); // PaLM reports none; the charge is counted locally
    expect(palm.requests[before].headers['x-goog-api-key']).toBe('palm-key');
    expect(JSON.parse(palm.requests[before].body)).toEqual({
      prompt: { context: 'You are a test.', messages: [{ author: '0', content: 'Say hello.' }] },
      temperature: 0,
    });
    await expectOneCharge(context, response.headers.get('x-oneapi-request-id')!, 'PaLM-2', expected, false);
  });

  it('streams the whole answer as one content chunk with the locally counted usage, charged once', async () => {
    const run = await streamChat(context, 'PaLM-2');
    expect(run.text).toBe(palm.reply);
    expect(run.finish).toBe('stop');
    const expected = localCount(run.body, 'PaLM-2', palm.reply);
    expect(run.usage).toMatchObject({ prompt_tokens: expected[0], completion_tokens: expected[1] });
    await expectOneCharge(context, run.requestId, 'PaLM-2', expected, true);
  });

  it('answers a filtered answer (no candidates) as an error with the upstream status 200, not retried (as Gemini and new-api), charging nothing', async () => {
    const charges = await chargeCount(context.target);
    const before = palm.requests.length;
    palm.filterNext();
    const response = await fetch(`${context.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${context.user.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'PaLM-2', messages }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      error: {
        type: 'palm_error',
        code: 'no_candidates',
        param: '',
        message: expect.stringMatching(/^No candidates returned \(filtered: OTHER\) \(request id: /),
      },
    });
    expect(palm.requests.length).toBe(before + 1);
    expect(await chargeCount(context.target)).toBe(charges);
  });

  it('passes the admin channel test through the same adapter', async () => {
    expect(await channelTest(context, 'palm ok')).toEqual({ success: true, message: '', time: expect.any(Number) });
  });

  it('maps an invalid API key to 401, charges nothing and disables the channel', async () => {
    const charges = await chargeCount(context.target);
    const error = await context.client.chat.completions.create({ model: 'chat-bison-001', messages }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((error as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ message: expect.stringMatching(/^API key not valid/) });
    expect(await chargeCount(context.target)).toBe(charges);
    await expectAutoDisabled(context, context.channelIds['palm revoked']);
  });
});
