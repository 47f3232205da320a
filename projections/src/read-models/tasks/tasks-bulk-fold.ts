import type { RecordedEvent } from '#server/ledger/event-store.port';
import { streamCategory } from '#server/ledger/streams';
import { AccountEventType } from '#server/modules/accounts/account.events';
import { SUNO_TASK_CATEGORY, sunoTaskStream } from '#server/modules/tasks/suno-task.events';
import { toSunoTaskEvent } from '#server/modules/tasks/suno-task-event-codec';
import type { BulkFold, BulkRows } from '../../runner/bulk-fold';
import { refundedSunoTaskKey, TASK_COLUMNS, type TaskRow, taskRowAfter } from './task-row';

const TASK_PREFIX = sunoTaskStream('');
const COLUMNS = [...TASK_COLUMNS, 'refunded'] as const;

/**
 * tasks rebuilt in memory (bulk-fold.ts): one row per Suno task, folded by taskRowAfter as apply folds it, and
 * `refunded` set by the task's QuotaRefunded once the task has a row (apply's UPDATE finds none before; the upsert
 * of a later task event leaves the column alone).
 */
export class TasksBulkFold implements BulkFold {
  private readonly tasks = new Map<string, { row: TaskRow; refunded: boolean }>();

  add(event: RecordedEvent): void {
    if (event.type === AccountEventType.QuotaRefunded) {
      const taskKey = refundedSunoTaskKey(event);
      const task = taskKey === null ? undefined : this.tasks.get(taskKey);
      if (task) task.refunded = true;
      return;
    }
    if (streamCategory(event.streamId) !== SUNO_TASK_CATEGORY) return;
    const taskKey = event.streamId.slice(TASK_PREFIX.length);
    const decoded = toSunoTaskEvent(event);
    const task = this.tasks.get(taskKey);
    const row = taskRowAfter(task?.row, taskKey, decoded, event);
    if (!row) return;
    if (task) task.row = row;
    else this.tasks.set(taskKey, { row, refunded: false });
  }

  drain(): BulkRows[] {
    return [];
  }

  finish(): BulkRows[] {
    const rows: unknown[][] = [];
    for (const { row, refunded } of this.tasks.values()) rows.push([...TASK_COLUMNS.map((column) => row[column]), refunded]);
    this.tasks.clear();
    return [{ table: 'tasks', columns: COLUMNS, rows }];
  }
}
