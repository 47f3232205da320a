import { Command } from '@nestjs/cqrs';

export interface LogRetentionOutcome {
  /** LogRetentionDays when the run read it (0: keep everything, nothing done). */
  retentionDays: number;
  /** The cut-off (unix seconds; rows created before it go), or null when retention is off. */
  before: number | null;
  /** Whether a LogsRetentionApplied was appended (false: retention off, or nothing older than the cut-off). */
  appended: boolean;
  /** Rows the purge deleted (as the projection recorded it). */
  deleted: number;
}

/**
 * One run of the log retention job: with LogRetentionDays = N > 0, every log row created before the start of the
 * UTC day N days ago is purged, through a LogsRetentionApplied event on `logs` (the audit trail: the system did it,
 * up to which timestamp, under which setting). `now` is unix seconds.
 */
export class ApplyLogRetentionCommand extends Command<LogRetentionOutcome> {
  constructor(readonly now: number) {
    super();
  }
}
