import type OpenAI from 'openai';
import { countInputTokens } from '#server/relay/tokenizer/token-counter';
import type { TestApp } from '../support/app';
import { expectRelayError, type RelayRoutesContext, relayRoutesFixture, requestIdOf } from './relay-routes-support';
import { admission, chargeCount, chargesOf, sdk, userWithToken } from './relay-support';
import { dataSource, projected, setOptions } from './users-support';

jest.setTimeout(120_000);

/**
 * The JSON relay routes besides chat, completions and embeddings (those are in relay-openai.spec.ts): models/:model,
 * the billing routes, moderations, rerank, engines embeddings and the playground; media routes are in
 * relay-routes-media.spec.ts, bad input, 501 routes and CORS in relay-routes-edges.spec.ts. For each: new-api's
 * status and shape for good and bad input; an answered request is charged exactly once, a refused one not at all.
 */
describe('relay routes', () => {
  const fixture = relayRoutesFixture();
  const { openai } = fixture.context;
  const { post, nothingCharged } = fixture;
  let target: TestApp;
  let baseURL: string;
  let origin: string;
  let alice: RelayRoutesContext['alice'];
  let client: OpenAI;

  beforeAll(() => {
    ({ target, baseURL, origin, alice, client } = fixture.context);
  });

  describe('GET /v1/models/:model', () => {
    it('answers a catalogue model in the OpenAI shape, and 200 with model_not_found for an unknown one', async () => {
      const model = await client.models.retrieve('gpt-3.5-turbo');
      expect(model).toMatchObject({
        id: 'gpt-3.5-turbo',
        object: 'model',
        created: 1626777600,
        owned_by: 'openai',
        root: 'gpt-3.5-turbo',
        parent: null,
      });

      const unknown = await fetch(`${baseURL}/models/no-such-model`, { headers: { authorization: `Bearer ${alice.key}` } });
      expect(unknown.status).toBe(200);
      expect(await unknown.json()).toEqual({
        error: {
          message: "The model 'no-such-model' does not exist",
          type: 'invalid_request_error',
          param: 'model',
          code: 'model_not_found',
        },
      });

      const noToken = await fetch(`${baseURL}/models/gpt-3.5-turbo`);
      expect(noToken.status).toBe(401);
      expect(await noToken.json()).toEqual({
        error: { message: expect.stringMatching(/^未提供令牌 \(request id: /), type: 'new_api_error' },
      });
    });

    it("looks in the adaptors' model lists, not in the pricing tables", async () => {
      // dall-e-2 is in OpenAI's list but has no model ratio; gpt-4-all has a ratio but no adaptor lists it.
      expect(await client.models.retrieve('dall-e-2')).toMatchObject({ id: 'dall-e-2', object: 'model', owned_by: 'openai' });
      expect(await client.models.retrieve('claude-instant-1.2')).toMatchObject({ id: 'claude-instant-1.2', owned_by: 'claude' });
      const priced = await fetch(`${baseURL}/models/gpt-4-all`, { headers: { authorization: `Bearer ${alice.key}` } });
      expect(priced.status).toBe(200);
      expect(await priced.json()).toMatchObject({ error: { code: 'model_not_found', message: "The model 'gpt-4-all' does not exist" } });
    });
  });

  describe('GET /dashboard/billing/subscription and /usage (also under /v1)', () => {
    it("answers the token's figures (DisplayTokenStatEnabled), or the user's, in dollars or raw quota, and charges nothing", async () => {
      const bob = await userWithToken(target, 'bill-bob', 2_000_000, { unlimited_quota: false, remain_quota: 1_000_000 });
      const get = async (path: string, key = bob.key) => {
        const response = await fetch(`${origin}${path}`, { headers: { authorization: `Bearer ${key}` } });
        return { status: response.status, body: (await response.json()) as Record<string, unknown> };
      };
      const chargesBefore = await chargeCount(target);
      const subscription = {
        object: 'billing_subscription',
        has_payment_method: true,
        soft_limit_usd: 2,
        hard_limit_usd: 2,
        system_hard_limit_usd: 2,
        access_until: 0,
      };
      expect(await get('/v1/dashboard/billing/subscription')).toEqual({ status: 200, body: subscription });
      expect(await get('/dashboard/billing/subscription')).toEqual({ status: 200, body: subscription });
      expect(await get('/dashboard/billing/usage')).toEqual({ status: 200, body: { object: 'list', total_usage: 0 } });
      expect(await chargeCount(target)).toBe(chargesBefore);

      // One answered request: the token's used quota grows, its remain shrinks, remain + used stays the limit.
      await sdk(baseURL, bob.key).chat.completions.create({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] });
      await projected(target);
      const [row] = await dataSource(target).query('SELECT used_quota FROM token_balances WHERE token_id = $1', [bob.tokenId]);
      const used = Number(row.used_quota);
      expect(used).toBeGreaterThan(0);
      expect(await get('/v1/dashboard/billing/usage')).toEqual({
        status: 200,
        body: { object: 'list', total_usage: (used / 500_000) * 100 },
      });
      expect((await get('/v1/dashboard/billing/subscription')).body).toMatchObject({ hard_limit_usd: 2 });

      // The user's figures: quota 2,000,000 − used, plus used.
      await setOptions(target, { DisplayTokenStatEnabled: 'false' });
      try {
        expect((await get('/v1/dashboard/billing/subscription')).body).toMatchObject({ hard_limit_usd: 4, soft_limit_usd: 4 });
        await setOptions(target, { DisplayInCurrencyEnabled: 'false' });
        expect((await get('/v1/dashboard/billing/subscription')).body).toMatchObject({ hard_limit_usd: 2_000_000 });
        expect(await get('/dashboard/billing/usage')).toEqual({ status: 200, body: { object: 'list', total_usage: used * 100 } });
      } finally {
        await setOptions(target, { DisplayTokenStatEnabled: 'true', DisplayInCurrencyEnabled: 'true' });
      }

      // An unlimited token reports 100000000; a bad key gets TokenAuth's 401 in the middleware shape.
      const unlimited = await userWithToken(target, 'bill-carol', 1_000_000);
      expect((await get('/dashboard/billing/subscription', unlimited.key)).body).toMatchObject({
        hard_limit_usd: 100000000,
        access_until: 0,
      });
      expect(await get('/dashboard/billing/usage', 'sk-nope')).toEqual({
        status: 401,
        body: { error: { message: expect.stringMatching(/^无效的令牌 \(request id: /), type: 'new_api_error' } },
      });
    });
  });

  describe('POST /v1/moderations', () => {
    it('selects by text-moderation-stable, sends text-moderation-latest upstream when no model is named, and charges once', async () => {
      const before = openai.requests.length;
      const { data, response } = await client.moderations.create({ input: 'I want to hug you' }).withResponse();
      expect(data.results[0].flagged).toBe(false);
      expect(openai.bodies()[before]).toMatchObject({ model: 'text-moderation-latest', input: 'I want to hug you' });
      const charges = await chargesOf(target, requestIdOf(response));
      expect(charges).toHaveLength(1);
      // The fixture reports no usage: the input is counted locally (ratio 0.1).
      const tokens = countInputTokens('I want to hug you', 'text-moderation-latest');
      expect(charges[0].data).toMatchObject({
        modelName: 'text-moderation-stable',
        upstreamModel: 'text-moderation-latest',
        promptTokens: tokens,
        quota: Math.round(tokens * 0.1) || 1,
      });

      const named = await client.moderations.create({ model: 'omni-moderation-latest', input: ['a', 'b'] }).withResponse();
      expect(openai.bodies().at(-1)).toMatchObject({ model: 'omni-moderation-latest', input: ['a', 'b'] });
      expect(await chargesOf(target, requestIdOf(named.response))).toHaveLength(1);
    });

    it('refuses a missing input, malformed JSON and an unknown model, charging nothing', async () => {
      await nothingCharged(async () => {
        await expectRelayError(await post('/v1/moderations', '{}'), 400, {
          type: 'new_api_error',
          code: 'invalid_text_request',
          message: expect.stringMatching(/^field input is required/),
        });
        await expectRelayError(await post('/v1/moderations', '{"input": "x",'), 400, {
          type: 'new_api_error',
          message: expect.stringMatching(/^无效的请求, /),
        });
        await expectRelayError(await post('/v1/moderations', JSON.stringify({ model: 'nope', input: 'x' })), 503, {
          message: expect.stringMatching(/^当前分组 default 下对于模型 nope 无可用渠道/),
        });
      });
    });
  });

  describe('POST /v1/rerank', () => {
    it('relays to a rerank channel and bills the upstream usage once', async () => {
      const before = openai.requests.length;
      const body = {
        model: 'jina-reranker-v2-base-multilingual',
        query: 'Organic skincare',
        documents: ['Eco-friendly kitchenware', 'Organic skincare for sensitive skin'],
        top_n: 1,
      };
      const response = await post('/v1/rerank', JSON.stringify(body));
      expect(response.status).toBe(200);
      const answer = (await response.json()) as { results: Array<{ index: number }> };
      expect(answer.results.length).toBeGreaterThan(0);
      expect(openai.requests[before].url).toBe('/v1/rerank');
      expect(openai.bodies()[before]).toEqual(body);
      const [charge, ...more] = await chargesOf(target, requestIdOf(response));
      expect(more).toHaveLength(0);
      expect(charge.data).toMatchObject({ modelName: 'jina-reranker-v2-base-multilingual', relayMode: 'rerank', promptTokens: 38 });
    });

    it('refuses a missing query or documents, a missing or unknown model, charging nothing', async () => {
      await nothingCharged(async () => {
        const invalid = { code: 'invalid_text_request' };
        await expectRelayError(
          await post('/v1/rerank', JSON.stringify({ model: 'jina-reranker-v2-base-multilingual', documents: ['a'] })),
          400,
          { ...invalid, message: expect.stringMatching(/^field query is required/) },
        );
        await expectRelayError(
          await post('/v1/rerank', JSON.stringify({ model: 'jina-reranker-v2-base-multilingual', query: 'q', documents: [] })),
          400,
          { ...invalid, message: expect.stringMatching(/^field documents is required/) },
        );
        await expectRelayError(await post('/v1/rerank', JSON.stringify({ query: 'q', documents: ['a'] })), 400, {
          ...invalid,
          message: expect.stringMatching(/^model is required/),
        });
        await expectRelayError(await post('/v1/rerank', JSON.stringify({ model: 'rerank-nope', query: 'q', documents: ['a'] })), 503, {
          message: expect.stringMatching(/无可用渠道/),
        });
      });
    });
  });

  describe('POST /v1/engines/:model/embeddings', () => {
    it('takes the model from the path when the body names none, forwards to the same path and charges once', async () => {
      const before = openai.requests.length;
      const response = await post('/v1/engines/text-embedding-ada-002/embeddings', JSON.stringify({ input: 'hello' }));
      expect(response.status).toBe(200);
      expect(((await response.json()) as { data: unknown[] }).data).toHaveLength(1);
      expect(openai.requests[before].url).toBe('/v1/engines/text-embedding-ada-002/embeddings');
      expect(openai.bodies()[before]).toEqual({ input: 'hello', model: 'text-embedding-ada-002' });
      const [charge, ...more] = await chargesOf(target, requestIdOf(response));
      expect(more).toHaveLength(0);
      expect(charge.data).toMatchObject({ modelName: 'text-embedding-ada-002', promptTokens: openai.promptTokens });
    });

    it('refuses a missing input and an unknown model in the path, charging nothing', async () => {
      await nothingCharged(async () => {
        await expectRelayError(await post('/v1/engines/text-embedding-ada-002/embeddings', '{}'), 400, { code: 'invalid_text_request' });
        await expectRelayError(await post('/v1/engines/nope/embeddings', JSON.stringify({ input: 'x' })), 503, {
          message: expect.stringMatching(/模型 nope 无可用渠道/),
        });
      });
    });
  });

  describe('POST /pg/chat/completions', () => {
    let session: { cookie: string; id: string };

    beforeAll(async () => {
      const login = await target.http().post('/api/user/login').send({ username: 'alice', password: 'password123' });
      expect(login.body.success).toBe(true);
      const cookies = login.headers['set-cookie'] as unknown as string[];
      session = { cookie: cookies.map((cookie) => cookie.split(';')[0]).join('; '), id: String(login.body.data.id) };
    });

    const playground = (body: string, auth = true) =>
      fetch(`${origin}/pg/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(auth ? { cookie: session.cookie, 'new-api-user': session.id } : {}) },
        body,
      });

    it('relays with the session user and the group from the body, charging the user only, once', async () => {
      const before = openai.requests.length;
      await projected(target);
      const tokenBefore = (await admission(target).available(alice.id, alice.tokenId)).token;
      const response = await playground(
        JSON.stringify({ model: 'gpt-4o-mini', group: 'vip', messages: [{ role: 'user', content: 'hi' }], temperature: 0 }),
      );
      expect(response.status).toBe(200);
      const answer = (await response.json()) as { choices: Array<{ message: { content: string } }> };
      expect(answer.choices[0].message.content).toBe(openai.reply);
      expect(openai.requests[before].url).toBe('/v1/chat/completions');
      expect(openai.bodies()[before]).toMatchObject({ model: 'gpt-4o-mini', temperature: 0 });
      const [charge, ...more] = await chargesOf(target, requestIdOf(response));
      expect(more).toHaveLength(0);
      expect(charge.data).toMatchObject({ userId: alice.id, tokenId: 0, tokenName: 'playground-vip', group: 'vip', tokenUnlimited: true });
      await projected(target);
      expect((await admission(target).available(alice.id, alice.tokenId)).token).toBe(tokenBefore);

      const streamed = await playground(
        JSON.stringify({ model: 'gpt-4o-mini', group: 'vip', messages: [{ role: 'user', content: 'hi' }], stream: true }),
      );
      expect(streamed.headers.get('content-type')).toBe('text/event-stream');
      expect(await streamed.text()).toMatch(/data: \[DONE\]\n\n$/);
      expect(await chargesOf(target, requestIdOf(streamed))).toHaveLength(1);
    });

    it('refuses no session, an access token, no model, a group not usable, no channel and malformed JSON, charging nothing', async () => {
      await nothingCharged(async () => {
        const noSession = await playground(JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }), false);
        expect(noSession.status).toBe(401);
        expect(await noSession.json()).toEqual({ success: false, message: expect.any(String) });

        const accessToken = await fetch(`${origin}/pg/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: alice.token },
          body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
        });
        await expectRelayError(accessToken, 400, {
          code: 'access_token_not_supported',
          message: expect.stringMatching(/^暂不支持使用 access token/),
        });

        await expectRelayError(await playground(JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] })), 400, {
          code: 'model_required',
          message: expect.stringMatching(/^请选择模型/),
        });
        await expectRelayError(
          await playground(JSON.stringify({ model: 'gpt-4o-mini', group: 'svip', messages: [{ role: 'user', content: 'hi' }] })),
          403,
          {
            code: 'group_not_allowed',
            message: expect.stringMatching(/^无权访问该分组/),
          },
        );
        await expectRelayError(
          await playground(JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })),
          500,
          {
            code: 'get_playground_channel_failed',
            message: expect.stringMatching(/^当前分组 default 下对于模型 gpt-4o-mini 无可用渠道/),
          },
        );
        await expectRelayError(await playground('{"model": "gpt-4o-mini",'), 400, { code: 'unmarshal_request_failed' });
      });
    });
  });
});
