import { systemActor } from '../../server/src/ledger/event-envelope';
import type { MetadataInput } from '../../server/src/ledger/event-envelope';
import type { NewEvent, RecordedEvent } from '../../server/src/ledger/event-store.port';
import { accountStream } from '../../server/src/ledger/streams';
import type { TaskPlatform } from '../../server/src/modules/accounts/account.events';
import { toNewAccountEvent } from '../../server/src/modules/accounts/account-event-codec';
import type { LedgerBuilder } from './mixed-ledger';

/** What the command side of an aggregate is made of: its decider, its fold and its event codec. */
export interface Aggregate<Command, State, Event> {
  decide(command: Command, state: State): Event[];
  evolve(state: State, event: Event): State;
  initial: State;
  encode(event: Event, options: { id: string; metadata: MetadataInput }): NewEvent;
}

/**
 * A stream of `builder`'s ledger written as the command side writes it: each command decided against the stream's
 * state by the aggregate's own decider, and the events it decides stored through its own codec. Returns the function
 * that runs a command and gives the events it appended (none when the decider refuses nothing to do).
 */
export function decidedStream<Command, State, Event>(
  builder: LedgerBuilder,
  streamId: string,
  aggregate: Aggregate<Command, State, Event>,
): (command: Command) => RecordedEvent[] {
  let state = aggregate.initial;
  return (command) =>
    aggregate.decide(command, state).map((event) => {
      state = aggregate.evolve(state, event);
      const stored = aggregate.encode(event, {
        id: `${streamId}-${builder.head}`,
        metadata: { correlationId: streamId, reasonCode: 'test', actor: systemActor() },
      });
      return builder.append(streamId, stored.type, stored.data);
    });
}

/**
 * The QuotaRefunded that gives a failed asynchronous task's charge back, appended to its owner's account stream as
 * TaskRefunder appends it (toNewAccountEvent).
 */
export function taskRefund(
  builder: LedgerBuilder,
  task: { taskId: string; upstreamTaskId: string; userId: number; username: string; tokenId: number; quota: number },
  platform: TaskPlatform,
): RecordedEvent {
  const stored = toNewAccountEvent(
    {
      type: 'QuotaRefunded',
      data: {
        amount: task.quota,
        tokenId: task.tokenId,
        tokenUnlimited: false,
        reason: 'failed',
        taskId: task.taskId,
        upstreamTaskId: task.upstreamTaskId,
        platform,
      },
    },
    {
      id: `refund-${task.taskId}`,
      metadata: { correlationId: task.taskId, reasonCode: 'task_failed', actor: systemActor() },
      annotation: { username: task.username, quotaDisplay: { inCurrency: true, quotaPerUnit: 500_000 } },
    },
  );
  return builder.append(accountStream(task.userId), stored.type, stored.data);
}
