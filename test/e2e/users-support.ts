import type request from 'supertest';
import { DataSource } from 'typeorm';
import { ProjectionWaiter } from '#projections/runner/projection-waiter';
import { EVENT_STORE, type EventStore } from '#server/ledger/event-store.port';
import { RelaySettlementService } from '#server/relay/settlement/relay-settlement.service';
import { LOG_COLUMNS, type LogRow, logContent } from '#server/modules/logs/log.serializer';
import { OptionsService } from '#server/modules/options/options.service';
import { UserEntity } from '#server/modules/users/user.entity';
import type { TestApp } from '../support/app';
import { seedUser, type SeededUser } from '../support/users';

/** Shared steps of the users and accounts e2e specs (test/e2e/users-*.spec.ts, accounts-*.spec.ts). */

export type Method = 'get' | 'post' | 'put' | 'delete';

/** A caller authenticated by its system access token (no session, no New-Api-User header needed). */
export interface Caller {
  id: number;
  username: string;
  token: string;
}

export function dataSource(target: TestApp): DataSource {
  return target.app.get(DataSource);
}

export async function setOptions(target: TestApp, changes: Record<string, string>): Promise<void> {
  await target.app.get(OptionsService).save(changes);
}

/** Sends a request as `caller` (access token); `body` is JSON unless it is a raw string. */
export function call(target: TestApp, caller: Caller | null, method: Method, path: string, body?: unknown): request.Test {
  let pending = target.http()[method](path);
  if (caller) pending = pending.set('Authorization', caller.token);
  if (typeof body === 'string') return pending.set('Content-Type', 'application/json').send(body);
  return body === undefined ? pending : pending.send(body as object);
}

/** A user row made directly (no ledger events), with an access token. */
export async function seedCaller(
  target: TestApp,
  options: { role?: number; username?: string; password?: string; status?: number } = {},
): Promise<Caller & SeededUser> {
  const seeded = await seedUser(dataSource(target), options);
  return { ...seeded, token: seeded.accessToken };
}

/** Root as the seed made it, given an access token so tests can call as root. */
export async function rootCaller(target: TestApp): Promise<Caller> {
  const users = dataSource(target).getRepository(UserEntity);
  const root = await users.findOneOrFail({ where: { username: 'root' } });
  const token = `root-token-${root.id}`.padEnd(28, 'x');
  await users.update({ id: root.id }, { accessToken: token });
  return { id: root.id, username: 'root', token };
}

/** Registers through POST /api/user/register (so the ledger grants apply) and returns the new user. */
export async function register(
  target: TestApp,
  username: string,
  options: { password?: string; affCode?: string } = {},
): Promise<Caller & { password: string }> {
  const password = options.password ?? 'password123';
  const response = await target
    .http()
    .post('/api/user/register')
    .send({ username, password, password2: password, aff_code: options.affCode ?? '' });
  if (!response.body.success) throw new Error(`register ${username} refused: ${JSON.stringify(response.body)}`);
  const users = dataSource(target).getRepository(UserEntity);
  const user = await users.findOneOrFail({ where: { username } });
  const token = `t-${user.id}-${username}`.padEnd(28, 'x').slice(0, 32);
  await users.update({ id: user.id }, { accessToken: token });
  return { id: user.id, username, token, password };
}

/** A supertest agent logged in with a session cookie, sending the New-Api-User header the console sends. */
export async function sessionFor(target: TestApp, username: string, password: string) {
  const agent = target.http();
  const response = await agent.post('/api/user/login').send({ username, password });
  if (!response.body.success) throw new Error(`login ${username} refused: ${JSON.stringify(response.body)}`);
  const id = String(response.body.data.id);
  return {
    id: Number(id),
    get: (path: string) => agent.get(path).set('New-Api-User', id),
    post: (path: string, body?: object) => agent.post(path).set('New-Api-User', id).send(body),
    put: (path: string, body?: object) => agent.put(path).set('New-Api-User', id).send(body),
    delete: (path: string) => agent.delete(path).set('New-Api-User', id),
  };
}

export function eventStore(target: TestApp): EventStore {
  return target.app.get<EventStore>(EVENT_STORE);
}

/**
 * Waits until the relay's answered charges are in the ledger (an answer ends once its charge is journaled; the
 * append follows within milliseconds) and every projection has applied everything in the ledger so far.
 */
export async function projected(target: TestApp): Promise<void> {
  await shipped(target);
  await target.app.get(ProjectionWaiter).waitFor(await eventStore(target).headPosition());
}

/** Waits until every charge the relay answered so far is in the ledger. */
export async function shipped(target: TestApp): Promise<void> {
  await target.app.get(RelaySettlementService, { strict: false }).drain();
}

export async function balanceRow(target: TestApp, userId: number): Promise<Record<string, number> | null> {
  const rows: Array<Record<string, string>> = await dataSource(target).query('SELECT * FROM account_balances WHERE user_id = $1', [userId]);
  if (!rows[0]) return null;
  return Object.fromEntries(Object.entries(rows[0]).map(([key, value]) => [key, Number(value)]));
}

/** A user's log rows (type, wording as the log API answers it, username), oldest first. */
export async function logRows(target: TestApp, userId: number): Promise<Array<{ type: number; content: string; username: string }>> {
  const rows: LogRow[] = await dataSource(target).query(`SELECT ${LOG_COLUMNS} FROM logs WHERE user_id = $1 ORDER BY id`, [userId]);
  return rows.map((row) => ({ type: row.type, content: logContent(row), username: row.username }));
}

/**
 * Everything a refused request must leave alone: the users table, the balances, the logs and the ledger.
 * Compared before and after a batch of bad requests.
 */
export async function stateSnapshot(target: TestApp): Promise<string> {
  const db = dataSource(target);
  const users = await db.query('SELECT * FROM users ORDER BY id');
  const balances = await db.query('SELECT * FROM account_balances ORDER BY user_id');
  const logs = await db.query('SELECT * FROM logs ORDER BY id');
  const events = await db.query('SELECT count(*)::int AS count, coalesce(max(position), 0)::int AS head FROM events');
  return JSON.stringify({ users, balances, logs, events });
}

/** Tables a state snapshot leaves out: migration bookkeeping, and checkpoints that move with any append. */
const UNSNAPSHOTTED_TABLES = new Set(['migrations', 'projection_checkpoints']);

/**
 * Every row of every table of the public schema (users, options, events, account_balances, logs, and whatever
 * tables other modules add), by table, ordered by the first column. Unlike `stateSnapshot` it keeps whole rows,
 * so a test can say which rows a request changed (`changedRows`).
 */
export async function tablesSnapshot(target: TestApp): Promise<Record<string, unknown[]>> {
  const db = dataSource(target);
  const tables: Array<{ table_name: string }> = await db.query(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1`,
  );
  const snapshot: Record<string, unknown[]> = {};
  for (const { table_name: table } of tables) {
    if (UNSNAPSHOTTED_TABLES.has(table)) continue;
    snapshot[table] = await db.query(`SELECT * FROM "${table.replace(/"/g, '""')}" t ORDER BY 1`);
  }
  return snapshot;
}

/** Per table, the rows of `after` that are not in `before` (new or changed rows), as canonical JSON. */
export function changedRows(before: Record<string, unknown[]>, after: Record<string, unknown[]>): Record<string, string[]> {
  const changes: Record<string, string[]> = {};
  for (const table of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const old = new Set((before[table] ?? []).map((row) => JSON.stringify(row)));
    const current = (after[table] ?? []).map((row) => JSON.stringify(row));
    const added = current.filter((row) => !old.has(row));
    const removed = (before[table] ?? []).length + added.length - current.length;
    if (added.length || removed) changes[table] = removed > 0 ? [...added, `(${removed} row(s) replaced or removed)`] : added;
  }
  return changes;
}

/**
 * A cheap digest of every table `tablesSnapshot` reads (one round trip): equal fingerprints mean no row changed,
 * so a test can take the full snapshot only when something did.
 */
export async function tablesFingerprint(target: TestApp): Promise<string> {
  const db = dataSource(target);
  const tables: Array<{ table_name: string }> = await db.query(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1`,
  );
  const parts = tables
    .map(({ table_name: table }) => table)
    .filter((table) => !UNSNAPSHOTTED_TABLES.has(table))
    .map(
      (table) =>
        `SELECT '${table.replace(/'/g, "''")}' AS t, count(*) AS n, md5(coalesce(string_agg(x::text, '|' ORDER BY x::text), '')) AS h FROM "${table.replace(/"/g, '""')}" x`,
    );
  if (!parts.length) return '';
  const rows: Array<{ t: string; n: string; h: string }> = await db.query(parts.join(' UNION ALL '));
  return rows
    .map((row) => `${row.t}:${row.n}:${row.h}`)
    .sort()
    .join(',');
}
