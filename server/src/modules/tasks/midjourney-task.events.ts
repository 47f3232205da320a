/**
 * Events of a Midjourney task's stream `mjtask-{taskId}` (midjourneyTaskStream). The task id is this server's own:
 * the submit's request id, so two submits the upstream answers with one id (code 21, "already exists") stay two
 * tasks, each with its charge. Type strings are stored in the ledger: stable forever.
 */
export const MidjourneyTaskEventType = {
  MidjourneyTaskSubmitted: 'MidjourneyTaskSubmitted',
  MidjourneyTaskUpdated: 'MidjourneyTaskUpdated',
} as const;

/** What the upstream (list-by-condition, the notify callback) says about a task; also the updated part of the state. */
export interface MidjourneyTaskProgress {
  code: number;
  promptEn: string;
  description: string;
  state: string;
  submitTime: number;
  startTime: number;
  finishTime: number;
  imageUrl: string;
  /** '' | NOT_START | SUBMITTED | MODAL | IN_PROGRESS | FAILURE | SUCCESS */
  status: string;
  /** '0%' … '100%' */
  progress: string;
  failReason: string;
  /** JSON text ('' when none), as new-api stores it. */
  buttons: string;
  properties: string;
}

export interface MidjourneyTaskFacts extends MidjourneyTaskProgress {
  taskId: string;
  userId: number;
  /** The owner's name at submit (the refund's log row names it). */
  username: string;
  tokenId: number;
  tokenUnlimited: boolean;
  channelId: number;
  /** IMAGINE, UPSCALE, VARIATION, … */
  action: string;
  /** The upstream's id ('' when the submit was refused). */
  mjId: string;
  prompt: string;
  /** Quota charged at submit (0: not charged); a failure refunds it. */
  quota: number;
}

/** A submit the upstream answered: the task as stored then (refused submits too, with their fail reason). */
export interface MidjourneyTaskSubmitted {
  type: 'MidjourneyTaskSubmitted';
  data: MidjourneyTaskFacts;
}

/** The task moved: the whole progress part as it is now. A failure is status FAILURE at 100 %. */
export interface MidjourneyTaskUpdated {
  type: 'MidjourneyTaskUpdated';
  data: MidjourneyTaskProgress;
}

export type MidjourneyTaskEvent = MidjourneyTaskSubmitted | MidjourneyTaskUpdated;

export const midjourneyTaskStream = (taskId: string) => `mjtask-${taskId}`;
export const MIDJOURNEY_TASK_CATEGORY = 'mjtask';

/** new-api's failure reasons, worded as it words them. */
export const MJ_TIMEOUT_REASON = '上游任务超时（超过1小时）';
export const mjChannelMissingReason = (channelId: number) => `获取渠道信息失败，请联系管理员，渠道ID：${channelId}`;
/** The event id namespace of a task's refund: deterministicEventId(TASK_REFUND_NAMESPACE, taskId). */
export const TASK_REFUND_NAMESPACE = 'task-refund';
