import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AggregateRepository } from '../../ledger/aggregate-repository';
import type { MetadataInput } from '../../ledger/event-envelope';
import { deterministicEventId } from '../../ledger/event-ids';
import type { AppendRequest } from '../../ledger/event-store.port';
import { ReadYourWrites } from '../accounts/read-your-writes';
import {
  decide,
  initialMidjourneyTaskState,
  type MidjourneyTaskCommand,
  type MidjourneyTaskState,
  refundDue,
} from './midjourney-task.decider';
import { type MidjourneyTaskFacts, midjourneyTaskStream } from './midjourney-task.events';
import { appendWithRetries, TASK_SUBMIT_NAMESPACE, TASK_WRITE_FAILED, TaskRefunder } from './task-refund';
import { evolveStored, toNewMidjourneyTaskEvent } from './midjourney-task-event-codec';

/** Concurrent pollers and callbacks of one task: the losers reload and decide again (usually nothing). */
const TASK_RETRIES = 10;

export interface TaskWrite {
  state: MidjourneyTaskState;
  /** The ledger position to wait for before a read model shows the write. */
  position: number;
}

/**
 * The write side of Midjourney tasks: each command decided against the task's stream (expected revision, so two
 * pollers cannot both move a task), and a failed, charged task's refund appended to the owner's account with an id
 * derived from the task, so it is credited once whoever appends it, however often.
 */
@Injectable()
export class MidjourneyTaskLedger {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly refunder: TaskRefunder,
    private readonly readYourWrites: ReadYourWrites,
  ) {}

  /** Waits (bounded) until the read models show a write, so a fetch right after a submit finds the task. */
  visible(position: number): Promise<void> {
    return this.readYourWrites.wait(position);
  }

  submit(task: MidjourneyTaskFacts, metadata: MetadataInput): Promise<TaskWrite> {
    return this.run(task.taskId, { type: 'SubmitMidjourneyTask', task }, metadata);
  }

  /**
   * A charged task's first event as an append to go with its charge (chargeTaskWithRecord): id derived from the task
   * and expected `no_stream`, so a repeated append is a no-op.
   */
  submission(task: MidjourneyTaskFacts, metadata: MetadataInput): AppendRequest {
    const events = decide({ type: 'SubmitMidjourneyTask', task }, initialMidjourneyTaskState).map((event) =>
      toNewMidjourneyTaskEvent(event, { id: deterministicEventId(TASK_SUBMIT_NAMESPACE, task.taskId), metadata }),
    );
    return { streamId: midjourneyTaskStream(task.taskId), events, expectedRevision: 'no_stream' };
  }

  /** Gives a charge back at once when its task could not be written (there is no task to fail later). */
  refundUnrecorded(task: MidjourneyTaskFacts, correlationId: string): Promise<number> {
    return appendWithRetries(() =>
      this.refunder.refund(
        { ...task, upstreamTaskId: task.mjId, failReason: TASK_WRITE_FAILED },
        'midjourney',
        correlationId,
        TASK_WRITE_FAILED,
      ),
    );
  }

  /** Applies a command to a task, then refunds it if that failed it (or it had failed without its refund). */
  async apply(taskId: string, command: MidjourneyTaskCommand, metadata: MetadataInput): Promise<TaskWrite> {
    const write = await this.run(taskId, command, metadata);
    if (!refundDue(write.state)) return write;
    return { state: write.state, position: await this.refund(write.state, metadata.correlationId) };
  }

  /** Appends a failed task's refund (a no-op once it is in the ledger); returns its position. */
  async refund(
    task: Pick<MidjourneyTaskState, 'quota' | 'tokenId' | 'tokenUnlimited' | 'failReason' | 'taskId' | 'mjId' | 'userId' | 'username'>,
    correlationId: string,
  ): Promise<number> {
    return this.refunder.refund({ ...task, upstreamTaskId: task.mjId }, 'midjourney', correlationId);
  }

  private async run(taskId: string, command: MidjourneyTaskCommand, metadata: MetadataInput): Promise<TaskWrite> {
    const result = await this.aggregates.loadAndAppend(
      midjourneyTaskStream(taskId),
      evolveStored,
      initialMidjourneyTaskState,
      (state) =>
        // Random ids: a concurrent decision must conflict on the revision and be decided again, not pass as a duplicate.
        decide(command, state).map((event) => toNewMidjourneyTaskEvent(event, { id: randomUUID(), metadata })),
      { retries: TASK_RETRIES },
    );
    return { state: result.state, position: result.position };
  }
}
