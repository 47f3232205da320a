/** The Midjourney poller's BullMQ queue and its one repeatable job (new-api polls every 15 s). */
export const MJ_POLL_QUEUE = 'midjourney-poll';
export const MJ_POLL_JOB = 'poll-midjourney-tasks';
export const MJ_POLL_SCHEDULER = 'midjourney-poll-every-15s';
export const MJ_POLL_EVERY_MS = 15_000;
