import type OpenAI from 'openai';
import { countPromptTokens } from '#server/relay/pipeline/relay-request';
import { countTextTokens } from '#server/relay/tokenizer/token-counter';
import type { TestApp } from '../support/app';
import { messages, type RelayProvidersContext, relayProvidersFixture } from './relay-providers-support';
import { chargeCount, expectSingleCharge } from './relay-support';

jest.setTimeout(90_000);

/**
 * Every supported channel type (docs/providers.md) through the relay with the official SDK, each against a local fake that speaks
 * its provider's wire protocol: a plain and a streamed chat charged exactly once with the tokens the provider
 * reported (or, where the provider is not asked for stream usage, the relay's local count), the request each
 * provider must receive (URL, credentials), and an upstream error mapped to the status and shape the client sees.
 * The provider table is in relay-providers-support.ts; what one provider does beyond its row is in
 * relay-providers-specifics.spec.ts.
 */
describe('relay: every supported provider through the official SDK', () => {
  const fixture = relayProvidersFixture();
  const { providers } = fixture;
  let target: TestApp;
  let client: OpenAI;
  let user: RelayProvidersContext['user'];

  beforeAll(() => {
    ({ target, client, user } = fixture.context);
  });

  const expectOneCharge = (requestId: string, model: string, tokens: [number, number], isStream: boolean) =>
    expectSingleCharge(target, requestId, { userId: user.id, tokenId: user.tokenId, model, tokens, isStream });

  describe.each(providers.map((provider) => [provider.type, provider.label, provider] as const))(
    'type %i (%s)',
    (_type, _label, provider) => {
      it('answers a plain chat, calls the provider URL with its credentials and charges the reported usage once', async () => {
        const fake = provider.fake();
        const before = fake.requests.length;
        const { data, response } = await client.chat.completions.create({ model: provider.model, messages, temperature: 0 }).withResponse();
        expect(data.choices[0].message.content).toBe(provider.reply());
        expect(data.choices[0].finish_reason).toBe('stop');
        expect(data.usage).toMatchObject({ prompt_tokens: provider.usage.plain[0], completion_tokens: provider.usage.plain[1] });

        expect(fake.requests).toHaveLength(before + 1);
        const upstream = fake.requests[before];
        expect(upstream.url).toBe(provider.path(false));
        provider.auth(upstream);
        const sent = JSON.parse(upstream.body) as Record<string, any>;
        if (provider.type === 14)
          expect(sent).toMatchObject({ model: provider.model, system: 'You are a test.', temperature: 0, max_tokens: 4096 });
        else if (provider.type === 24)
          expect(sent).toMatchObject({ systemInstruction: { parts: [{ text: 'You are a test.' }] }, generationConfig: { temperature: 0 } });
        else expect(sent).toMatchObject({ model: provider.model, messages, temperature: 0 });

        await expectOneCharge(response.headers.get('x-oneapi-request-id')!, provider.model, provider.usage.plain, false);
      });

      it('streams the answer, hands the client the usage it asked for, and charges it once', async () => {
        const fake = provider.fake();
        const before = fake.requests.length;
        const body = { model: provider.model, messages, stream: true as const, stream_options: { include_usage: true } };
        const { data: stream, response } = await client.chat.completions.create(body).withResponse();
        let text = '';
        let finish: string | null | undefined;
        let usage: OpenAI.CompletionUsage | null | undefined;
        for await (const chunk of stream) {
          text += chunk.choices[0]?.delta?.content ?? '';
          finish = chunk.choices[0]?.finish_reason ?? finish;
          if (chunk.usage) usage = chunk.usage;
        }
        expect(text).toBe(provider.reply());
        expect(finish).toBe('stop');

        const upstream = fake.requests[before];
        expect(upstream.url).toBe(provider.path(true));
        provider.auth(upstream);
        const sent = JSON.parse(upstream.body) as Record<string, any>;
        // Only OpenAI and Ollama are asked for stream usage; the others would reject or ignore stream_options.
        if (provider.type === 1 || provider.type === 4) expect(sent.stream_options).toEqual({ include_usage: true });
        else expect(sent.stream_options).toBeUndefined();

        const expected: [number, number] =
          provider.usage.stream === 'local'
            ? [countPromptTokens('chat', body as never, provider.model), countTextTokens(provider.reply(), provider.model)]
            : provider.usage.stream;
        expect(usage).toMatchObject({ prompt_tokens: expected[0], completion_tokens: expected[1] });
        await expectOneCharge(response.headers.get('x-oneapi-request-id')!, provider.model, expected, true);
      });

      it('maps the upstream refusal to the status and error shape the client sees, charging nothing', async () => {
        const charges = await chargeCount(target);
        const error = await client.chat.completions.create({ model: provider.failure.model, messages }).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(provider.failure.errorClass);
        const apiError = error as InstanceType<typeof OpenAI.APIError>;
        expect(apiError.status).toBe(provider.failure.status);
        expect(apiError.error).toMatchObject({ message: expect.stringMatching(/ \(request id: [\w-]+\)$/), ...provider.failure.error });
        expect(await chargeCount(target)).toBe(charges);
      });
    },
  );
});
