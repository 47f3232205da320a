/**
 * Published on the CQRS event bus (in the process that saved it) after an option was validated and saved, so a
 * module can react to a change without the options module knowing it (e.g. the log retention job runs again when
 * LogRetentionDays changes).
 */
export class OptionUpdatedEvent {
  constructor(
    readonly key: string,
    readonly value: string,
  ) {}
}
