import { SUNO_TASK_CATEGORY, type SunoTaskEvent, sunoTaskStream } from '#server/modules/tasks/suno-task.events';
import { toSunoTaskEvent } from '#server/modules/tasks/suno-task-event-codec';
import { ChargedTasksBulkFold } from '../charged-tasks-bulk-fold';
import { refundedSunoTaskKey, TASK_COLUMNS, type TaskRow, taskRowAfter } from './task-row';

/** tasks rebuilt in memory (bulk-fold.ts): one row per Suno task, folded by taskRowAfter as apply folds it. */
export class TasksBulkFold extends ChargedTasksBulkFold<TaskRow, SunoTaskEvent> {
  constructor() {
    super({
      table: 'tasks',
      category: SUNO_TASK_CATEGORY,
      streamPrefix: sunoTaskStream(''),
      columns: TASK_COLUMNS,
      decode: toSunoTaskEvent,
      rowAfter: taskRowAfter,
      refundedTaskKey: refundedSunoTaskKey,
    });
  }
}
