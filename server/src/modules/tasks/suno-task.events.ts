/**
 * Events of a Suno task's stream `sunotask-{taskId}` (sunoTaskStream). The task id is this server's own (the
 * submit's request id); the upstream's id is `upstreamTaskId` (new-api's `tasks.task_id`). Type strings are stored
 * in the ledger: stable forever.
 */
export const SunoTaskEventType = {
  SunoTaskSubmitted: 'SunoTaskSubmitted',
  SunoTaskUpdated: 'SunoTaskUpdated',
} as const;

/** new-api's task statuses (tasks.status). */
export const SUNO_TASK_STATUSES = ['NOT_START', 'SUBMITTED', 'QUEUED', 'IN_PROGRESS', 'FAILURE', 'SUCCESS', 'UNKNOWN'] as const;

/** The part of a task the poller moves. Times are seconds. */
export interface SunoTaskProgress {
  status: string;
  failReason: string;
  submitTime: number;
  startTime: number;
  finishTime: number;
  /** '0%' … '100%' */
  progress: string;
  /** The upstream's `data` as JSON text ('' when none). */
  data: string;
}

export interface SunoTaskFacts extends SunoTaskProgress {
  taskId: string;
  upstreamTaskId: string;
  userId: number;
  /** The owner's name at submit (the refund's log row names it). */
  username: string;
  tokenId: number;
  tokenUnlimited: boolean;
  channelId: number;
  /** MUSIC or LYRICS (recorded, unlike new-api). */
  action: string;
  /** Quota charged at submit; a failure refunds it. */
  quota: number;
  /** `{"input": <the submit body>}` as JSON text. */
  properties: string;
}

export interface SunoTaskSubmitted {
  type: 'SunoTaskSubmitted';
  data: SunoTaskFacts;
}

/** The task moved: the whole progress part as it is now. A failure is FAILURE at 100 %. */
export interface SunoTaskUpdated {
  type: 'SunoTaskUpdated';
  data: SunoTaskProgress;
}

export type SunoTaskEvent = SunoTaskSubmitted | SunoTaskUpdated;

export const sunoTaskStream = (taskId: string) => `sunotask-${taskId}`;
export const SUNO_TASK_CATEGORY = 'sunotask';
