/** The log retention job's BullMQ queue: a daily repeatable job, plus one added whenever LogRetentionDays changes. */
export const LOG_RETENTION_QUEUE = 'log-retention';
export const LOG_RETENTION_JOB = 'apply-log-retention';
export const LOG_RETENTION_SCHEDULER = 'log-retention-daily';
export const LOG_RETENTION_EVERY_MS = 24 * 60 * 60 * 1000;

export interface LogRetentionJobData {
  /** What started the run, for the job's record: the daily schedule or an option change. */
  trigger: 'daily' | 'option';
}
