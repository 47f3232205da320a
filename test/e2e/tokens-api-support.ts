import { createTestApp, type TestApp } from '../support/app';
import { call, type Caller, dataSource, projected, seedCaller } from './users-support';

/** A token as the token API answers it. */
export interface TokenJson {
  id: number;
  user_id: number;
  key: string;
  status: number;
  name: string;
  created_time: number;
  accessed_time: number;
  expired_time: number;
  remain_quota: number;
  unlimited_quota: boolean;
  model_limits_enabled: boolean;
  model_limits: string;
  allow_ips: string | null;
  used_quota: number;
  group: string;
  DeletedAt: string | null;
}

/** Undecodable JSON is answered by the HTTP layer (its wording is not ours): any non-empty message. */
export const UNDECODABLE = 'undecodable';

/** What the token-API specs share once their app is up (filled in by the fixture's beforeAll). */
export interface TokensApiContext {
  target: TestApp;
  alice: Caller;
  bob: Caller;
}

/**
 * Registers the token-API app for the enclosing describe (alice and bob, no tokens yet) and returns the context and
 * the helpers bound to it. Call it first in the describe, so its beforeAll runs before the spec's own.
 */
export function tokensApiFixture() {
  const context = {} as TokensApiContext;

  beforeAll(async () => {
    context.target = await createTestApp();
    context.alice = await seedCaller(context.target, { username: 'alice' });
    context.bob = await seedCaller(context.target, { username: 'bob' });
  });
  afterAll(async () => {
    await context.target?.close();
  });

  const db = () => dataSource(context.target);

  /** Creates a token through the API and answers it as the caller's newest token in the list. */
  async function create(caller: Caller, body: Record<string, unknown>): Promise<TokenJson> {
    const response = await call(context.target, caller, 'post', '/api/token/', body).expect(200);
    expect(response.body).toEqual({ success: true, message: '' });
    const list = await call(context.target, caller, 'get', '/api/token/?p=0&size=1').expect(200);
    return list.body.data[0] as TokenJson;
  }

  async function tokenEvents(
    id: number,
  ): Promise<Array<{ type: string; data: Record<string, unknown>; metadata: Record<string, unknown> }>> {
    return db().query('SELECT type, data, metadata FROM events WHERE stream_id = $1 ORDER BY revision', [`token-${id}`]);
  }

  /** Everything a refused token call must leave alone. */
  async function tokenState(): Promise<string> {
    await projected(context.target);
    const tokens = await db().query('SELECT * FROM tokens ORDER BY id');
    const balances = await db().query('SELECT * FROM token_balances ORDER BY token_id');
    const events = await db().query('SELECT count(*)::int AS count FROM events');
    return JSON.stringify({ tokens, balances, events });
  }

  /** Checks that the call is refused (HTTP 200, success false) with `message` and leaves the tokens as they were. */
  async function expectRefused(caller: Caller, method: 'get' | 'post' | 'put' | 'delete', path: string, body: unknown, message: string) {
    const before = await tokenState();
    const response = await call(context.target, caller, method, path, body).expect(200);
    expect(response.body).toEqual({ success: false, message: message === UNDECODABLE ? expect.stringMatching(/\S/) : message });
    expect(await tokenState()).toEqual(before);
  }

  return { context, db, create, tokenEvents, expectRefused };
}
