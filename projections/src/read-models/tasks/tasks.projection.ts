import type { EntityManager } from 'typeorm';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { streamCategory } from '#server/ledger/streams';
import { AccountEventType } from '#server/modules/accounts/account.events';
import { SUNO_TASK_CATEGORY, SunoTaskEventType, sunoTaskStream } from '#server/modules/tasks/suno-task.events';
import { toSunoTaskEvent } from '#server/modules/tasks/suno-task-event-codec';
import type { BulkFold } from '../../runner/bulk-fold';
import type { Projection } from '../../runner/projection';
import { ReadModelProjection } from '../../runner/read-model-projection.decorator';
import { refundedSunoTaskKey, TASK_COLUMNS, TASK_UPDATED_COLUMNS, type TaskRow, taskRowAfter } from './task-row';
import { TasksBulkFold } from './tasks-bulk-fold';

const TASK_PREFIX = sunoTaskStream('');
const UPSERT = `INSERT INTO tasks (${TASK_COLUMNS.join(', ')}) VALUES (${TASK_COLUMNS.map((_, index) => `$${index + 1}`).join(', ')})
  ON CONFLICT (task_key) DO UPDATE SET ${TASK_UPDATED_COLUMNS.map((column) => `${column} = EXCLUDED.${column}`).join(', ')}`;

/**
 * `tasks`: each `sunotask-{taskKey}` stream folded with the task's own `evolveSuno` (taskRowAfter), the row id being
 * the position of its SunoTaskSubmitted and the times those of the events (so a rebuild gives the same list, ids and
 * all); and `refunded` set by the task's QuotaRefunded (platform suno) on the owner's account stream.
 */
@ReadModelProjection()
export class TasksProjection implements Projection {
  readonly name = 'tasks';
  readonly tables = ['tasks'];
  readonly handles = [...Object.values(SunoTaskEventType), AccountEventType.QuotaRefunded];

  async apply(event: RecordedEvent, manager: EntityManager): Promise<void> {
    if (event.type === AccountEventType.QuotaRefunded) {
      const taskKey = refundedSunoTaskKey(event);
      if (taskKey !== null) await manager.query('UPDATE tasks SET refunded = true WHERE task_key = $1', [taskKey]);
      return;
    }
    if (streamCategory(event.streamId) !== SUNO_TASK_CATEGORY) return;
    const taskKey = event.streamId.slice(TASK_PREFIX.length);
    const decoded = toSunoTaskEvent(event);
    const rows: TaskRow[] = await manager.query(`SELECT ${TASK_COLUMNS.join(', ')} FROM tasks WHERE task_key = $1`, [taskKey]);
    const next = taskRowAfter(rows[0], taskKey, decoded, event);
    if (!next) return;
    await manager.query(
      UPSERT,
      TASK_COLUMNS.map((column) => next[column]),
    );
  }

  /** A rebuild from empty tables, folded in memory (tasks-bulk-fold.ts). */
  bulkFold(): BulkFold {
    return new TasksBulkFold();
  }
}
