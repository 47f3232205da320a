import type { RecordedEvent } from '#server/ledger/event-store.port';
import type { SunoTaskEvent } from '#server/modules/tasks/suno-task.events';
import { evolveSuno, initialSunoTaskState, type SunoTaskState } from '#server/modules/tasks/suno-task.state';
import { chargedTaskColumnsOf, chargedTaskStateOf, refundedTaskId, taskRowKeeps } from '../charged-task-row';

/** The columns of `tasks` the task's own stream writes (all but `refunded`), in the order apply and the bulk fold write them. */
export const TASK_COLUMNS = [
  'task_key',
  'id',
  'created_at',
  'updated_at',
  'task_id',
  'platform',
  'user_id',
  'username',
  'token_id',
  'token_unlimited',
  'channel_id',
  'quota',
  'action',
  'status',
  'fail_reason',
  'submit_time',
  'start_time',
  'finish_time',
  'progress',
  'properties',
  'data',
  'revision',
] as const;

/** What apply's upsert overwrites on an existing task (ON CONFLICT (task_key)): all but its key, id and first time. */
export const TASK_UPDATED_COLUMNS = TASK_COLUMNS.filter((column) => column !== 'task_key' && column !== 'id' && column !== 'created_at');

/** A `tasks` row's TASK_COLUMNS: as Postgres returns them (bigint columns as text) or as the bulk fold holds them. */
export type TaskRow = Record<(typeof TASK_COLUMNS)[number], string | number | boolean>;

function stateOf(row: TaskRow): SunoTaskState {
  return {
    ...chargedTaskStateOf(row),
    taskId: String(row.task_key),
    upstreamTaskId: String(row.task_id),
    data: String(row.data),
  };
}

/**
 * Pure: the row of task `taskKey` once its stream's event (decoded: `decoded`) is folded into `row` (undefined: none
 * yet) with the task's own `evolveSuno`; null when there is nothing to write: an update without its submit, or an
 * event the row already holds (the runner applies each event once; this only keeps a hand-run replay from applying
 * one twice). The id is the position of the task's SunoTaskSubmitted, the times those of its first and last events.
 */
export function taskRowAfter(row: TaskRow | undefined, taskKey: string, decoded: SunoTaskEvent, event: RecordedEvent): TaskRow | null {
  if (taskRowKeeps(row, decoded.type === 'SunoTaskSubmitted', event)) return null;
  const next = evolveSuno(row ? stateOf(row) : initialSunoTaskState, decoded);
  const at = Math.floor(event.createdAt.getTime() / 1000);
  return {
    task_key: taskKey,
    id: row ? Number(row.id) : event.position,
    created_at: row ? Number(row.created_at) : at,
    updated_at: at,
    task_id: next.upstreamTaskId,
    platform: 'suno',
    ...chargedTaskColumnsOf(next),
    data: next.data,
    revision: event.revision,
  };
}

/** The task key a QuotaRefunded on an account stream gives a Suno task's charge back for, or null (another platform's). */
export const refundedSunoTaskKey = (event: RecordedEvent): string | null => refundedTaskId(event, 'suno');
