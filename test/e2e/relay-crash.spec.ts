import Redis from 'ioredis';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import type { AppConfig } from '#server/config/app-config';
import { dataSourceOptions } from '#server/infrastructure/database/data-source';
import { RedisKeys } from '#server/infrastructure/redis/redis-keys';
import { createEventStore } from '#server/ledger/create-event-store';
import type { EventStore } from '#server/ledger/event-store.port';
import { QuotaAdmissionService } from '#server/relay/admission/quota-admission.service';
import { quotaConsumedEventId } from '#server/relay/settlement/relay-settlement.service';
import { OpenAIUpstreamFake } from '../fakes/upstreams/openai-upstream-fake';
import { createTestDatabase, type TestDatabase, testRedisPrefix, testRedisUrl } from '../support/database';
import { LEDGERS, type LedgerUnderTest } from '../support/ledgers';
import { freePort, type GatewayProcess, startGateway } from './support/gateway-process';
import { quotaConsumedData } from '#server/modules/accounts/index';

jest.setTimeout(180_000);

const QUOTA_PER_USER = 1_000_000_000;
const TOKEN_QUOTA = 500_000_000;
const CLIENTS = 24;
const LEASE_MS = 2_000;

interface Relayed {
  requestId: string | null;
  stream: boolean;
  /** Plain: a 200 with its whole JSON body. Stream: `data: [DONE]` received. */
  complete: boolean;
  userId: number;
  tokenId: number;
}

interface RelayUser {
  id: number;
  key: string;
  tokenId: number;
  unlimited: boolean;
}

/**
 * Crash safety of the relay with the real gateway as a child process: a load of plain and streamed requests, the
 * process SIGKILLed with requests in flight, restarted; then every request the client received in full is
 * charged exactly once, none twice, no reservation stays held, and the projections equal the sum of the charges.
 */
describe.each(LEDGERS)('relay: SIGKILL mid-load, restart (real gateway process, %s)', (_ledgerName, startLedger) => {
  let ledger: LedgerUnderTest;
  let ledgerStore: EventStore;
  let database: TestDatabase;
  let pg: Client;
  const upstream = new OpenAIUpstreamFake();
  const prefix = testRedisPrefix();
  let gateway: GatewayProcess | null = null;
  let env: Record<string, string>;
  let rootToken: string;

  beforeAll(async () => {
    await upstream.start();
    // In flight long enough to be cut: plain answers after 60 ms, streams take ~4 × 40 ms.
    upstream.delayMs = 60;
    upstream.chunkDelayMs = 40;
    database = await createTestDatabase();
    ledger = await startLedger();
    ledgerStore = await createEventStore({ DATABASE_URL: database.url, EVENTSTORE_URL: ledger.env.EVENTSTORE_URL });
    pg = new Client({ connectionString: database.url });
    await pg.connect();
    env = {
      DATABASE_URL: database.url,
      REDIS_URL: testRedisUrl(),
      REDIS_PREFIX: prefix,
      GLOBAL_API_RATE_LIMIT: '1000000',
      GLOBAL_WEB_RATE_LIMIT: '1000000',
      CRITICAL_RATE_LIMIT: '1000000',
      READ_YOUR_WRITES_TIMEOUT_MS: '15000',
      RELAY_LEASE_MS: String(LEASE_MS),
      RELAY_LEASE_SWEEP_MS: '300',
      LOG_LEVEL: 'warn',
      ...ledger.env,
    };
  });

  afterAll(async () => {
    await gateway?.stop().catch(() => undefined);
    await ledgerStore?.close();
    await ledger?.close();
    await pg?.end().catch(() => undefined);
    await database?.drop();
    await upstream.close();
    const redis = new Redis(testRedisUrl());
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await redis.unlink(...keys);
    } while (cursor !== '0');
    redis.disconnect();
  });

  async function api(method: string, path: string, token: string | null, body?: unknown) {
    const response = await fetch(`${gateway!.baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: token } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await response.json()) as { success: boolean; message: string; data?: any };
    if (!json.success) throw new Error(`${method} ${path}: ${JSON.stringify(json)}`);
    return json.data;
  }

  async function setAccessToken(username: string): Promise<string> {
    const token = `crash-${username}`.padEnd(32, 'x').slice(0, 32);
    await pg.query('UPDATE users SET access_token = $1 WHERE username = $2', [token, username]);
    return token;
  }

  async function relayUser(username: string, unlimited: boolean): Promise<RelayUser> {
    await api('POST', '/api/user/register', null, { username, password: 'password123', password2: 'password123', aff_code: '' });
    const token = await setAccessToken(username);
    await api('POST', '/api/token/', token, {
      name: `${username}-token`,
      remain_quota: unlimited ? 0 : TOKEN_QUOTA,
      expired_time: -1,
      unlimited_quota: unlimited,
      model_limits_enabled: false,
      model_limits: '',
      group: '',
    });
    const list = await api('GET', '/api/token/?p=0&size=1', token);
    const row = list.items?.[0] ?? list[0];
    const { rows } = await pg.query('SELECT id FROM users WHERE username = $1', [username]);
    return { id: rows[0].id, key: `sk-${row.key}`, tokenId: row.id, unlimited };
  }

  /** One relay request; never throws (a cut connection is an incomplete request). */
  async function relay(user: RelayUser, stream: boolean, signal?: AbortSignal): Promise<Relayed> {
    const outcome: Relayed = { requestId: null, stream, complete: false, userId: user.id, tokenId: user.tokenId };
    try {
      const response = await fetch(`${gateway!.baseUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${user.key}` },
        body: JSON.stringify({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hello there' }], stream }),
        signal,
      });
      outcome.requestId = response.headers.get('x-oneapi-request-id');
      const text = await response.text();
      if (response.status !== 200) return outcome;
      outcome.complete = stream ? text.includes('data: [DONE]') : typeof JSON.parse(text).choices?.[0]?.message?.content === 'string';
    } catch {
      // connection refused or cut by the kill
    }
    return outcome;
  }

  async function waitFor(condition: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /** Every QuotaConsumed in the ledger under test, read through the EventStore port. */
  async function ledgerCharges() {
    const events = (await ledgerStore.readAll()).filter((event) => event.type === 'QuotaConsumed');
    return events.map((event) => {
      const charge = quotaConsumedData(event);
      return {
        event_id: event.id,
        request_id: charge.requestId,
        user_id: charge.userId,
        token_id: charge.tokenId,
        quota: String(charge.quota),
        stream: charge.isStream,
      };
    });
  }

  async function projectionsAtHead(): Promise<boolean> {
    const head = await ledgerStore.headPosition();
    const { rows } = await pg.query(`SELECT coalesce(min(position), -1) AS low FROM projection_checkpoints`);
    return Number(rows[0].low) >= head;
  }

  it('charges every request received in full exactly once, none twice, and holds no reservation after the restart', async () => {
    gateway = await startGateway({ port: await freePort(), env });
    rootToken = await setAccessToken('root');
    await api('PUT', '/api/option/', rootToken, { key: 'QuotaForNewUser', value: String(QUOTA_PER_USER) });
    await api('POST', '/api/channel/', rootToken, {
      type: 1,
      key: 'upstream-key',
      name: 'crash-upstream',
      base_url: upstream.baseUrl,
      models: 'gpt-3.5-turbo',
      group: 'default',
      priority: 0,
      weight: 0,
      model_mapping: '',
      other: '',
      auto_ban: 0,
    });
    const users = [await relayUser('crash-a', false), await relayUser('crash-b', false), await relayUser('crash-c', true)];
    // The router reloads through cache invalidation: wait until a request goes through.
    await waitFor(async () => (await relay(users[0], false)).complete, 'the channel to be routable', 15_000);

    // The load: CLIENTS loops of alternating plain and streamed requests until the kill.
    const results: Relayed[] = [];
    let inFlight = 0;
    let stop = false;
    const loops = Array.from({ length: CLIENTS }, async (_, client) => {
      for (let i = 0; !stop; i++) {
        inFlight++;
        const result = await relay(users[client % users.length], (client + i) % 2 === 0);
        inFlight--;
        results.push(result);
      }
    });
    await waitFor(async () => results.filter((result) => result.complete).length >= 150 && inFlight >= CLIENTS / 2, 'load', 60_000);
    const inFlightAtKill = inFlight;
    stop = true;
    await gateway.kill();
    // What the dead process left reserved (frozen now): the last user's share must come back without their help.
    const heldByLastUser = (await admissionHeld(users[users.length - 1])).held;
    await Promise.all(loops);
    const cut = results.filter((result) => !result.complete);
    expect(inFlightAtKill).toBeGreaterThan(0);
    expect(cut.length).toBeGreaterThan(0);
    expect(heldByLastUser).toBeGreaterThan(0);
    console.log(
      `crash: ${results.length} requests before the kill, ${results.length - cut.length} received in full, ${cut.length} cut ` +
        `(${inFlightAtKill} in flight at the kill; ${heldByLastUser} quota reserved by the last user)`,
    );

    // Restart on the same database and Redis prefix, and put a little traffic through the new process too (not
    // for the last user: their reservations cut by the kill must be freed with no later event of theirs).
    gateway = await startGateway({ port: await freePort(), env });
    await waitFor(async () => (await relay(users[1], true)).complete, 'the restarted gateway to relay', 15_000);
    for (const user of users.slice(0, -1)) results.push(await relay(user, false), await relay(user, true));

    const complete = results.filter((result) => result.complete);
    expect(complete.every((result) => result.requestId)).toBe(true);
    // An answer ends once its charge is in the journal; the ledger append follows within milliseconds (the killed
    // process's journal is shipped by the restarted one). Wait until every complete request's charge is there.
    await waitFor(
      async () => {
        const charged = new Set((await ledgerCharges()).map((charge) => charge.request_id));
        return complete.every((result) => charged.has(result.requestId!));
      },
      'the charges of the complete requests to reach the ledger',
      15_000,
    ).catch(() => undefined); // the assertions below name what is missing
    const charges = await ledgerCharges();
    const byRequest = new Map<string, typeof charges>();
    for (const charge of charges) byRequest.set(charge.request_id, [...(byRequest.get(charge.request_id) ?? []), charge]);

    // None is charged twice.
    expect([...byRequest.entries()].filter(([, list]) => list.length > 1).map(([id]) => id)).toEqual([]);
    // Every request received in full is charged exactly once, with the id derived from its request id.
    const missing = complete.filter((result) => byRequest.get(result.requestId!)?.length !== 1);
    expect(missing.map((result) => `${result.requestId} (${result.stream ? 'stream' : 'plain'})`)).toEqual([]);
    for (const result of complete) {
      const [charge] = byRequest.get(result.requestId!)!;
      expect(charge).toMatchObject({
        event_id: quotaConsumedEventId(result.requestId!),
        user_id: result.userId,
        token_id: result.tokenId,
        stream: result.stream,
      });
    }
    // Nothing is charged for a request nobody sent (ids the clients never saw belong to requests cut before headers).
    const seen = new Set(results.map((result) => result.requestId).filter(Boolean));
    const unseen = [...byRequest.keys()].filter((id) => !seen.has(id));
    expect(unseen.length).toBeLessThanOrEqual(cut.filter((result) => !result.requestId).length);

    // Projections equal the sum of the charges.
    await waitFor(projectionsAtHead, 'the projections to reach the head');
    for (const user of users) {
      const mine = charges.filter((charge) => charge.user_id === user.id);
      const spent = mine.reduce((sum, charge) => sum + Number(charge.quota), 0);
      const {
        rows: [account],
      } = await pg.query('SELECT quota, used_quota, request_count FROM account_balances WHERE user_id = $1', [user.id]);
      expect({ quota: Number(account.quota), used: Number(account.used_quota), requests: Number(account.request_count) }).toEqual({
        quota: QUOTA_PER_USER - spent,
        used: spent,
        requests: mine.length,
      });
      const {
        rows: [token],
      } = await pg.query('SELECT remain_quota, used_quota FROM token_balances WHERE token_id = $1', [user.tokenId]);
      expect(Number(token.used_quota)).toBe(spent);
      if (!user.unlimited) expect(Number(token.remain_quota)).toBe(TOKEN_QUOTA - spent);
    }
    const {
      rows: [logs],
    } = await pg.query('SELECT count(*)::int AS count FROM logs WHERE type = 2');
    expect(logs.count).toBe(charges.length);

    // No reservation stays held: once the leases ran out and the sweeper ran, admission sees the projected balances.
    const admission = await admissionView();
    try {
      await waitFor(
        async () => {
          for (const user of users) {
            const {
              rows: [account],
            } = await pg.query('SELECT quota FROM account_balances WHERE user_id = $1', [user.id]);
            const {
              rows: [token],
            } = await pg.query('SELECT remain_quota FROM token_balances WHERE token_id = $1', [user.tokenId]);
            const available = await admission.service.available(user.id, user.unlimited ? null : user.tokenId);
            if (available.user !== Number(account.quota)) return false;
            if (!user.unlimited && available.token !== Number(token.remain_quota)) return false;
          }
          return true;
        },
        'admission to release every reservation of the killed process',
        LEASE_MS + 20_000,
      );
    } finally {
      await admission.close();
    }
  });

  /** Quota reserved right now by a user's requests in flight (the admission hash of reservations). */
  async function admissionHeld(user: RelayUser): Promise<{ held: number }> {
    const redis = new Redis(testRedisUrl());
    try {
      const amounts = await redis.hvals(new RedisKeys({ REDIS_PREFIX: prefix } as AppConfig).key(`{u:${user.id}}:acct:resv`));
      return { held: amounts.reduce((sum, amount) => sum + Number(amount), 0) };
    } finally {
      redis.disconnect();
    }
  }

  /** Admission as the gateway sees it (same Redis prefix and database), from the test process. */
  async function admissionView(): Promise<{ service: QuotaAdmissionService; close(): Promise<void> }> {
    const redis = new Redis(testRedisUrl());
    const dataSource = await new DataSource(dataSourceOptions(database.url)).initialize();
    const store: EventStore = await createEventStore({ DATABASE_URL: database.url, EVENTSTORE_URL: ledger.env.EVENTSTORE_URL });
    const service = new QuotaAdmissionService(redis, new RedisKeys({ REDIS_PREFIX: prefix } as AppConfig), dataSource, store);
    return {
      service,
      async close() {
        await service.onModuleDestroy(); // its own Redis connection
        await store.close();
        await dataSource.destroy();
        redis.disconnect();
      },
    };
  }
});
