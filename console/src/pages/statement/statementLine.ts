/** One line of GET /api/statement/self or /api/statement/?user_id= (server/src/modules/statement). */
export interface StatementLine {
  /** The ledger position of the event. */
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

/**
 * The kinds the server's `kind` filter accepts, in the order the filter offers them (the server's table:
 * projections/src/read-models/statement/statement-line.ts). A new kind is one entry here and its label in
 * i18n/statement.ts.
 */
export const STATEMENT_KINDS = [
  'gift',
  'invite_reward',
  'affiliate_transfer',
  'admin_adjustment',
  'redemption',
  'topup',
  'relay_charge',
  'refund',
] as const;

/** The list filter the statement screens keep (react-admin filter values). */
export interface StatementFilter {
  /** Set on the admin screen; absent: the caller's own statement. */
  user_id?: number;
  kind?: string;
  /** `YYYY-MM-DD`, local days, both inclusive. */
  start_date?: string;
  end_date?: string;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** Local midnight (or the day's last second) of a `YYYY-MM-DD` as unix seconds; undefined when unset or malformed. */
const dayBound = (day: string | undefined, end: boolean): number | undefined => {
  if (!day || !DAY.test(day)) return undefined;
  const time = new Date(`${day}T${end ? '23:59:59' : '00:00:00'}`).getTime();
  return Number.isFinite(time) ? Math.max(0, Math.floor(time / 1000)) : undefined;
};

/** The route and query a filter asks for (the page, the CSV download and the list share it). */
export const statementRequest = (filter: StatementFilter): { path: string; query: Record<string, string | number | undefined> } => ({
  path: filter.user_id ? '/api/statement/' : '/api/statement/self',
  query: {
    user_id: filter.user_id || undefined,
    kind: filter.kind || undefined,
    start_timestamp: dayBound(filter.start_date, false),
    end_timestamp: dayBound(filter.end_date, true),
  },
});
