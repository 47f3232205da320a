/** The worker's scheduled ledger archive (LEDGER_ARCHIVE_KEEP_MONTHS > 0): one queue, one daily job. */
export const LEDGER_ARCHIVE_QUEUE = 'ledger-archive';
export const LEDGER_ARCHIVE_JOB = 'archive-ledger';
export const LEDGER_ARCHIVE_SCHEDULER = 'ledger-archive-daily';
export const LEDGER_ARCHIVE_EVERY_MS = 24 * 3600 * 1000;
