import {
  MJ_TIMEOUT_REASON,
  type MidjourneyTaskEvent,
  type MidjourneyTaskFacts,
  type MidjourneyTaskProgress,
} from './midjourney-task.events';
import { isFinished, type MidjourneyTaskState, PROGRESS_FIELDS, progressOf } from './midjourney-task.state';

export * from './midjourney-task.state';

/** An hour after its submit an unfinished task is failed (new-api's poller rule). */
export const MJ_TASK_TIMEOUT_MS = 60 * 60 * 1000;

export type MidjourneyTaskCommand =
  | { type: 'SubmitMidjourneyTask'; task: MidjourneyTaskFacts }
  /** What the upstream says now (poller batch, notify callback); `now` in ms. */
  | { type: 'ObserveMidjourneyTask'; upstream: MidjourneyTaskProgress; now: number }
  /** The poller cannot ask anyone about the task (no upstream id, channel gone). */
  | { type: 'FailMidjourneyTask'; reason: string };

/**
 * Pure: the events a command gives against the task's state. A finished task (100 %) never changes again, so a
 * second poller run (or a late callback) that saw the same failure decides nothing: the task fails, and its refund
 * falls due, once.
 */
export function decide(command: MidjourneyTaskCommand, state: MidjourneyTaskState): MidjourneyTaskEvent[] {
  switch (command.type) {
    case 'SubmitMidjourneyTask':
      return state.submitted ? [] : [{ type: 'MidjourneyTaskSubmitted', data: command.task }];
    case 'FailMidjourneyTask':
      if (!state.submitted || isFinished(state)) return [];
      return [
        { type: 'MidjourneyTaskUpdated', data: { ...progressOf(state), status: 'FAILURE', progress: '100%', failReason: command.reason } },
      ];
    case 'ObserveMidjourneyTask':
      return observe(command.upstream, command.now, state);
  }
}

function observe(upstream: MidjourneyTaskProgress, now: number, state: MidjourneyTaskState): MidjourneyTaskEvent[] {
  if (!state.submitted || isFinished(state)) return [];
  const next: MidjourneyTaskProgress = { ...progressOf(upstream), code: 1 };
  if (now - state.submitTime > MJ_TASK_TIMEOUT_MS && next.progress !== '100%') {
    next.failReason = MJ_TIMEOUT_REASON;
    next.status = 'FAILURE';
  }
  // A fail reason before the end, or an end in FAILURE: the task is over, failed.
  if ((next.progress !== '100%' && next.failReason !== '') || (next.progress === '100%' && next.status === 'FAILURE')) {
    next.progress = '100%';
    next.status = 'FAILURE';
  }
  const changed = PROGRESS_FIELDS.some((key) => next[key] !== state[key]);
  return changed ? [{ type: 'MidjourneyTaskUpdated', data: next }] : [];
}
