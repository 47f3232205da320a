/** Queues of the channel workers (processors in server/src/workers/). */
export const CHANNEL_TESTS_QUEUE = 'channel-tests';
export const CHANNEL_BALANCES_QUEUE = 'channel-balances';
/** Fed by the channels module's ChannelOutcomeReporter (relay attempts); consumed by channel-outcomes.processor. */
export const CHANNEL_OUTCOMES_QUEUE = 'channel-outcomes';

/** Job names. A `*-all` job fans out into one job per channel, so each channel's work is retried and seen alone. */
export const TEST_ONE_JOB = 'test-channel';
export const TEST_ALL_JOB = 'test-all-channels';
export const BALANCE_ONE_JOB = 'update-channel-balance';
export const BALANCE_ALL_JOB = 'update-all-balances';

export interface ChannelTestJobData {
  channelId: number;
  /** Identifies one test-all run (its request id, or `periodic-<time>`). */
  runId: string;
}

export interface ChannelBalanceJobData {
  channelId: number;
  runId: string;
}

/** What the reporter enqueues (cross-team contract 3). */
export interface ChannelOutcomeJobData {
  channelId: number;
  ok: boolean;
  status: number;
  errorCode: string | null;
  errorType?: string | null;
  message: string;
  source: 'relay' | 'test';
  /** Identical outcomes the job stands for (aggregated relay successes); 1 when absent. */
  count?: number;
  /** Relay successes of the channel observed before this outcome and not reported yet; 0 when absent. */
  precedingSuccesses?: number;
}
