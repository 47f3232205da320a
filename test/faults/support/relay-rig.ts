import { Client } from 'pg';
import { quotaConsumedEventId } from '#server/relay/settlement/relay-settlement.service';
import { chargeOfRow } from '#test/support/quota-consumed-fixture';

/** One relay request as the client saw it. */
export interface Relayed {
  requestId: string | null;
  /** HTTP status, or 0 when the connection failed or was cut before the headers. */
  status: number;
  stream: boolean;
  /** Plain: a 200 with its whole JSON body. Stream: `data: [DONE]` received. */
  complete: boolean;
  /** A whole non-200 answer (the relay refused or failed the request and said so). */
  refused: boolean;
  /** The error message of a refused request. */
  message: string | null;
  userId: number;
  tokenId: number;
  startedAt: number;
  ms: number;
}

export interface RelayUser {
  id: number;
  username: string;
  key: string;
  tokenId: number;
  /** The user's quota when registered. */
  initialQuota: number;
  /** The token's limit (null: unlimited token). */
  tokenQuota: number | null;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function waitFor(condition: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

/**
 * Drives real gateway processes over HTTP for fault tests: sets up users, a channel to a fake upstream, relays
 * (round-robin over `baseUrls()`), runs a steady load, and checks the ledger invariants against Postgres.
 */
export class RelayRig {
  rootToken = '';
  constructor(
    /** The API processes' base URLs now (a restarted process gets a new port). */
    readonly baseUrls: () => string[],
    readonly pg: () => Client,
  ) {}

  private next = 0;
  private url(): string {
    const urls = this.baseUrls();
    return urls[this.next++ % urls.length];
  }

  async api(method: string, path: string, token: string | null, body?: unknown) {
    const response = await fetch(`${this.url()}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: token } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await response.json()) as { success: boolean; message: string; data?: any };
    if (!json.success) throw new Error(`${method} ${path}: ${JSON.stringify(json)}`);
    return json.data;
  }

  async setAccessToken(username: string): Promise<string> {
    const token = `fault-${username}`.padEnd(32, 'x').slice(0, 32);
    await this.pg().query('UPDATE users SET access_token = $1 WHERE username = $2', [token, username]);
    return token;
  }

  /** Root's access token, the new-user quota, and one channel to the fake upstream. */
  async setUp(upstreamUrl: string, quotaForNewUser: number): Promise<void> {
    this.rootToken = await this.setAccessToken('root');
    await this.setQuotaForNewUser(quotaForNewUser);
    await this.api('POST', '/api/channel/', this.rootToken, {
      type: 1,
      key: 'upstream-key',
      name: 'fault-upstream',
      base_url: upstreamUrl,
      models: 'gpt-3.5-turbo',
      group: 'default',
      priority: 0,
      weight: 0,
      model_mapping: '',
      other: '',
      auto_ban: 0,
    });
  }

  async setQuotaForNewUser(quota: number): Promise<void> {
    await this.api('PUT', '/api/option/', this.rootToken, { key: 'QuotaForNewUser', value: String(quota) });
  }

  /** Registers a user (with QuotaForNewUser = `initialQuota`) and gives it one token (limited when `tokenQuota`). */
  async user(username: string, initialQuota: number, tokenQuota: number | null = null): Promise<RelayUser> {
    await this.api('POST', '/api/user/register', null, { username, password: 'password123', password2: 'password123', aff_code: '' });
    const token = await this.setAccessToken(username);
    await this.api('POST', '/api/token/', token, {
      name: `${username}-token`,
      remain_quota: tokenQuota ?? 0,
      expired_time: -1,
      unlimited_quota: tokenQuota === null,
      model_limits_enabled: false,
      model_limits: '',
      group: '',
    });
    const list = await this.api('GET', '/api/token/?p=0&size=1', token);
    const row = list.items?.[0] ?? list[0];
    const balance = () =>
      this.pg().query('SELECT id, quota FROM users u JOIN account_balances b ON b.user_id = u.id WHERE username = $1', [username]);
    await waitFor(async () => (await balance()).rows.length === 1, `${username}'s balance to be projected`);
    const { rows } = await balance();
    expect(Number(rows[0].quota)).toBe(initialQuota);
    return { id: rows[0].id, username, key: `sk-${row.key}`, tokenId: row.id, initialQuota, tokenQuota };
  }

  /** One relay request; never throws (a refused connection or a cut one is an incomplete request). */
  async relay(user: RelayUser, stream: boolean, timeoutMs = 30_000): Promise<Relayed> {
    const startedAt = Date.now();
    const outcome: Relayed = {
      requestId: null,
      status: 0,
      stream,
      complete: false,
      refused: false,
      message: null,
      userId: user.id,
      tokenId: user.tokenId,
      startedAt,
      ms: 0,
    };
    try {
      const response = await fetch(`${this.url()}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${user.key}` },
        body: JSON.stringify({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hello there' }], max_tokens: 7, stream }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      outcome.status = response.status;
      outcome.requestId = response.headers.get('x-oneapi-request-id');
      const text = await response.text();
      if (response.status !== 200) {
        outcome.refused = true;
        try {
          outcome.message = JSON.parse(text).error?.message ?? text.slice(0, 200);
        } catch {
          outcome.message = text.slice(0, 200);
        }
      } else {
        outcome.complete = stream ? text.includes('data: [DONE]') : typeof JSON.parse(text).choices?.[0]?.message?.content === 'string';
      }
    } catch {
      // refused, cut or timed out
    }
    outcome.ms = Date.now() - startedAt;
    return outcome;
  }

  /** `clients` loops relaying for `users` (client i as users[i % n], plain and streamed in turn) until stopped. */
  load(users: RelayUser[], clients: number, pauseMs = 0): { results: Relayed[]; inFlight(): number; stop(): Promise<Relayed[]> } {
    const results: Relayed[] = [];
    let inFlight = 0;
    let stopped = false;
    const loops = Array.from({ length: clients }, async (_, client) => {
      for (let i = 0; !stopped; i++) {
        inFlight++;
        const result = await this.relay(users[client % users.length], (client + i) % 2 === 0);
        inFlight--;
        results.push(result);
        // A failed connection answers at once: do not spin while a process is down.
        if (result.status === 0 || result.refused) await sleep(100);
        else if (pauseMs) await sleep(pauseMs);
      }
    });
    return {
      results,
      inFlight: () => inFlight,
      async stop() {
        stopped = true;
        await Promise.all(loops);
        return results;
      },
    };
  }

  /** Waits until every complete request's charge is in the ledger and every projection is at the head. */
  async settle(results: Relayed[], timeoutMs = 60_000): Promise<void> {
    const ids = results.filter((result) => result.complete).map((result) => result.requestId);
    await waitFor(
      async () => {
        const { rows } = await this.pg().query<{ count: number }>(
          `SELECT count(DISTINCT event_id)::int AS count FROM events WHERE type = 'QuotaConsumed' AND event_id = ANY($1::uuid[])`,
          [ids.map((id) => quotaConsumedEventId(id!))],
        );
        return rows[0].count === ids.length;
      },
      'the charges of the complete requests to reach the ledger',
      timeoutMs,
    ).catch(() => undefined); // the assertions name what is missing
    await waitFor(
      async () => {
        const { rows } = await this.pg().query(
          `SELECT (SELECT coalesce(max(position), 0) FROM events) AS head, coalesce(min(position), -1) AS low FROM projection_checkpoints`,
        );
        return Number(rows[0].low) >= Number(rows[0].head);
      },
      'the projections to reach the head',
      timeoutMs,
    );
  }

  /**
   * The invariants after a fault: every complete request charged exactly once (with the id derived from its
   * request id, to its user and token); none charged twice; nothing charged for a request refused or failed with a
   * whole answer; each balance and limited token equal to the fold of its charges over its start; and no balance
   * below `floor(user)` (0 unless the caller states a bound).
   */
  async assertLedger(results: Relayed[], users: RelayUser[], floor: (user: RelayUser) => number = () => 0): Promise<ChargeSummary> {
    const { rows: stored } = await this.pg().query<{ event_id: string; stream_id: string; data: unknown }>(
      `SELECT event_id, stream_id, data FROM events WHERE type = 'QuotaConsumed'`,
    );
    const charges = stored.map((row) => {
      const charge = chargeOfRow(row);
      return {
        event_id: row.event_id,
        request_id: charge.requestId,
        user_id: charge.userId,
        token_id: charge.tokenId,
        quota: String(charge.quota),
      };
    });
    const byRequest = new Map<string, typeof charges>();
    for (const charge of charges) byRequest.set(charge.request_id, [...(byRequest.get(charge.request_id) ?? []), charge]);
    expect([...byRequest.entries()].filter(([, list]) => list.length > 1).map(([id]) => id)).toEqual([]);

    const complete = results.filter((result) => result.complete);
    expect(complete.every((result) => result.requestId)).toBe(true);
    const missing = complete.filter((result) => byRequest.get(result.requestId!)?.length !== 1);
    expect(missing.map((result) => `${result.requestId} (${result.stream ? 'stream' : 'plain'})`)).toEqual([]);
    for (const result of complete) {
      expect(byRequest.get(result.requestId!)![0]).toMatchObject({
        event_id: quotaConsumedEventId(result.requestId!),
        user_id: result.userId,
        token_id: result.tokenId,
      });
    }
    const refused = results.filter((result) => result.refused && result.requestId);
    const chargedRefused = refused.filter((result) => byRequest.has(result.requestId!));
    expect(chargedRefused.map((result) => `${result.requestId} ${result.status} ${result.message}`)).toEqual([]);

    for (const user of users) {
      const mine = charges.filter((charge) => charge.user_id === user.id);
      const spent = mine.reduce((sum, charge) => sum + Number(charge.quota), 0);
      const {
        rows: [account],
      } = await this.pg().query('SELECT quota, used_quota, request_count FROM account_balances WHERE user_id = $1', [user.id]);
      expect({
        user: user.username,
        quota: Number(account.quota),
        used: Number(account.used_quota),
        requests: Number(account.request_count),
      }).toEqual({ user: user.username, quota: user.initialQuota - spent, used: spent, requests: mine.length });
      expect(Number(account.quota)).toBeGreaterThanOrEqual(floor(user));
      const tokenSpent = mine.filter((charge) => charge.token_id === user.tokenId).reduce((sum, charge) => sum + Number(charge.quota), 0);
      const {
        rows: [token],
      } = await this.pg().query('SELECT remain_quota, used_quota FROM token_balances WHERE token_id = $1', [user.tokenId]);
      expect(Number(token.used_quota)).toBe(tokenSpent);
      if (user.tokenQuota !== null) {
        expect({ token: user.username, remain: Number(token.remain_quota) }).toEqual({
          token: user.username,
          remain: user.tokenQuota - tokenSpent,
        });
        expect(Number(token.remain_quota)).toBeGreaterThanOrEqual(floor(user));
      }
    }
    return {
      charges: charges.length,
      complete: complete.length,
      refused: refused.length,
      failed: results.filter((result) => !result.complete && !result.refused).length,
      maxCharge: Math.max(0, ...charges.map((charge) => Number(charge.quota))),
    };
  }
}

export interface ChargeSummary {
  charges: number;
  complete: number;
  refused: number;
  failed: number;
  maxCharge: number;
}

/** A one-line account of a batch of results, by status and message, for the test log. */
export function describeResults(results: Relayed[]): string {
  const counts = new Map<string, number>();
  for (const result of results) {
    const message = (result.message ?? '').replace(/\s*\(request id:.*$/, '').replace(/\[sk-[^\]]*\]\s*/g, '');
    const key = result.complete ? '200 complete' : result.refused ? `${result.status} ${message}`.slice(0, 90) : 'no answer';
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts.entries()].map(([key, count]) => `${count}× ${key}`).join('; ');
}
