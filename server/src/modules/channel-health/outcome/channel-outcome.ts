/** The queue the auto-disable / auto-enable decision worker consumes (workers/channel-outcomes.processor.ts). */
export const CHANNEL_OUTCOMES_QUEUE = 'channel-outcomes';

/** How one call to a channel's upstream went: a relay attempt or a channel test (cross-team contract 3). */
export interface ChannelOutcome {
  channelId: number;
  ok: boolean;
  /** HTTP status after status_code_mapping; 0 when the upstream could not be reached or timed out. */
  status: number;
  /** The upstream's `error.code`, else its `error.type` (null when neither); matched against the fatal lists. */
  errorCode: string | null;
  /** The upstream's `error.type`, beside its code: the decider matches both against its fatal lists. */
  errorType?: string | null;
  message: string;
  source: 'relay' | 'test';
  /** Wall-clock milliseconds of a test; absent for relay outcomes. */
  responseTimeMs?: number;
}

/** What one job on the queue carries: an outcome, how many it stands for, and successes counted before it. */
export interface ChannelOutcomeJob extends ChannelOutcome {
  /** Identical outcomes this job stands for (a flush of aggregated relay successes); 1 when absent. */
  count?: number;
  /** Relay successes of the same channel observed before this outcome and not reported yet; 0 when absent. */
  precedingSuccesses?: number;
}
