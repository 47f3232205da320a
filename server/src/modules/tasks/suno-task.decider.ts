import type { SunoTaskEvent, SunoTaskFacts, SunoTaskProgress } from './suno-task.events';
import { type SunoTaskState, SUNO_PROGRESS_FIELDS, sunoProgressOf } from './suno-task.state';

export * from './suno-task.state';

/** What the upstream's fetch says of a task (empty strings and zeros: not said). */
export interface SunoUpstreamItem {
  status: string;
  failReason: string;
  submitTime: number;
  startTime: number;
  finishTime: number;
  /** JSON text of the item's `data` ('' when none). */
  data: string;
}

export type SunoTaskCommand =
  | { type: 'SubmitSunoTask'; task: SunoTaskFacts }
  | { type: 'ObserveSunoTask'; upstream: SunoUpstreamItem }
  /** The poller cannot ask anyone about the task (no upstream id). */
  | { type: 'FailSunoTask'; reason: string };

const finished = (state: SunoTaskState) => state.progress === '100%';

/**
 * Pure: the events a command gives against the task's state (relay-behaviour.md §7.2 poller). A finished task never
 * changes again, so a second poller run that saw the same failure decides nothing: the refund falls due once.
 */
export function decideSuno(command: SunoTaskCommand, state: SunoTaskState): SunoTaskEvent[] {
  if (command.type === 'SubmitSunoTask') return state.submitted ? [] : [{ type: 'SunoTaskSubmitted', data: command.task }];
  if (!state.submitted || finished(state)) return [];
  if (command.type === 'FailSunoTask') {
    return [
      { type: 'SunoTaskUpdated', data: { ...sunoProgressOf(state), status: 'FAILURE', progress: '100%', failReason: command.reason } },
    ];
  }
  const item = command.upstream;
  const next: SunoTaskProgress = {
    status: item.status || state.status,
    failReason: item.failReason || state.failReason,
    submitTime: item.submitTime || state.submitTime,
    startTime: item.startTime || state.startTime,
    finishTime: item.finishTime || state.finishTime,
    progress: state.progress,
    data: item.data,
  };
  if (item.failReason !== '' || next.status === 'FAILURE') {
    next.status = 'FAILURE';
    next.progress = '100%';
  }
  if (next.status === 'SUCCESS') next.progress = '100%';
  const changed = SUNO_PROGRESS_FIELDS.some((key) => next[key] !== state[key]);
  return changed ? [{ type: 'SunoTaskUpdated', data: next }] : [];
}
