import type { TestApp } from '../support/app';
import { call, type Caller, dataSource } from './users-support';

/** Shared steps of the statement e2e specs (test/e2e/statement-*.spec.ts). */

export interface StatementLine {
  id: number;
  created_at: number;
  kind: string;
  delta: number;
  balance: number;
  actor: { type: 'user' | 'system'; id: number | null; role: number | null };
  reason: string;
  request_id: string;
  ref: Record<string, string | number>;
}

export interface StatementPage {
  items: StatementLine[];
  total: number;
  page: number;
  page_size: number;
}

/** One page of `path` (a statement route with its query), failing loudly on a refusal. */
export async function statementPage(target: TestApp, caller: Caller, path: string): Promise<StatementPage> {
  const response = await call(target, caller, 'get', path).expect(200);
  if (!response.body.success) throw new Error(`${path}: ${response.body.message}`);
  return response.body.data as StatementPage;
}

/**
 * Every line of a statement, page by page (newest first), checking on each page that it holds `page_size` lines
 * but the last, and that each line's balance minus its delta is the next older line's balance, across pages too.
 */
export async function wholeStatement(target: TestApp, caller: Caller, route: string, pageSize = 7): Promise<StatementLine[]> {
  const joiner = route.includes('?') ? '&' : '?';
  const lines: StatementLine[] = [];
  for (let page = 1; ; page++) {
    const data = await statementPage(target, caller, `${route}${joiner}p=${page}&page_size=${pageSize}`);
    expect(data.page).toBe(page);
    expect(data.page_size).toBe(pageSize);
    lines.push(...data.items);
    if (lines.length >= data.total || data.items.length === 0) {
      expect(lines).toHaveLength(data.total);
      break;
    }
    expect(data.items).toHaveLength(pageSize);
  }
  expectChain(lines);
  return lines;
}

/** Newest first: ids strictly decreasing, each balance − delta = the next older line's balance, the oldest from 0. */
export function expectChain(lines: readonly StatementLine[]): void {
  lines.forEach((line, index) => {
    const older = lines[index + 1];
    expect({ id: line.id, before: line.balance - line.delta }).toEqual({ id: line.id, before: older ? older.balance : 0 });
    if (older) expect(line.id).toBeGreaterThan(older.id);
  });
  expect(lines.reduce((sum, line) => sum + line.delta, 0)).toBe(lines[0]?.balance ?? 0);
}

/** The account-balances quota of every user with an account row (the read model the console's balance comes from). */
export async function balances(target: TestApp): Promise<Map<number, number>> {
  const rows: Array<{ user_id: number; quota: string }> = await dataSource(target).query('SELECT user_id, quota FROM account_balances');
  return new Map(rows.map((row) => [row.user_id, Number(row.quota)]));
}

/** RFC 4180: records of fields, quoted fields may hold commas, doubled quotes and line breaks. */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      record.push(field);
      field = '';
    } else if (char === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i++;
    } else field += char;
  }
  if (field !== '' || record.length) throw new Error(`CSV does not end with CRLF: ${JSON.stringify(text.slice(-40))}`);
  return records;
}

/** The CSV download of `path`: its headers and its records, header row first. */
export async function statementCsv(
  target: TestApp,
  caller: Caller,
  path: string,
): Promise<{ type: string; disposition: string; records: string[][] }> {
  const response = await call(target, caller, 'get', path)
    .buffer(true)
    .parse((res, done) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => done(null, text));
    })
    .expect(200);
  return {
    type: String(response.headers['content-type']),
    disposition: String(response.headers['content-disposition']),
    records: parseCsv(response.body as string),
  };
}
