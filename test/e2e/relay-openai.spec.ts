import type OpenAI from 'openai';
import { JOURNAL_LINGER_MS } from '#server/relay/settlement/group-commit';
import { quotaConsumedEventId, RelaySettlementService } from '#server/relay/settlement/relay-settlement.service';
import { countTextTokens } from '#server/relay/tokenizer/token-counter';
import type { TestApp } from '../support/app';
import { type RelayOpenAIContext, relayOpenAIFixture } from './relay-openai-support';
import { chargeCount, chargesOf, sdk, userWithToken } from './relay-support';
import { call, projected } from './users-support';

jest.setTimeout(60_000);

/**
 * The relay through the official `openai` SDK against local fakes of the upstreams: every answered request is
 * charged exactly once through the ledger (chat, completions, embeddings, the model list, Anthropic and Gemini
 * channels, the settlement batches); errors and what they charge are in relay-openai-errors.spec.ts.
 */
describe('relay: OpenAI-compatible API (official SDK)', () => {
  const fixture = relayOpenAIFixture();
  const { openai, anthropic, gemini } = fixture.context;
  let target: TestApp;
  let baseURL: string;
  let alice: RelayOpenAIContext['alice'];
  let client: OpenAI;

  beforeAll(() => {
    ({ target, baseURL, alice, client } = fixture.context);
  });

  describe('chat completions', () => {
    it('answers a plain chat, forwards fields as sent and charges once', async () => {
      const before = openai.requests.length;
      const { data, response } = await client.chat.completions
        .create({
          model: 'gpt-3.5-turbo',
          messages: [{ role: 'user', content: 'hi' }],
          temperature: 0,
          top_p: 0,
          seed: 0,
          custom_field: { a: 1 },
        } as never)
        .withResponse();
      expect(data.choices[0].message.content).toBe(openai.reply);
      expect(data.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 7 });

      const upstream = openai.bodies()[before];
      expect(upstream).toMatchObject({ model: 'gpt-3.5-turbo', temperature: 0, top_p: 0, seed: 0, custom_field: { a: 1 } });
      expect(openai.requests[before].headers.authorization).toBe('Bearer upstream-key');

      const requestId = response.headers.get('x-oneapi-request-id')!;
      const charges = await chargesOf(target, requestId);
      expect(charges).toHaveLength(1);
      // gpt-3.5-turbo: ratio 0.25, completion ratio 3 → round((12 + 21) × 0.25) = 8
      expect(charges[0]).toMatchObject({
        streamId: `account-${alice.id}`,
        eventId: quotaConsumedEventId(requestId),
        data: {
          userId: alice.id,
          tokenId: alice.tokenId,
          modelName: 'gpt-3.5-turbo',
          promptTokens: 12,
          completionTokens: 7,
          quota: 8,
          isStream: false,
        },
      });
      expect(charges[0].data.channelPath).toHaveLength(1);
    });

    it('streams chunk by chunk; the usage chunk reaches the client only when asked for', async () => {
      const before = openai.requests.length;
      const stream = await client.chat.completions.create({
        model: 'gpt-3.5-turbo',
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
      });
      let text = '';
      let usageSeen = false;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? '';
        if (chunk.usage) usageSeen = true;
      }
      expect(text).toBe(openai.reply);
      expect(usageSeen).toBe(false);
      // The relay asked the upstream for usage anyway, and billed it.
      expect(openai.bodies()[before].stream_options).toEqual({ include_usage: true });

      const withUsage = await client.chat.completions
        .create({
          model: 'gpt-3.5-turbo',
          messages: [{ role: 'user', content: 'hi' }],
          stream: true,
          stream_options: { include_usage: true },
        })
        .withResponse();
      let usage: OpenAI.CompletionUsage | undefined | null;
      for await (const chunk of withUsage.data) if (chunk.usage) usage = chunk.usage;
      expect(usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 7 });
      const charges = await chargesOf(target, withUsage.response.headers.get('x-oneapi-request-id')!);
      expect(charges).toHaveLength(1);
      expect(charges[0].data).toMatchObject({ isStream: true, promptTokens: 12, completionTokens: 7, quota: 8 });
      expect(charges[0].data.firstTokenMs).toBeGreaterThanOrEqual(0);
    });

    it('returns tool calls', async () => {
      const completion = await client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'weather in Paris?' }],
        tools: [
          { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
        ],
      });
      expect(completion.choices[0].message.tool_calls?.[0]).toMatchObject({ type: 'function' });
    });

    it('sends the mapped model upstream and logs both names', async () => {
      const before = openai.requests.length;
      const { response } = await client.chat.completions
        .create({ model: 'mapped-model', messages: [{ role: 'user', content: 'hi' }] })
        .withResponse();
      expect(openai.bodies()[before].model).toBe('gpt-4o-mini');
      const [charge] = await chargesOf(target, response.headers.get('x-oneapi-request-id')!);
      expect(charge.data).toMatchObject({ modelName: 'mapped-model', upstreamModel: 'gpt-4o-mini' });
    });

    it('counts locally when the upstream reports no usage', async () => {
      openai.next({ omitUsage: true });
      const { response } = await client.chat.completions
        .create({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hello world' }] })
        .withResponse();
      const [charge] = await chargesOf(target, response.headers.get('x-oneapi-request-id')!);
      expect(charge.data.promptTokens).toBe(9);
      expect(charge.data.completionTokens).toBe(countTextTokens(openai.reply, 'gpt-3.5-turbo'));
    });
  });

  describe('other routes', () => {
    it('answers completions, embeddings and the model list', async () => {
      const completion = await client.completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'Say hi' });
      expect(completion.choices[0].text).toBe(openai.reply);
      const embedding = await client.embeddings.create({ model: 'text-embedding-3-small', input: ['a', 'b'] });
      expect(embedding.data).toHaveLength(2);
      const models = await client.models.list();
      const ids = models.data.map((model) => model.id);
      expect(ids).toEqual(expect.arrayContaining(['gpt-3.5-turbo', 'claude-3-haiku-20240307', 'gemini-1.5-flash-latest']));
    });

    it('lists models for a token whose IP allow-list excludes the caller, but refuses it a chat (as new-api)', async () => {
      const carol = await userWithToken(target, 'carol', 100_000, { allow_ips: '10.9.8.7' });
      const carolClient = sdk(baseURL, carol.key);
      const models = await carolClient.models.list();
      expect(models.data.length).toBeGreaterThan(0);
      const charges = await chargeCount(target);
      await expect(
        carolClient.chat.completions.create({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] }),
      ).rejects.toMatchObject({
        status: 403,
      });
      expect(await chargeCount(target)).toBe(charges);
    });

    it('refuses an empty limited token with the exhausted message, marks it exhausted and charges nothing', async () => {
      const dave = await userWithToken(target, 'dave', 100_000, { unlimited_quota: false, remain_quota: 0 });
      const charges = await chargeCount(target);
      const refused = await fetch(`${baseURL}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${dave.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toContain('该令牌额度已用尽');
      expect(await chargeCount(target)).toBe(charges);
      await projected(target);
      const token = await call(target, dave, 'get', `/api/token/${dave.tokenId}`).expect(200);
      expect(token.body.data.status).toBe(4);
    });

    it('relays Anthropic and Gemini channels through the same API, plain and streamed', async () => {
      const claude = await client.chat.completions.create({
        model: 'claude-3-haiku-20240307',
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(claude.choices[0].message.content).toEqual(expect.any(String));
      expect(anthropic.requests.at(-1)?.url).toBe('/v1/messages');

      let claudeText = '';
      for await (const chunk of await client.chat.completions.create({
        model: 'claude-3-haiku-20240307',
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
      })) {
        claudeText += chunk.choices[0]?.delta?.content ?? '';
      }
      expect(claudeText.length).toBeGreaterThan(0);

      const gem = await client.chat.completions.create({ model: 'gemini-1.5-flash-latest', messages: [{ role: 'user', content: 'hi' }] });
      expect(gem.choices[0].message.content).toEqual(expect.any(String));
      let gemText = '';
      for await (const chunk of await client.chat.completions.create({
        model: 'gemini-1.5-flash-latest',
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
      })) {
        gemText += chunk.choices[0]?.delta?.content ?? '';
      }
      expect(gemText.length).toBeGreaterThan(0);
      expect(gemini.requests.some((request) => request.url.includes(':streamGenerateContent'))).toBe(true);
    });
  });

  describe('settlement', () => {
    it('batches a few milliseconds of charges per ledger statement, since answers end once the journal holds the charge', async () => {
      const settlement = target.app.get(RelaySettlementService, { strict: false });
      expect(settlement.groupCommitSettings()).toMatchObject({ lingerMs: JOURNAL_LINGER_MS, maxBatch: 64, durability: 'async' });
      const charges = await chargeCount(target);
      const before = settlement.groupCommitStats();
      // Answered at once, charged within the linger: ten requests in parallel leave in one statement.
      await Promise.all(
        Array.from({ length: 10 }, () =>
          client.chat.completions.create({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] }),
        ),
      );
      expect(await chargeCount(target)).toBe(charges + 10);
      const after = settlement.groupCommitStats();
      expect(after.appends - before.appends).toBe(10);
      expect(after.batches - before.batches).toBeLessThan(10);
    });
  });
});
