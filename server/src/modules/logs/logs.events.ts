/**
 * The `logs` stream: admin operations on the log read model. Deleting old log rows (DELETE /api/log/) is recorded
 * as an event rather than done to the table, so the logs projection applies it in ledger order and a rebuild
 * replays it too: rows deleted once stay deleted, and rows written after the purge stay.
 */
export const LOGS_STREAM = 'logs';

export const LogsEventType = {
  LogsPurged: 'LogsPurged',
} as const;

/** Log rows with `created_at < before` (unix seconds) were deleted by an admin. */
export interface LogsPurged {
  type: 'LogsPurged';
  data: { before: number; adminId: number };
}

export type LogsEvent = LogsPurged;

/** The purge inside a stored event, with its fields checked. */
export function toLogsPurged(data: Record<string, unknown>): LogsPurged['data'] {
  const { before, adminId } = data;
  if (typeof before !== 'number' || !Number.isSafeInteger(before)) throw new Error(`LogsPurged.before is not a safe integer: ${JSON.stringify(before)}`);
  return { before, adminId: typeof adminId === 'number' && Number.isSafeInteger(adminId) ? adminId : 0 };
}
