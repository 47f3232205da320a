import type { RecordedEvent } from '#server/ledger/event-store.port';
import { streamCategory } from '#server/ledger/streams';
import { toAccountEvent } from '#server/modules/accounts/account-event-codec';
import type { MidjourneyTaskEvent } from '#server/modules/tasks/midjourney-task.events';
import { evolve, initialMidjourneyTaskState, type MidjourneyTaskState } from '#server/modules/tasks/midjourney-task.state';

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
    submitted: true,
    taskId: String(row.task_id),
    userId: Number(row.user_id),
    username: String(row.username),
    tokenId: Number(row.token_id),
    tokenUnlimited: Boolean(row.token_unlimited),
    channelId: Number(row.channel_id),
    action: String(row.action),
    mjId: String(row.mj_id),
    prompt: String(row.prompt),
    quota: Number(row.quota),
    code: Number(row.code),
    promptEn: String(row.prompt_en),
    description: String(row.description),
    state: String(row.state),
    submitTime: Number(row.submit_time),
    startTime: Number(row.start_time),
    finishTime: Number(row.finish_time),
    imageUrl: String(row.image_url),
    status: String(row.status),
    progress: String(row.progress),
    failReason: String(row.fail_reason),
    buttons: String(row.buttons),
    properties: String(row.properties),
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
  if (decoded.type !== 'MidjourneyTaskSubmitted' && !row) return null;
  if (row && Number(row.revision) >= event.revision) return null;
  const next = evolve(row ? stateOf(row) : initialMidjourneyTaskState, decoded);
  return {
    task_id: taskId,
    id: row ? Number(row.id) : event.position,
    code: next.code,
    user_id: next.userId,
    username: next.username,
    token_id: next.tokenId,
    token_unlimited: next.tokenUnlimited,
    action: next.action,
    mj_id: next.mjId,
    prompt: next.prompt,
    prompt_en: next.promptEn,
    description: next.description,
    state: next.state,
    submit_time: next.submitTime,
    start_time: next.startTime,
    finish_time: next.finishTime,
    image_url: next.imageUrl,
    status: next.status,
    progress: next.progress,
    fail_reason: next.failReason,
    channel_id: next.channelId,
    quota: next.quota,
    buttons: next.buttons,
    properties: next.properties,
    revision: event.revision,
  };
}

/** The task id a QuotaRefunded on an account stream gives a Midjourney task's charge back for, or null (another platform's). */
export function refundedMidjourneyTaskId(event: RecordedEvent): string | null {
  if (streamCategory(event.streamId) !== 'account') return null;
  const refund = toAccountEvent(event);
  return refund.type === 'QuotaRefunded' && refund.data.platform === 'midjourney' ? refund.data.taskId : null;
}
