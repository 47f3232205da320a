import type { RecordedEvent } from '#server/ledger/event-store.port';
import { streamCategory } from '#server/ledger/streams';
import { toAccountEvent } from '#server/modules/accounts/account-event-codec';
import type { SunoTaskEvent } from '#server/modules/tasks/suno-task.events';
import { evolveSuno, initialSunoTaskState, type SunoTaskState } from '#server/modules/tasks/suno-task.state';

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
    submitted: true,
    taskId: String(row.task_key),
    upstreamTaskId: String(row.task_id),
    userId: Number(row.user_id),
    username: String(row.username),
    tokenId: Number(row.token_id),
    tokenUnlimited: Boolean(row.token_unlimited),
    channelId: Number(row.channel_id),
    action: String(row.action),
    quota: Number(row.quota),
    properties: String(row.properties),
    status: String(row.status),
    failReason: String(row.fail_reason),
    submitTime: Number(row.submit_time),
    startTime: Number(row.start_time),
    finishTime: Number(row.finish_time),
    progress: String(row.progress),
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
  if (decoded.type !== 'SunoTaskSubmitted' && !row) return null;
  if (row && Number(row.revision) >= event.revision) return null;
  const next = evolveSuno(row ? stateOf(row) : initialSunoTaskState, decoded);
  const at = Math.floor(event.createdAt.getTime() / 1000);
  return {
    task_key: taskKey,
    id: row ? Number(row.id) : event.position,
    created_at: row ? Number(row.created_at) : at,
    updated_at: at,
    task_id: next.upstreamTaskId,
    platform: 'suno',
    user_id: next.userId,
    username: next.username,
    token_id: next.tokenId,
    token_unlimited: next.tokenUnlimited,
    channel_id: next.channelId,
    quota: next.quota,
    action: next.action,
    status: next.status,
    fail_reason: next.failReason,
    submit_time: next.submitTime,
    start_time: next.startTime,
    finish_time: next.finishTime,
    progress: next.progress,
    properties: next.properties,
    data: next.data,
    revision: event.revision,
  };
}

/** The task key a QuotaRefunded on an account stream gives a Suno task's charge back for, or null (another platform's). */
export function refundedSunoTaskKey(event: RecordedEvent): string | null {
  if (streamCategory(event.streamId) !== 'account') return null;
  const refund = toAccountEvent(event);
  return refund.type === 'QuotaRefunded' && refund.data.platform === 'suno' ? refund.data.taskId : null;
}
