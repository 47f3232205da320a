import {
  type AppendDurability,
  type AppendOutcome,
  EventIdConflictError,
  type ExpectedRevision,
  WrongExpectedRevisionError,
} from '../event-store.port';

/** The Postgres store's append statements and the outcome rows they answer (ledger_append, ledger_append_many). */

/**
 * The append statements. `'async'` adds `set_config('synchronous_commit', 'off', true)` (SET LOCAL) to the same
 * statement, i.e. to its implicit transaction only: the commit does not wait for the WAL flush, the pooled
 * connection keeps `synchronous_commit = on` for whatever runs on it next.
 */
export function appendStatement(kind: 'one' | 'many', durability: AppendDurability = 'sync'): string {
  const call = kind === 'one' ? 'ledger_append($1, $2, $3::jsonb)' : 'ledger_append_many($1::jsonb)';
  return durability === 'async'
    ? `SELECT appended.* FROM set_config('synchronous_commit', 'off', true) AS local_setting, ${call} AS appended`
    : `SELECT * FROM ${call}`;
}

export interface AppendRow {
  outcome: string;
  stream_revision: string | null;
  last_position: string | null;
  conflicting_ids: string[] | null;
}

/** One outcome row of ledger_append / ledger_append_many as the port's result or error. */
export function toOutcome(streamId: string, expected: ExpectedRevision, row: AppendRow): AppendOutcome {
  switch (row.outcome) {
    case 'ok':
    case 'duplicate':
      return { ok: true, result: { nextExpectedRevision: Number(row.stream_revision), position: Number(row.last_position ?? 0) } };
    case 'wrong_expected_revision':
      return {
        ok: false,
        error: new WrongExpectedRevisionError(streamId, expected, row.stream_revision === null ? 'no_stream' : Number(row.stream_revision)),
      };
    case 'partial_duplicate':
    case 'id_in_other_stream':
      return { ok: false, error: new EventIdConflictError(streamId, row.conflicting_ids ?? [], row.outcome) };
    default:
      return { ok: false, error: new Error(`ledger_append returned an unknown outcome "${row.outcome}"`) };
  }
}
