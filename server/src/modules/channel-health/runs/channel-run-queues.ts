/** Queues of the channel test and balance workers (processors in server/src/workers/); outcomes: outcome/channel-outcome.ts. */
export const CHANNEL_TESTS_QUEUE = 'channel-tests';
export const CHANNEL_BALANCES_QUEUE = 'channel-balances';

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
