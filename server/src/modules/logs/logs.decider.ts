import type { LogsEvent } from './logs.events';
import { TargetTimestampRequiredError } from './logs.errors';

/** Commands on the `logs` stream. */
export type LogsCommand = { type: 'PurgeLogs'; targetTimestamp: number; adminId: number };

/**
 * The `logs` stream has no state to decide against: a purge is always allowed to an admin. 0 is refused like
 * new-api ("target timestamp is required"); a negative timestamp can delete nothing, so it records nothing.
 */
export function decide(command: LogsCommand): LogsEvent[] {
  switch (command.type) {
    case 'PurgeLogs':
      if (command.targetTimestamp === 0) throw new TargetTimestampRequiredError();
      if (command.targetTimestamp < 0) return [];
      return [{ type: 'LogsPurged', data: { before: command.targetTimestamp, adminId: command.adminId } }];
  }
}
