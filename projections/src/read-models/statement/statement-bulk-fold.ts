import type { RecordedEvent } from '#server/ledger/event-store.port';
import { streamCategory, streamKey } from '#server/ledger/streams';
import type { BulkFold, BulkRows } from '../../runner/bulk-fold';
import { STATEMENT_COLUMNS, statementLine, statementLineValues } from './statement-line';

/** A user's last line so far: the balance the next line starts from and the replay guard's revision. */
interface Last {
  balance: number;
  revision: number;
}

/**
 * The statement's rebuild fold (bulk-fold.ts): the running balance of every user in memory and one row per line,
 * each line built by `statementLine` from the balance before it, exactly as `apply` builds it from the user's last
 * stored line (with the same replay guard: an event whose revision is not past the user's last line adds nothing).
 * Lines are final once made: every page's lines go out with `drain`; nothing is left for `finish`.
 */
export class StatementBulkFold implements BulkFold {
  private readonly last = new Map<number, Last>();
  private rows: unknown[][] = [];

  add(event: RecordedEvent): void {
    if (streamCategory(event.streamId) !== 'account') return;
    const userId = streamKey(event.streamId);
    const last = this.last.get(userId);
    if (last !== undefined && last.revision >= event.revision) return;
    const line = statementLine(event, userId, last === undefined ? 0 : last.balance);
    if (last === undefined) this.last.set(userId, { balance: line.balance, revision: line.revision });
    else {
      last.balance = line.balance;
      last.revision = line.revision;
    }
    this.rows.push(statementLineValues(line));
  }

  drain(): BulkRows[] {
    const rows = this.rows;
    this.rows = [];
    return [{ table: 'statement_lines', columns: STATEMENT_COLUMNS, rows }];
  }

  finish(): BulkRows[] {
    return this.drain();
  }
}
