import type OpenAI from 'openai';
import { createTestApp, type TestApp } from '../support/app';
import { call, type Caller, dataSource, projected, rootCaller, setOptions } from './users-support';
import { createChannel, expectSingleCharge, type ChannelSpec, listen, routable, sdk, userWithToken } from './relay-support';

/**
 * Shared steps of the Baidu, Zhipu and Ali relay specs (test/e2e/relay-provider-{baidu,zhipu,ali}.spec.ts): an app
 * with automatic disabling on, channels created through the admin API, a user with a limited token and the official SDK.
 */
export interface CnProviderApp {
  target: TestApp;
  baseURL: string;
  root: Caller;
  user: Caller & { key: string; tokenId: number };
  client: OpenAI;
}

export async function startCnProviderApp(username: string, channels: ChannelSpec[]): Promise<CnProviderApp> {
  const target = await createTestApp();
  const baseURL = await listen(target);
  const root = await rootCaller(target);
  await setOptions(target, { AutomaticDisableChannelEnabled: 'true', AutomaticEnableChannelEnabled: 'true' });
  for (const channel of channels) await createChannel(target, root, channel);
  const user = await userWithToken(target, username, 100_000_000, { unlimited_quota: false, remain_quota: 50_000_000 });
  for (const model of new Set(channels.flatMap((channel) => channel.models))) await routable(target, user.key, baseURL, model);
  return { target, baseURL, root, user, client: sdk(baseURL, user.key) };
}

/** The one QuotaConsumed event of a request, checked against the tokens the provider reported. */
export function expectOneCharge(
  app: CnProviderApp,
  requestId: string,
  model: string,
  tokens: [number, number],
  isStream: boolean,
): Promise<void> {
  return expectSingleCharge(app.target, requestId, { userId: app.user.id, tokenId: app.user.tokenId, model, tokens, isStream });
}

export async function channelIdByName(app: CnProviderApp, name: string): Promise<number> {
  const rows: Array<{ id: number }> = await dataSource(app.target).query('SELECT id FROM channels WHERE name = $1', [name]);
  return rows[0].id;
}

/** Turns on auto_ban for a channel (the relay-support helper creates channels with it off). */
export async function enableAutoBan(app: CnProviderApp, id: number): Promise<void> {
  const response = await call(app.target, app.root, 'put', '/api/channel/', { id, auto_ban: 1 }).expect(200);
  if (!response.body.success) throw new Error(`channel update refused: ${JSON.stringify(response.body)}`);
  await projected(app.target);
}

/** The channel as the admin API shows it (status 1 enabled, 3 disabled automatically). */
export async function channelRow(app: CnProviderApp, id: number): Promise<Record<string, any>> {
  await projected(app.target);
  const response = await call(app.target, app.root, 'get', `/api/channel/${id}`).expect(200);
  return response.body.data as Record<string, any>;
}

/** Runs the channel test route and returns its body. */
export async function testChannel(app: CnProviderApp, id: number): Promise<{ success: boolean; message: string }> {
  return (await call(app.target, app.root, 'get', `/api/channel/test/${id}`).expect(200)).body as { success: boolean; message: string };
}

/** Reads a streamed chat through the SDK: the text, the last finish_reason and the usage chunk. */
export async function readStream(stream: AsyncIterable<OpenAI.ChatCompletionChunk>) {
  let text = '';
  let finish: string | null = null;
  let usage: OpenAI.CompletionUsage | null = null;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta?.content ?? '';
    finish = chunk.choices[0]?.finish_reason ?? finish;
    if (chunk.usage) usage = chunk.usage;
  }
  return { text, finish, usage };
}
