import { RELAY_REQUEST_REASON } from '#server/modules/accounts/quota-consumed-event-codec';
import { type ChargeColumns, chargeRefOf } from '#projections/read-models/statement/statement-line';

/**
 * A `statement_lines` row as Postgres returns it (bigints as strings). A relay charge stored compact has no `ref` and
 * no `reason` (its reason is the relay's) but its ChargeColumns; any other line has its `ref`. A request id that is a
 * uuid is in `request_uuid`.
 */
export interface StatementRow extends ChargeColumns {
  position: string;
  user_id: number;
  created_at: string;
  kind: string;
  delta: string;
  balance: string;
  actor_type: string;
  actor_id: number | null;
  actor_role: number | null;
  reason: string | null;
  /** null when the id is a uuid, stored in `request_uuid`. */
  request_id: string | null;
  request_uuid: string | null;
  ref: Record<string, string | number> | null;
}

export const STATEMENT_COLUMNS =
  'position, user_id, created_at, kind, delta, balance, actor_type, actor_id, actor_role, reason, request_id, ref, ' +
  'token_id, token_name, model, usage_source, end_reason, request_uuid';

export interface StatementActorJson {
  /** `user`: a person (the owner, an admin); `system`: the server itself (a sign-up gift). */
  type: 'user' | 'system';
  /** null for the system, and on the owner's own statement for anyone but the owner (an admin stays anonymous). */
  id: number | null;
  role: number | null;
}

export interface StatementLineJson {
  /** The ledger position of the event: unique, and the order of the lines. */
  id: number;
  created_at: number;
  kind: string;
  delta: number;
  balance: number;
  actor: StatementActorJson;
  reason: string;
  request_id: string;
  ref: Record<string, string | number>;
}

export type StatementViewer = 'owner' | 'admin';

export function toStatementLineJson(row: StatementRow, viewer: StatementViewer): StatementLineJson {
  const someoneElse = row.actor_type === 'user' && row.actor_id !== row.user_id;
  return {
    id: Number(row.position),
    created_at: Number(row.created_at),
    kind: row.kind,
    delta: Number(row.delta),
    balance: Number(row.balance),
    actor: {
      type: row.actor_type === 'user' ? 'user' : 'system',
      id: viewer === 'owner' && someoneElse ? null : row.actor_id,
      role: row.actor_role,
    },
    reason: row.reason ?? RELAY_REQUEST_REASON,
    request_id: row.request_id ?? row.request_uuid ?? '',
    ref: row.ref ?? chargeRefOf(row),
  };
}

/** The reference keys that get a CSV column of their own; any other key stays in the `ref` JSON column. */
const REF_COLUMNS = ['code_id', 'trade_no', 'token_id', 'token_name', 'model'] as const;

export const CSV_HEADER = [
  'id',
  'created_at',
  'time_utc',
  'kind',
  'delta',
  'balance',
  'actor_type',
  'actor_id',
  'actor_role',
  'reason',
  'request_id',
  ...REF_COLUMNS,
  'ref',
];

/**
 * One RFC 4180 field: quoted when it holds a comma, a quote, CR or LF (quotes doubled). Text that a spreadsheet
 * would run as a formula (starting with = + - @, tab or CR) is prefixed with a single quote; numbers are written
 * as they are, so a negative delta stays a number.
 */
export function csvField(value: string | number | null | undefined, text = true): string {
  if (value === null || value === undefined) return '';
  let field = String(value);
  if (text && /^[=+\-@\t\r]/.test(field)) field = `'${field}`;
  return /[",\r\n]/.test(field) ? `"${field.replace(/"/g, '""')}"` : field;
}

/** A CSV record, CRLF-terminated as RFC 4180 asks. */
export function csvRecord(fields: string[]): string {
  return `${fields.join(',')}\r\n`;
}

export function csvHeader(): string {
  return csvRecord(CSV_HEADER.map((name) => csvField(name)));
}

export function csvLine(line: StatementLineJson): string {
  const rest = Object.fromEntries(Object.entries(line.ref).filter(([key]) => !(REF_COLUMNS as readonly string[]).includes(key)));
  return csvRecord([
    csvField(line.id, false),
    csvField(line.created_at, false),
    csvField(new Date(line.created_at * 1000).toISOString(), false),
    csvField(line.kind),
    csvField(line.delta, false),
    csvField(line.balance, false),
    csvField(line.actor.type),
    csvField(line.actor.id, false),
    csvField(line.actor.role, false),
    csvField(line.reason),
    csvField(line.request_id),
    ...REF_COLUMNS.map((key) => csvField(line.ref[key], typeof line.ref[key] !== 'number')),
    csvField(Object.keys(rest).length ? JSON.stringify(rest) : ''),
  ]);
}
