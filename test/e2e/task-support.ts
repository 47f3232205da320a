import type { TestApp } from '../support/app';
import { dataSource } from './users-support';
import { chargeOfRow } from '#test/support/quota-consumed-fixture';

/** What an async-task relay route (Midjourney, Suno) answered: the status, the body (JSON when it parses) and the request id. */
export interface TaskRelayAnswer {
  status: number;
  body: any;
  requestId: string;
}

/** One JSON call to a task relay route with the given headers; a body that is a string is sent as it is. */
export async function taskRelayCall(
  url: string,
  method: 'GET' | 'POST',
  headers: Record<string, string>,
  body?: unknown,
): Promise<TaskRelayAnswer> {
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: the text
  }
  return { status: response.status, body: parsed, requestId: response.headers.get('x-oneapi-request-id') ?? '' };
}

/** The events of a type in ledger order; a QuotaConsumed's data decoded by the product's codec (its stored shape is compact). */
export async function eventsOfType(target: TestApp, type: string): Promise<Array<{ stream_id: string; event_id: string; data: any }>> {
  const rows: Array<{ stream_id: string; event_id: string; data: any }> = await dataSource(target).query(
    'SELECT stream_id, event_id, data FROM events WHERE type = $1 ORDER BY position',
    [type],
  );
  return type === 'QuotaConsumed' ? rows.map((row) => ({ ...row, data: chargeOfRow(row) })) : rows;
}

export async function tokenBalance(target: TestApp, tokenId: number): Promise<{ remain_quota: number; used_quota: number }> {
  const rows: Array<Record<string, string>> = await dataSource(target).query(
    'SELECT remain_quota, used_quota FROM token_balances WHERE token_id = $1',
    [tokenId],
  );
  return { remain_quota: Number(rows[0].remain_quota), used_quota: Number(rows[0].used_quota) };
}
