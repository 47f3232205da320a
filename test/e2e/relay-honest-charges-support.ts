import { type ClientRequest, createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import { LOG_COLUMNS, type LogRow, logOther } from '#server/modules/logs/log.serializer';
import { STATEMENT_COLUMNS, type StatementRow, toStatementLineJson } from '#server/modules/statement/statement.serializer';
import type { AddressInfo } from 'node:net';
import { OpenAIUpstreamFake } from '../fakes/upstreams/openai-upstream-fake';
import { createTestApp, type TestApp } from '../support/app';
import { admission, createChannel, listen, routable, userWithToken } from './relay-support';
import { type Caller, dataSource, eventStore, projected, rootCaller, shipped } from './users-support';
import { chargeOfRow } from '#test/support/quota-consumed-fixture';

/** The drain bound the honest-charges specs run with (RELAY_DRAIN_AFTER_CLIENT_GONE_MS). */
export const DRAIN_MS = 1_500;

export interface HonestContext {
  target: TestApp;
  /** The relay's /v1 base URL. */
  baseURL: string;
  root: Caller;
  alice: Caller & { key: string; tokenId: number };
  openai: OpenAIUpstreamFake;
}

/** A charge as stored: its ledger position (the log row's id and the statement line's) and its data. */
export interface StoredCharge {
  position: number;
  data: Record<string, any>;
}

/**
 * The app for the honest-charges specs: RELAY_DRAIN_AFTER_CLIENT_GONE_MS = DRAIN_MS, STREAMING_TIMEOUT 1 s, one
 * channel on an OpenAI fake (gpt-3.5-turbo) and one on a port nobody listens on (`refused-model`), alice with a
 * limited token. Call first in the describe.
 */
export function honestFixture() {
  const context = { openai: new OpenAIUpstreamFake() } as HonestContext;

  beforeAll(async () => {
    await context.openai.start();
    const target = (context.target = await createTestApp({
      env: { RELAY_DRAIN_AFTER_CLIENT_GONE_MS: String(DRAIN_MS), STREAMING_TIMEOUT: '1' },
    }));
    const baseURL = (context.baseURL = await listen(target));
    const root = (context.root = await rootCaller(target));
    await createChannel(target, root, { type: 1, name: 'fake-openai', baseUrl: context.openai.baseUrl, models: ['gpt-3.5-turbo'] });
    await createChannel(target, root, { type: 1, name: 'refused', baseUrl: await closedPortUrl(), models: ['refused-model'] });
    context.alice = await userWithToken(target, 'alice', 1_000_000, { unlimited_quota: false, remain_quota: 500_000 });
    await routable(target, context.alice.key, baseURL, 'refused-model');
  });

  afterAll(async () => {
    await context.target?.close();
    await context.openai.close();
  });

  return context;
}

/** A URL on 127.0.0.1 whose port was just free: connecting to it is refused. */
async function closedPortUrl(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  return `http://127.0.0.1:${port}`;
}

export const chatBody = (extra: Record<string, unknown> = {}) => ({
  model: 'gpt-3.5-turbo',
  messages: [{ role: 'user', content: 'Tell me something honest about billing.' }],
  ...extra,
});

/**
 * POSTs a chat request as alice on a connection of its own (node:http, no agent: a client that leaves closes exactly
 * that connection, and no pool opens a spare one the server would wait for at close). `leave()` hangs up.
 */
export function startChat(context: HonestContext, body: Record<string, unknown>) {
  const url = new URL(`${context.baseURL}/chat/completions`);
  let outgoing: ClientRequest | undefined;
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    outgoing = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        agent: false,
        headers: { authorization: `Bearer ${context.alice.key}`, 'content-type': 'application/json' },
      },
      resolve,
    );
    outgoing.on('error', reject);
    outgoing.end(JSON.stringify(body));
  });
  // A rejection after leaving is what the test expects; it awaits `response` itself when it cares.
  response.catch(() => undefined);
  return { leave: () => outgoing!.destroy(), response };
}

/** The whole body of an answer, as text. */
export async function bodyText(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Resolves with the first piece of an answer's body (the client has seen the stream start). */
export function firstChunk(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    response.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8')));
    response.once('error', reject);
  });
}

export async function headPosition(target: TestApp): Promise<number> {
  await shipped(target);
  return eventStore(target).headPosition();
}

/**
 * The charges appended after `after`, once `count` of them are there (the relay settles a client-gone request
 * after the client left, so they are waited for), and no more arrived in a short while after that.
 */
export async function chargesAfter(target: TestApp, after: number, count = 1, timeoutMs = 10_000): Promise<StoredCharge[]> {
  const deadline = Date.now() + timeoutMs;
  const read = async (): Promise<StoredCharge[]> => {
    await shipped(target);
    const rows: Array<{ position: string; event_id: string; stream_id: string; data: unknown }> = await dataSource(target).query(
      `SELECT position, event_id, stream_id, data FROM events WHERE type = 'QuotaConsumed' AND position > $1 ORDER BY position`,
      [after],
    );
    return rows.map((row) => ({ position: Number(row.position), data: chargeOfRow(row) as unknown as Record<string, any> }));
  };
  let found = await read();
  while (found.length < count && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    found = await read();
  }
  await new Promise((resolve) => setTimeout(resolve, 300));
  return read();
}

/** The log row's `other` and the statement line's `ref` of a charge, once projected, as the APIs show them. */
export async function projectedViews(
  target: TestApp,
  position: number,
): Promise<{ other: Record<string, unknown>; ref: Record<string, unknown> }> {
  await projected(target);
  // As the log API answers it: stored, or derived from the row's consume columns.
  const [log] = (await dataSource(target).query(`SELECT ${LOG_COLUMNS} FROM logs WHERE id = $1`, [position])).map((row: LogRow) => ({
    other: logOther(row),
  }));
  // As the statement API answers it: the stored ref, or the one a compact charge's columns stand for.
  const [line] = (await dataSource(target).query(`SELECT ${STATEMENT_COLUMNS} FROM statement_lines WHERE position = $1`, [position])).map(
    (row: StatementRow) => toStatementLineJson(row, 'admin'),
  );
  return { other: JSON.parse(log.other), ref: line.ref };
}

/** Alice's quota admission can still give (user), after every charge so far was shipped. */
export async function available(context: HonestContext): Promise<number> {
  await projected(context.target);
  return (await admission(context.target).available(context.alice.id)).user;
}

/** The quota of a gpt-3.5-turbo charge (ModelRatio 0.25, CompletionRatio 3, group 1), as the relay prices it. */
export function gpt35Quota(prompt: number, completion: number): number {
  if (prompt + completion === 0) return 0;
  return Math.max(1, Math.round((prompt + Math.round(completion * 3)) * 0.25));
}

/** Resolves once the fake upstream has received `count` requests in all (the request was written to it). */
export async function upstreamReceived(context: HonestContext, count: number): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (context.openai.requests.length < count) {
    if (Date.now() > deadline) throw new Error(`the upstream received ${context.openai.requests.length} requests, not ${count}`);
    await sleep(10);
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
