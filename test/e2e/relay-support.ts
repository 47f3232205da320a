import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { QuotaAdmissionService } from '#server/relay/admission/quota-admission.service';
import type { TestApp } from '../support/app';
import { call, type Caller, dataSource, projected, register, setOptions, shipped } from './users-support';
import { quotaConsumedEventId } from '#server/modules/accounts/index';
import { chargeOfRow } from '#test/support/quota-consumed-fixture';

/** Shared steps of the relay e2e specs (test/e2e/relay-*.spec.ts). */

/** Starts the in-process server on a real port (the official SDK needs a URL) and returns its /v1 base URL. */
export async function listen(target: TestApp): Promise<string> {
  await target.app.listen(0, '127.0.0.1');
  const address = target.app.getHttpServer().address() as AddressInfo;
  return `http://127.0.0.1:${address.port}/v1`;
}

export function sdk(baseURL: string, key: string): OpenAI {
  return new OpenAI({ apiKey: key, baseURL, maxRetries: 0, timeout: 20_000 });
}

/** A registered user holding `quota` (granted at registration) and the sk- key of a new token of theirs. */
export async function userWithToken(
  target: TestApp,
  username: string,
  quota: number,
  token: {
    remain_quota?: number;
    unlimited_quota?: boolean;
    model_limits_enabled?: boolean;
    model_limits?: string;
    allow_ips?: string;
  } = {},
): Promise<Caller & { key: string; tokenId: number }> {
  await setOptions(target, { QuotaForNewUser: String(quota) });
  const user = await register(target, username);
  const created = await call(target, user, 'post', '/api/token/', {
    name: `${username}-token`,
    remain_quota: token.remain_quota ?? 0,
    expired_time: -1,
    unlimited_quota: token.unlimited_quota ?? true,
    model_limits_enabled: token.model_limits_enabled ?? false,
    model_limits: token.model_limits ?? '',
    allow_ips: token.allow_ips ?? '',
    group: '',
  }).expect(200);
  if (!created.body.success) throw new Error(`token create refused: ${JSON.stringify(created.body)}`);
  const list = await call(target, user, 'get', '/api/token/?p=0&size=1').expect(200);
  const row = list.body.data.items?.[0] ?? list.body.data[0];
  await projected(target);
  return { ...user, key: `sk-${row.key}`, tokenId: row.id };
}

export interface ChannelSpec {
  type: number;
  name: string;
  baseUrl: string;
  models: string[];
  key?: string;
  group?: string;
  priority?: number;
  weight?: number;
  modelMapping?: Record<string, string>;
  other?: string;
  statusCodeMapping?: Record<string, string>;
}

/** Creates a channel through the admin API and returns its id. */
export async function createChannel(target: TestApp, admin: Caller, spec: ChannelSpec): Promise<number> {
  const response = await call(target, admin, 'post', '/api/channel/', {
    type: spec.type,
    key: spec.key ?? 'upstream-key',
    name: spec.name,
    base_url: spec.baseUrl,
    models: spec.models.join(','),
    group: spec.group ?? 'default',
    priority: spec.priority ?? 0,
    weight: spec.weight ?? 0,
    model_mapping: spec.modelMapping ? JSON.stringify(spec.modelMapping) : '',
    other: spec.other ?? '',
    status_code_mapping: spec.statusCodeMapping ? JSON.stringify(spec.statusCodeMapping) : '',
    auto_ban: 0,
  }).expect(200);
  if (!response.body.success) throw new Error(`channel create refused: ${JSON.stringify(response.body)}`);
  const rows: Array<{ id: number }> = await dataSource(target).query('SELECT id FROM channels WHERE name = $1 ORDER BY id DESC LIMIT 1', [
    spec.name,
  ]);
  return rows[0].id;
}

/** Waits until the router (reloaded through cache invalidation) serves `model` in `group`. */
export async function routable(target: TestApp, key: string, baseURL: string, model: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const response = await fetch(`${baseURL}/models`, { headers: { authorization: `Bearer ${key}` } });
    const body = (await response.json()) as { data?: Array<{ id: string }> };
    if (body.data?.some((entry) => entry.id === model)) return;
    if (Date.now() > deadline) throw new Error(`model ${model} never became routable: ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export interface ChargeEvent {
  streamId: string;
  eventId: string;
  data: Record<string, any>;
}

/** The QuotaConsumed events of a request id (there must be exactly one per answered request). */
export async function chargesOf(target: TestApp, requestId: string): Promise<ChargeEvent[]> {
  await shipped(target);
  // A charge's event id is derived from its request id (its stored payload need not carry it: the codec says).
  const rows: Array<{ stream_id: string; event_id: string; data: unknown }> = await dataSource(target).query(
    `SELECT stream_id, event_id, data FROM events WHERE type = 'QuotaConsumed' AND event_id = $1::uuid`,
    [quotaConsumedEventId(requestId)],
  );
  return rows.map((row) => ({ streamId: row.stream_id, eventId: row.event_id, data: chargeOfRow(row) as unknown as Record<string, any> }));
}

/** What a request's one charge must be: the paying user (and token, when the spec knows it), model, tokens, stream or not. */
export interface ExpectedCharge {
  userId: number;
  tokenId?: number;
  model: string;
  tokens: [number, number];
  isStream: boolean;
}

/** Exactly one QuotaConsumed for the request, on the user's account, with these tokens and a quota above zero. */
export async function expectSingleCharge(target: TestApp, requestId: string, expected: ExpectedCharge): Promise<void> {
  const charges = await chargesOf(target, requestId);
  expect(charges).toHaveLength(1);
  expect(charges[0].streamId).toBe(`account-${expected.userId}`);
  expect(charges[0].data).toMatchObject({
    modelName: expected.model,
    promptTokens: expected.tokens[0],
    completionTokens: expected.tokens[1],
    isStream: expected.isStream,
    ...(expected.tokenId === undefined ? {} : { tokenId: expected.tokenId }),
  });
  expect(charges[0].data.quota).toBeGreaterThan(0);
}

/** The request id the gateway answered with (X-Oneapi-Request-Id). */
export function requestIdOf(response: Response): string {
  const id = response.headers.get('x-oneapi-request-id');
  if (!id) throw new Error('the answer has no X-Oneapi-Request-Id');
  return id;
}

export async function chargeCount(target: TestApp): Promise<number> {
  await shipped(target);
  const rows: Array<{ count: number }> = await dataSource(target).query(
    `SELECT count(*)::int AS count FROM events WHERE type = 'QuotaConsumed'`,
  );
  return rows[0].count;
}

export function admission(target: TestApp): QuotaAdmissionService {
  return target.app.get(QuotaAdmissionService, { strict: false });
}
