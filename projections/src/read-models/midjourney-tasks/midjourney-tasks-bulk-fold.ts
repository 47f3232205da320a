import type { RecordedEvent } from '#server/ledger/event-store.port';
import { streamCategory } from '#server/ledger/streams';
import { AccountEventType } from '#server/modules/accounts/account.events';
import { MIDJOURNEY_TASK_CATEGORY, midjourneyTaskStream } from '#server/modules/tasks/midjourney-task.events';
import { toMidjourneyTaskEvent } from '#server/modules/tasks/midjourney-task-event-codec';
import type { BulkFold, BulkRows } from '../../runner/bulk-fold';
import { MIDJOURNEY_TASK_COLUMNS, type MidjourneyTaskRow, midjourneyTaskRowAfter, refundedMidjourneyTaskId } from './midjourney-task-row';

const TASK_PREFIX = midjourneyTaskStream('');
const COLUMNS = [...MIDJOURNEY_TASK_COLUMNS, 'refunded'] as const;

/**
 * midjourney_tasks rebuilt in memory (bulk-fold.ts): one row per task, folded by midjourneyTaskRowAfter as apply
 * folds it, and `refunded` set by the task's QuotaRefunded once the task has a row (apply's UPDATE finds none
 * before; the upsert of a later task event leaves the column alone).
 */
export class MidjourneyTasksBulkFold implements BulkFold {
  private readonly tasks = new Map<string, { row: MidjourneyTaskRow; refunded: boolean }>();

  add(event: RecordedEvent): void {
    if (event.type === AccountEventType.QuotaRefunded) {
      const taskId = refundedMidjourneyTaskId(event);
      const task = taskId === null ? undefined : this.tasks.get(taskId);
      if (task) task.refunded = true;
      return;
    }
    if (streamCategory(event.streamId) !== MIDJOURNEY_TASK_CATEGORY) return;
    const taskId = event.streamId.slice(TASK_PREFIX.length);
    const decoded = toMidjourneyTaskEvent(event);
    const task = this.tasks.get(taskId);
    const row = midjourneyTaskRowAfter(task?.row, taskId, decoded, event);
    if (!row) return;
    if (task) task.row = row;
    else this.tasks.set(taskId, { row, refunded: false });
  }

  drain(): BulkRows[] {
    return [];
  }

  finish(): BulkRows[] {
    const rows: unknown[][] = [];
    for (const { row, refunded } of this.tasks.values()) rows.push([...MIDJOURNEY_TASK_COLUMNS.map((column) => row[column]), refunded]);
    this.tasks.clear();
    return [{ table: 'midjourney_tasks', columns: COLUMNS, rows }];
  }
}
