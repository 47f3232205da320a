import OpenAI from 'openai';
import { countTextTokens } from '#server/relay/tokenizer/token-counter';
import type { TestApp } from '../support/app';
import { type RelayOpenAIContext, relayOpenAIFixture } from './relay-openai-support';
import { admission, chargeCount, chargesOf, createChannel, routable, sdk, userWithToken } from './relay-support';
import { type Caller, projected } from './users-support';

jest.setTimeout(60_000);

/**
 * The relay's errors through the official `openai` SDK against a local OpenAI fake: the SDK error types, the
 * channel's status_code_mapping, a failed upstream or a refused request releasing its reservation and charging
 * nothing, a cut stream billed for what was delivered, and admission under 200 concurrent requests.
 */
describe('relay: OpenAI-compatible API (official SDK): errors and what they charge', () => {
  const fixture = relayOpenAIFixture();
  const { openai } = fixture.context;
  let target: TestApp;
  let baseURL: string;
  let root: Caller;
  let alice: RelayOpenAIContext['alice'];
  let client: OpenAI;

  beforeAll(() => {
    ({ target, baseURL, root, alice, client } = fixture.context);
  });

  async function available(user: { id: number; tokenId: number | null }) {
    return admission(target).available(user.id, user.tokenId);
  }

  it('raises the SDK error types for a bad token, an unknown model and no quota, charging nothing', async () => {
    const charges = await chargeCount(target);
    const bad = sdk(baseURL, 'sk-doesnotexist');
    await expect(
      bad.chat.completions.create({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toBeInstanceOf(OpenAI.AuthenticationError);

    const unknown = client.chat.completions.create({ model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] });
    await expect(unknown).rejects.toMatchObject({ status: 503 });
    await expect(unknown).rejects.toBeInstanceOf(OpenAI.InternalServerError);

    const broke = await userWithToken(target, 'broke', 0);
    const error = await sdk(baseURL, broke.key)
      .chat.completions.create({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect((error as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({
      type: 'new_api_error',
      code: 'insufficient_user_quota',
    });
    expect(await chargeCount(target)).toBe(charges);
  });

  it("answers an upstream error with the status the channel's status_code_mapping names", async () => {
    await createChannel(target, root, {
      type: 1,
      name: 'mapped-status',
      baseUrl: openai.baseUrl,
      models: ['status-model'],
      statusCodeMapping: { '400': '502' },
    });
    await routable(target, alice.key, baseURL, 'status-model');
    openai.next({ status: 400, body: { error: { message: 'bad thing', type: 'invalid_request_error', param: null, code: 'bad' } } });
    const response = await fetch(`${baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'status-model', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(502);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain('bad thing');
  });

  it('a failed upstream releases the reservation and charges nothing', async () => {
    await projected(target);
    const before = await available({ id: alice.id, tokenId: alice.tokenId });
    const charges = await chargeCount(target);
    openai.next({ status: 500, body: { error: { message: 'boom', type: 'server_error', param: null, code: 'boom' } } });
    const error = await client.chat.completions
      .create({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect((error as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({
      message: expect.stringMatching(/^boom \(request id: /),
      code: 'boom',
    });
    expect(await chargeCount(target)).toBe(charges);
    expect(await available({ id: alice.id, tokenId: alice.tokenId })).toEqual(before);
  });

  it('a stream cut by the upstream becomes an error event and is billed for what was delivered', async () => {
    openai.next({ cutAfterChunks: 2 });
    const response = await fetch(`${baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }], stream: true }),
    });
    const text = await response.text();
    expect(response.status).toBe(200);
    const events = text
      .split('\n\n')
      .filter(Boolean)
      .map((event) => event.replace(/^data: /, ''));
    expect(events.at(-1)).toMatch(/"error"/);
    expect(events).not.toContain('[DONE]');
    const delivered = events
      .filter((event) => event.startsWith('{"id"'))
      .map((event) => (JSON.parse(event).choices?.[0]?.delta?.content as string | undefined) ?? '')
      .join('');
    expect(delivered.length).toBeGreaterThan(0);
    expect(delivered.length).toBeLessThan(openai.reply.length);

    const [charge, ...rest] = await chargesOf(target, response.headers.get('x-oneapi-request-id')!);
    expect(rest).toHaveLength(0);
    expect(charge.data.completionTokens).toBe(countTextTokens(delivered, 'gpt-3.5-turbo'));
    expect(charge.data.quota).toBeGreaterThan(0);

    // The SDK surfaces the same event as an APIError while iterating.
    openai.next({ cutAfterChunks: 1 });
    const stream = await client.chat.completions.create({
      model: 'gpt-3.5-turbo',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    await expect(
      (async () => {
        for await (const chunk of stream) void chunk;
      })(),
    ).rejects.toBeInstanceOf(OpenAI.APIError);
  });

  it('admits 200 concurrent requests with quota for 100 exactly 100 times, and charges only those', async () => {
    // No max_tokens: each request reserves PreConsumedQuota (500) × 0.25 = 125; the user holds 100 × 125.
    const bob = await userWithToken(target, 'bob', 12_500);
    const bobClient = sdk(baseURL, bob.key);
    const charges = await chargeCount(target);
    const arrivedBefore = openai.requests.length;
    let release!: () => void;
    // Hold every admitted request at the upstream until all 200 are admitted or refused: none finishes early
    // and hands back its unused reservation, so admission alone decides.
    openai.hold = new Promise<void>((resolve) => (release = resolve));
    let refused = 0;
    const calls = Array.from({ length: 200 }, () =>
      bobClient.chat.completions.create({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] }).catch((error: unknown) => {
        refused++;
        throw error;
      }),
    );
    try {
      const deadline = Date.now() + 20_000;
      while (openai.requests.length - arrivedBefore + refused < 200 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(openai.requests.length - arrivedBefore).toBe(100);
      expect(refused).toBe(100);
    } finally {
      openai.hold = null;
      release();
    }
    const results = await Promise.allSettled(calls);
    const ok = results.filter((result) => result.status === 'fulfilled').length;
    expect(ok).toBe(100);
    for (const result of results) {
      if (result.status === 'rejected')
        expect((result.reason as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ code: 'insufficient_user_quota' });
    }
    expect(await chargeCount(target)).toBe(charges + ok);
    await projected(target);
    const balance = await admission(target).available(bob.id, null);
    expect(balance.user).toBe(12_500 - 8 * ok);
  });
});
