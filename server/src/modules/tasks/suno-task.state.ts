import type { SunoTaskEvent, SunoTaskFacts, SunoTaskProgress } from './suno-task.events';

/** A Suno task folded from its stream; `submitted` false: no such task. */
export interface SunoTaskState extends SunoTaskFacts {
  submitted: boolean;
}

export const initialSunoTaskState: SunoTaskState = Object.freeze({
  submitted: false,
  taskId: '',
  upstreamTaskId: '',
  userId: 0,
  username: '',
  tokenId: 0,
  tokenUnlimited: false,
  channelId: 0,
  action: '',
  quota: 0,
  properties: '',
  status: '',
  failReason: '',
  submitTime: 0,
  startTime: 0,
  finishTime: 0,
  progress: '',
  data: '',
});

export const SUNO_PROGRESS_FIELDS: ReadonlyArray<keyof SunoTaskProgress> = [
  'status',
  'failReason',
  'submitTime',
  'startTime',
  'finishTime',
  'progress',
  'data',
];

export function sunoProgressOf(state: SunoTaskProgress): SunoTaskProgress {
  const progress = {} as Record<string, unknown>;
  for (const key of SUNO_PROGRESS_FIELDS) progress[key] = state[key];
  return progress as unknown as SunoTaskProgress;
}

/** Pure: the state after `event`. */
export function evolveSuno(state: SunoTaskState, event: SunoTaskEvent): SunoTaskState {
  switch (event.type) {
    case 'SunoTaskSubmitted':
      return { ...event.data, submitted: true };
    case 'SunoTaskUpdated':
      return { ...state, ...sunoProgressOf(event.data) };
  }
}

/** A failed, charged task: its refund (QuotaRefunded, id derived from the task) is due until appended. */
export const sunoRefundDue = (state: SunoTaskState): boolean =>
  state.submitted && state.progress === '100%' && state.status === 'FAILURE' && state.quota > 0;
