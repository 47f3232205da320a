import type { EntityManager } from 'typeorm';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { streamCategory } from '#server/ledger/streams';
import { AccountEventType } from '#server/modules/accounts/account.events';
import { MIDJOURNEY_TASK_CATEGORY, MidjourneyTaskEventType, midjourneyTaskStream } from '#server/modules/tasks/midjourney-task.events';
import { toMidjourneyTaskEvent } from '#server/modules/tasks/midjourney-task-event-codec';
import type { BulkFold } from '../../runner/bulk-fold';
import type { Projection } from '../../runner/projection';
import { ReadModelProjection } from '../../runner/read-model-projection.decorator';
import {
  MIDJOURNEY_TASK_COLUMNS,
  MIDJOURNEY_TASK_UPDATED_COLUMNS,
  type MidjourneyTaskRow,
  midjourneyTaskRowAfter,
  refundedMidjourneyTaskId,
} from './midjourney-task-row';
import { MidjourneyTasksBulkFold } from './midjourney-tasks-bulk-fold';

const TASK_PREFIX = midjourneyTaskStream('');
const UPSERT = `INSERT INTO midjourney_tasks (${MIDJOURNEY_TASK_COLUMNS.join(', ')})
  VALUES (${MIDJOURNEY_TASK_COLUMNS.map((_, index) => `$${index + 1}`).join(', ')})
  ON CONFLICT (task_id) DO UPDATE SET ${MIDJOURNEY_TASK_UPDATED_COLUMNS.map((column) => `${column} = EXCLUDED.${column}`).join(', ')}`;

/**
 * `midjourney_tasks`: each `mjtask-{taskId}` stream folded with the task's own `evolve` (midjourneyTaskRowAfter), the
 * row id being the position of its MidjourneyTaskSubmitted (so a rebuild gives the same list, ids and all); and
 * `refunded` set by the task's QuotaRefunded on the owner's account stream.
 */
@ReadModelProjection()
export class MidjourneyTasksProjection implements Projection {
  readonly name = 'midjourney-tasks';
  readonly tables = ['midjourney_tasks'];
  readonly handles = [...Object.values(MidjourneyTaskEventType), AccountEventType.QuotaRefunded];

  async apply(event: RecordedEvent, manager: EntityManager): Promise<void> {
    if (event.type === AccountEventType.QuotaRefunded) {
      const taskId = refundedMidjourneyTaskId(event);
      if (taskId !== null) await manager.query('UPDATE midjourney_tasks SET refunded = true WHERE task_id = $1', [taskId]);
      return;
    }
    if (streamCategory(event.streamId) !== MIDJOURNEY_TASK_CATEGORY) return;
    const taskId = event.streamId.slice(TASK_PREFIX.length);
    const decoded = toMidjourneyTaskEvent(event);
    const rows: MidjourneyTaskRow[] = await manager.query(
      `SELECT ${MIDJOURNEY_TASK_COLUMNS.join(', ')} FROM midjourney_tasks WHERE task_id = $1`,
      [taskId],
    );
    const next = midjourneyTaskRowAfter(rows[0], taskId, decoded, event);
    if (!next) return;
    await manager.query(
      UPSERT,
      MIDJOURNEY_TASK_COLUMNS.map((column) => next[column]),
    );
  }

  /** A rebuild from empty tables, folded in memory (midjourney-tasks-bulk-fold.ts). */
  bulkFold(): BulkFold {
    return new MidjourneyTasksBulkFold();
  }
}
