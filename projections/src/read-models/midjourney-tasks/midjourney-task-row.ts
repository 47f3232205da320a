import type { RecordedEvent } from '#server/ledger/event-store.port';
import type { MidjourneyTaskEvent } from '#server/modules/tasks/midjourney-task.events';
import { evolve, initialMidjourneyTaskState, type MidjourneyTaskState } from '#server/modules/tasks/midjourney-task.state';
import { chargedTaskColumnsOf, chargedTaskStateOf, refundedTaskId, taskRowKeeps } from '../charged-task-row';

/**
 * The columns of `midjourney_tasks` the task's own stream writes (all but `refunded`), in the order apply and the
 * bulk fold write them.
 */
export const MIDJOURNEY_TASK_COLUMNS = [
  'task_id',
  'id',
  'code',
  'user_id',
  'username',
  'token_id',
  'token_unlimited',
  'action',
  'mj_id',
  'prompt',
  'prompt_en',
  'description',
  'state',
  'submit_time',
  'start_time',
  'finish_time',
  'image_url',
  'status',
  'progress',
  'fail_reason',
  'channel_id',
  'quota',
  'buttons',
  'properties',
  'revision',
] as const;

/** What apply's upsert overwrites on an existing task (ON CONFLICT (task_id)): all but its key and id. */
export const MIDJOURNEY_TASK_UPDATED_COLUMNS = MIDJOURNEY_TASK_COLUMNS.filter((column) => column !== 'task_id' && column !== 'id');

/** A row's MIDJOURNEY_TASK_COLUMNS: as Postgres returns them (bigint columns as text) or as the bulk fold holds them. */
export type MidjourneyTaskRow = Record<(typeof MIDJOURNEY_TASK_COLUMNS)[number], string | number | boolean>;

function stateOf(row: MidjourneyTaskRow): MidjourneyTaskState {
  return {
    ...chargedTaskStateOf(row),
    taskId: String(row.task_id),
    mjId: String(row.mj_id),
    prompt: String(row.prompt),
    code: Number(row.code),
    promptEn: String(row.prompt_en),
    description: String(row.description),
    state: String(row.state),
    imageUrl: String(row.image_url),
    buttons: String(row.buttons),
  };
}

/**
 * Pure: the row of task `taskId` once its stream's event (decoded: `decoded`) is folded into `row` (undefined: none
 * yet) with the task's own `evolve`; null when there is nothing to write: an update without its submit, or an event
 * the row already holds (the runner applies each event once; this only keeps a hand-run replay from applying one
 * twice). The id is the position of the task's MidjourneyTaskSubmitted.
 */
export function midjourneyTaskRowAfter(
  row: MidjourneyTaskRow | undefined,
  taskId: string,
  decoded: MidjourneyTaskEvent,
  event: RecordedEvent,
): MidjourneyTaskRow | null {
  if (taskRowKeeps(row, decoded.type === 'MidjourneyTaskSubmitted', event)) return null;
  const next = evolve(row ? stateOf(row) : initialMidjourneyTaskState, decoded);
  return {
    task_id: taskId,
    id: row ? Number(row.id) : event.position,
    ...chargedTaskColumnsOf(next),
    code: next.code,
    mj_id: next.mjId,
    prompt: next.prompt,
    prompt_en: next.promptEn,
    description: next.description,
    state: next.state,
    image_url: next.imageUrl,
    buttons: next.buttons,
    revision: event.revision,
  };
}

/** The task id a QuotaRefunded on an account stream gives a Midjourney task's charge back for, or null (another platform's). */
export const refundedMidjourneyTaskId = (event: RecordedEvent): string | null => refundedTaskId(event, 'midjourney');
