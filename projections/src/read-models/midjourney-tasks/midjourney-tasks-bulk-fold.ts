import { MIDJOURNEY_TASK_CATEGORY, type MidjourneyTaskEvent, midjourneyTaskStream } from '#server/modules/tasks/midjourney-task.events';
import { toMidjourneyTaskEvent } from '#server/modules/tasks/midjourney-task-event-codec';
import { ChargedTasksBulkFold } from '../charged-tasks-bulk-fold';
import { MIDJOURNEY_TASK_COLUMNS, type MidjourneyTaskRow, midjourneyTaskRowAfter, refundedMidjourneyTaskId } from './midjourney-task-row';

/** midjourney_tasks rebuilt in memory (bulk-fold.ts): one row per task, folded by midjourneyTaskRowAfter as apply folds it. */
export class MidjourneyTasksBulkFold extends ChargedTasksBulkFold<MidjourneyTaskRow, MidjourneyTaskEvent> {
  constructor() {
    super({
      table: 'midjourney_tasks',
      category: MIDJOURNEY_TASK_CATEGORY,
      streamPrefix: midjourneyTaskStream(''),
      columns: MIDJOURNEY_TASK_COLUMNS,
      decode: toMidjourneyTaskEvent,
      rowAfter: midjourneyTaskRowAfter,
      refundedTaskKey: refundedMidjourneyTaskId,
    });
  }
}
