import type { RecordedEvent } from '#server/ledger/event-store.port';
import { streamCategory } from '#server/ledger/streams';
import { AccountEventType } from '#server/modules/accounts/account.events';
import type { BulkFold, BulkRows } from '../runner/bulk-fold';

/** How one platform's tasks are folded into its table: the pure pieces its projection's apply uses too. */
export interface ChargedTaskTable<Row extends Record<string, unknown>, Decoded> {
  table: string;
  /** The stream category of the platform's tasks; a stream's id after `streamPrefix` is the task's key. */
  category: string;
  streamPrefix: string;
  /** The columns the task's own stream writes, in the order apply writes them (the table adds `refunded`). */
  columns: readonly (keyof Row & string)[];
  decode(event: RecordedEvent): Decoded;
  /** The row once the event is folded into it, or null when there is nothing to write. */
  rowAfter(row: Row | undefined, taskKey: string, decoded: Decoded, event: RecordedEvent): Row | null;
  /** The key of the platform's task a QuotaRefunded gives the charge back for, or null. */
  refundedTaskKey(event: RecordedEvent): string | null;
}

/**
 * A charged-task table rebuilt in memory (bulk-fold.ts): one row per task, folded by the platform's rowAfter as apply
 * folds it, and `refunded` set by the task's QuotaRefunded once the task has a row (apply's UPDATE finds none before;
 * the upsert of a later task event leaves the column alone).
 */
export class ChargedTasksBulkFold<Row extends Record<string, unknown>, Decoded> implements BulkFold {
  private readonly tasks = new Map<string, { row: Row; refunded: boolean }>();

  constructor(private readonly platform: ChargedTaskTable<Row, Decoded>) {}

  add(event: RecordedEvent): void {
    if (event.type === AccountEventType.QuotaRefunded) {
      const taskKey = this.platform.refundedTaskKey(event);
      const task = taskKey === null ? undefined : this.tasks.get(taskKey);
      if (task) task.refunded = true;
      return;
    }
    if (streamCategory(event.streamId) !== this.platform.category) return;
    const taskKey = event.streamId.slice(this.platform.streamPrefix.length);
    const decoded = this.platform.decode(event);
    const task = this.tasks.get(taskKey);
    const row = this.platform.rowAfter(task?.row, taskKey, decoded, event);
    if (!row) return;
    if (task) task.row = row;
    else this.tasks.set(taskKey, { row, refunded: false });
  }

  drain(): BulkRows[] {
    return [];
  }

  finish(): BulkRows[] {
    const { table, columns } = this.platform;
    const rows: unknown[][] = [];
    for (const { row, refunded } of this.tasks.values()) rows.push([...columns.map((column) => row[column]), refunded]);
    this.tasks.clear();
    return [{ table, columns: [...columns, 'refunded'], rows }];
  }
}
