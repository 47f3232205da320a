/**
 * The `logs` stream: admin operations on the log read model. Deleting old log rows (DELETE /api/log/) is recorded
 * as an event rather than done to the table, so the logs projection applies it in ledger order and a rebuild
 * replays it too: rows deleted once stay deleted, and rows written after the purge stay.
 */
export const LOGS_STREAM = 'logs';

export const LogsEventType = {
  LogsPurged: 'LogsPurged',
  LogsRetentionApplied: 'LogsRetentionApplied',
  ChannelTestLogged: 'ChannelTestLogged',
} as const;

/** Log rows with `created_at < before` (unix seconds) were deleted by an admin. */
export interface LogsPurged {
  type: 'LogsPurged';
  data: { before: number; adminId: number };
}

/**
 * The log retention job (option LogRetentionDays > 0) deleted the rows with `created_at < before` (unix seconds: the
 * start of the UTC day `retentionDays` days before the run). Appended by the system (the event's actor), on
 * `logs`, with an id derived from `before`, so the daily run and the run after an option change never purge the same
 * cut-off twice. The logs projection applies it exactly as a LogsPurged (admin 0).
 */
export interface LogsRetentionApplied {
  type: 'LogsRetentionApplied';
  data: { before: number; retentionDays: number };
}

/**
 * The consume row new-api writes for a successful channel test: user 1, token name
 * and content "模型测试", the test's model, channel, tokens and use time, and the quota the call would cost at
 * group ratio 1. Nothing is charged: no account or token event goes with it, only this log line. Appended on
 * `logs` (id derived from the test run) by the channel-test handler and folded by the logs projection.
 */
export type ChannelTestLoggedData = {
  userId: number;
  /** The user's name when the test ran ('' when user 1 does not exist). */
  username: string;
  channelId: number;
  /** The model the test asked for, and the one sent upstream after model_mapping. */
  modelName: string;
  upstreamModel: string;
  promptTokens: number;
  completionTokens: number;
  /** What the call would have cost (group ratio 1); shown, never deducted. */
  quota: number;
  modelRatio: number;
  completionRatio: number;
  /** Fixed price per call in dollars, or -1 when priced by ratio. */
  modelPrice: number;
  /** Whole seconds the test took. */
  useTimeSeconds: number;
  /** Unix seconds when the test ran. */
  createdAt: number;
};

export interface ChannelTestLogged {
  type: 'ChannelTestLogged';
  data: ChannelTestLoggedData;
}

/** new-api's token name and content of a channel-test row. */
export const CHANNEL_TEST_LOG_TEXT = '模型测试';

export type LogsEvent = LogsPurged | LogsRetentionApplied | ChannelTestLogged;

/** The purge inside a stored event, with its fields checked. */
export function toLogsPurged(data: Record<string, unknown>): LogsPurged['data'] {
  const { before, adminId } = data;
  if (typeof before !== 'number' || !Number.isSafeInteger(before))
    throw new Error(`LogsPurged.before is not a safe integer: ${JSON.stringify(before)}`);
  return { before, adminId: typeof adminId === 'number' && Number.isSafeInteger(adminId) ? adminId : 0 };
}

/** The retention purge inside a stored event, with its fields checked. */
export function toLogsRetentionApplied(data: Record<string, unknown>): LogsRetentionApplied['data'] {
  const { before, retentionDays } = data;
  if (typeof before !== 'number' || !Number.isSafeInteger(before))
    throw new Error(`LogsRetentionApplied.before is not a safe integer: ${JSON.stringify(before)}`);
  return { before, retentionDays: typeof retentionDays === 'number' && Number.isSafeInteger(retentionDays) ? retentionDays : 0 };
}
