/** The Suno poller's BullMQ queue and its one repeatable job (new-api polls every 15 s). */
export const SUNO_POLL_QUEUE = 'suno-poll';
export const SUNO_POLL_JOB = 'poll-suno-tasks';
export const SUNO_POLL_SCHEDULER = 'suno-poll-every-15s';
export const SUNO_POLL_EVERY_MS = 15_000;
