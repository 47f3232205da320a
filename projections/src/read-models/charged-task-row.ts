import type { RecordedEvent } from '#server/ledger/event-store.port';
import { streamCategory } from '#server/ledger/streams';
import { toAccountEvent } from '#server/modules/accounts/account-event-codec';
import type { TaskPlatform } from '#server/modules/accounts/account.events';
import type { MidjourneyTaskState } from '#server/modules/tasks/midjourney-task.state';
import type { SunoTaskState } from '#server/modules/tasks/suno-task.state';

/** A task row's columns: as Postgres returns them (bigint columns as text) or as a bulk fold holds them. */
type StoredRow = Record<string, string | number | boolean>;

/**
 * What a Midjourney and a Suno task's state have alike (ChargedTaskColumns, the read models' side): who was charged
 * what with which token on which channel, and the task's timeline and outcome as the upstream last told it.
 */
export type ChargedTaskState = Pick<
  MidjourneyTaskState & SunoTaskState,
  | 'userId'
  | 'username'
  | 'tokenId'
  | 'tokenUnlimited'
  | 'channelId'
  | 'action'
  | 'quota'
  | 'status'
  | 'failReason'
  | 'submitTime'
  | 'startTime'
  | 'finishTime'
  | 'progress'
  | 'properties'
>;

/** The ChargedTaskState a stored row holds: a row exists only once its task was submitted. */
export function chargedTaskStateOf(row: StoredRow): ChargedTaskState & { submitted: true } {
  return {
    submitted: true,
    userId: Number(row.user_id),
    username: String(row.username),
    tokenId: Number(row.token_id),
    tokenUnlimited: Boolean(row.token_unlimited),
    channelId: Number(row.channel_id),
    action: String(row.action),
    quota: Number(row.quota),
    status: String(row.status),
    failReason: String(row.fail_reason),
    submitTime: Number(row.submit_time),
    startTime: Number(row.start_time),
    finishTime: Number(row.finish_time),
    progress: String(row.progress),
    properties: String(row.properties),
  };
}

/** The columns of a row that hold a ChargedTaskState. */
export function chargedTaskColumnsOf(state: ChargedTaskState) {
  return {
    user_id: state.userId,
    username: state.username,
    token_id: state.tokenId,
    token_unlimited: state.tokenUnlimited,
    channel_id: state.channelId,
    quota: state.quota,
    action: state.action,
    status: state.status,
    fail_reason: state.failReason,
    submit_time: state.submitTime,
    start_time: state.startTime,
    finish_time: state.finishTime,
    progress: state.progress,
    properties: state.properties,
  };
}

/**
 * Whether a task stream's event leaves its row as it is: an update without its submit (no row yet), or an event the
 * row already holds (the runner applies each event once; this only keeps a hand-run replay from applying one twice).
 */
export function taskRowKeeps(row: StoredRow | undefined, isSubmit: boolean, event: RecordedEvent): boolean {
  return row ? Number(row.revision) >= event.revision : !isSubmit;
}

/** The task id a QuotaRefunded on an account stream gives a `platform` task's charge back for, or null (another's). */
export function refundedTaskId(event: RecordedEvent, platform: TaskPlatform): string | null {
  if (streamCategory(event.streamId) !== 'account') return null;
  const refund = toAccountEvent(event);
  return refund.type === 'QuotaRefunded' && refund.data.platform === platform ? refund.data.taskId : null;
}
