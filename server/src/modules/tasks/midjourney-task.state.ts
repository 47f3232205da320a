import type { MidjourneyTaskEvent, MidjourneyTaskFacts, MidjourneyTaskProgress } from './midjourney-task.events';

/** A task folded from its stream; `submitted` false: no such task. */
export interface MidjourneyTaskState extends MidjourneyTaskFacts {
  submitted: boolean;
}

export const initialMidjourneyTaskState: MidjourneyTaskState = Object.freeze({
  submitted: false,
  taskId: '',
  userId: 0,
  username: '',
  tokenId: 0,
  tokenUnlimited: false,
  channelId: 0,
  action: '',
  mjId: '',
  prompt: '',
  quota: 0,
  code: 0,
  promptEn: '',
  description: '',
  state: '',
  submitTime: 0,
  startTime: 0,
  finishTime: 0,
  imageUrl: '',
  status: '',
  progress: '',
  failReason: '',
  buttons: '',
  properties: '',
});

export const PROGRESS_FIELDS: ReadonlyArray<keyof MidjourneyTaskProgress> = [
  'code',
  'promptEn',
  'description',
  'state',
  'submitTime',
  'startTime',
  'finishTime',
  'imageUrl',
  'status',
  'progress',
  'failReason',
  'buttons',
  'properties',
];

export function progressOf(state: MidjourneyTaskProgress): MidjourneyTaskProgress {
  const progress = {} as Record<string, unknown>;
  for (const key of PROGRESS_FIELDS) progress[key] = state[key];
  return progress as unknown as MidjourneyTaskProgress;
}

/** Pure: the state after `event`. */
export function evolve(state: MidjourneyTaskState, event: MidjourneyTaskEvent): MidjourneyTaskState {
  switch (event.type) {
    case 'MidjourneyTaskSubmitted':
      return { ...event.data, submitted: true };
    case 'MidjourneyTaskUpdated':
      return { ...state, ...progressOf(event.data) };
  }
}

/** Finished: the poller no longer asks about it (new-api: progress 100 %). */
export const isFinished = (state: Pick<MidjourneyTaskState, 'progress'>): boolean => state.progress === '100%';

/** Failed: finished with FAILURE; its charge, if any, is refunded. */
export const isFailed = (state: Pick<MidjourneyTaskState, 'progress' | 'status'>): boolean =>
  state.progress === '100%' && state.status === 'FAILURE';

/** A failed task that was charged: its refund (QuotaRefunded, id derived from the task) is due until appended. */
export const refundDue = (state: MidjourneyTaskState): boolean => state.submitted && isFailed(state) && state.quota > 0;
