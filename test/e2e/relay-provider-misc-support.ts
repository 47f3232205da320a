import OpenAI from 'openai';
import { countPromptTokens } from '#server/relay/pipeline/relay-request';
import { countTextTokens } from '#server/relay/tokenizer/token-counter';
import type { HttpFake } from '../fakes/http-fake';
import { createTestApp, type TestApp } from '../support/app';
import { expectSingleCharge, listen, routable, sdk, userWithToken } from './relay-support';
import { call, type Caller, dataSource, projected, rootCaller, setOptions } from './users-support';

/**
 * The app of one relay-provider-<name>.spec.ts (Cohere, Tencent, Cloudflare, Dify, PaLM, MiniMax): the provider's fake,
 * a working channel and a channel whose key the fake refuses (auto-ban on), a user with a limited token, and the
 * official SDK. The steps every such spec shares are below.
 */
export interface MiscProviderContext {
  target: TestApp;
  baseURL: string;
  root: Caller;
  user: Caller & { key: string; tokenId: number };
  client: OpenAI;
  /** Channel ids by the name given in `channels`. */
  channelIds: Record<string, number>;
}

export interface MiscChannel {
  name: string;
  type: number;
  key: string;
  baseUrl: () => string;
  models: string[];
  other?: string;
}

export const messages: OpenAI.ChatCompletionMessageParam[] = [
  { role: 'system', content: 'You are a test.' },
  { role: 'user', content: 'Say hello.' },
];

export function miscProviderFixture(fakes: HttpFake[], channels: MiscChannel[]) {
  const context = { channelIds: {} } as MiscProviderContext;
  beforeAll(async () => {
    await Promise.all(fakes.map((fake) => fake.start()));
    const target = (context.target = await createTestApp());
    context.baseURL = await listen(target);
    const root = (context.root = await rootCaller(target));
    await setOptions(target, { AutomaticDisableChannelEnabled: 'true' });
    for (const channel of channels) {
      const response = await call(target, root, 'post', '/api/channel/', {
        type: channel.type,
        key: channel.key,
        name: channel.name,
        base_url: channel.baseUrl(),
        models: channel.models.join(','),
        group: 'default',
        other: channel.other ?? '',
        auto_ban: 1,
      }).expect(200);
      if (!response.body.success) throw new Error(`channel create refused: ${JSON.stringify(response.body)}`);
      const rows: Array<{ id: number }> = await dataSource(target).query('SELECT id FROM channels WHERE name = $1', [channel.name]);
      context.channelIds[channel.name] = rows[0].id;
    }
    context.user = await userWithToken(target, 'misc', 100_000_000, { unlimited_quota: false, remain_quota: 50_000_000 });
    context.client = sdk(context.baseURL, context.user.key);
    for (const channel of channels) for (const model of channel.models) await routable(target, context.user.key, context.baseURL, model);
  });
  afterAll(async () => {
    await context.target?.close();
    await Promise.all(fakes.map((fake) => fake.close()));
  });
  return context;
}

/** Exactly one charge for the request, to the user's account and token, with these tokens. */
export function expectOneCharge(
  context: MiscProviderContext,
  requestId: string,
  model: string,
  tokens: [number, number],
  isStream: boolean,
): Promise<void> {
  return expectSingleCharge(context.target, requestId, { userId: context.user.id, tokenId: context.user.tokenId, model, tokens, isStream });
}

/** Streams a chat through the SDK, asking for usage: the text, the finish reason, the usage and the request id. */
export async function streamChat(
  context: MiscProviderContext,
  model: string,
  extra: Partial<OpenAI.ChatCompletionCreateParamsStreaming> = {},
) {
  const body = { model, messages, stream: true as const, stream_options: { include_usage: true }, ...extra };
  const { data: stream, response } = await context.client.chat.completions.create(body).withResponse();
  let text = '';
  let finish: string | null | undefined;
  let usage: OpenAI.CompletionUsage | null | undefined;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta?.content ?? '';
    finish = chunk.choices[0]?.finish_reason ?? finish;
    if (chunk.usage) usage = chunk.usage;
  }
  return { text, finish, usage, requestId: response.headers.get('x-oneapi-request-id')!, body };
}

/** The relay's local count of a streamed chat: the prompt from the request, the completion from the text. */
export function localCount(body: Record<string, unknown>, model: string, text: string): [number, number] {
  return [countPromptTokens('chat', body as never, model), countTextTokens(text, model)];
}

/** The channel row as the admin API returns it. */
export async function channelRow(context: MiscProviderContext, id: number): Promise<Record<string, any>> {
  await projected(context.target);
  const response = await call(context.target, context.root, 'get', `/api/channel/${id}`).expect(200);
  if (!response.body.success) throw new Error(JSON.stringify(response.body));
  return response.body.data;
}

/** Waits until the channel is auto-disabled (status 3) after a fatal upstream answer. */
export async function expectAutoDisabled(context: MiscProviderContext, id: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const row = await channelRow(context, id);
    if (row.status === 3) return;
    if (Date.now() > deadline) throw new Error(`channel ${id} still has status ${row.status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export { OpenAI };

/** The admin channel test (`GET /api/channel/test/:id`): `{success, message, time}`. */
export async function channelTest(
  context: MiscProviderContext,
  name: string,
): Promise<{ success: boolean; message: string; time: number }> {
  const response = await call(context.target, context.root, 'get', `/api/channel/test/${context.channelIds[name]}`).expect(200);
  return response.body;
}
