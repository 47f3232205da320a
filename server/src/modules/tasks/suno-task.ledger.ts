import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AggregateRepository } from '../../ledger/aggregate-repository';
import type { MetadataInput } from '../../ledger/event-envelope';
import { deterministicEventId } from '../../ledger/event-ids';
import type { AppendRequest } from '../../ledger/event-store.port';
import { ReadYourWrites } from '../accounts/read-your-writes';
import { decideSuno, initialSunoTaskState, type SunoTaskCommand, type SunoTaskState, sunoRefundDue } from './suno-task.decider';
import { type SunoTaskFacts, sunoTaskStream } from './suno-task.events';
import { evolveStoredSuno, toNewSunoTaskEvent } from './suno-task-event-codec';
import { appendWithRetries, type RefundableTask, TASK_SUBMIT_NAMESPACE, TASK_WRITE_FAILED, TaskRefunder } from './task-refund';

/** Concurrent pollers of one task: the losers reload and decide again (usually nothing). */
const TASK_RETRIES = 10;

export interface SunoTaskWrite {
  state: SunoTaskState;
  position: number;
}

/**
 * The write side of Suno tasks: each command decided against the task's stream (expected revision, so two pollers
 * cannot both move a task), and a failed, charged task's refund through TaskRefunder (id derived from the task).
 */
@Injectable()
export class SunoTaskLedger {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly refunder: TaskRefunder,
    private readonly readYourWrites: ReadYourWrites,
  ) {}

  visible(position: number): Promise<void> {
    return this.readYourWrites.wait(position);
  }

  submit(task: SunoTaskFacts, metadata: MetadataInput): Promise<SunoTaskWrite> {
    return this.run(task.taskId, { type: 'SubmitSunoTask', task }, metadata);
  }

  /**
   * A charged task's first event as an append to go with its charge (chargeTaskWithRecord): id derived from the task
   * and expected `no_stream`, so a repeated append is a no-op.
   */
  submission(task: SunoTaskFacts, metadata: MetadataInput): AppendRequest {
    const events = decideSuno({ type: 'SubmitSunoTask', task }, initialSunoTaskState).map((event) =>
      toNewSunoTaskEvent(event, { id: deterministicEventId(TASK_SUBMIT_NAMESPACE, task.taskId), metadata }),
    );
    return { streamId: sunoTaskStream(task.taskId), events, expectedRevision: 'no_stream' };
  }

  /** Gives a charge back at once when its task could not be written (there is no task to fail later). */
  refundUnrecorded(task: SunoTaskFacts, correlationId: string): Promise<number> {
    return appendWithRetries(() =>
      this.refunder.refund({ ...task, failReason: TASK_WRITE_FAILED }, 'suno', correlationId, TASK_WRITE_FAILED),
    );
  }

  /** Applies a command to a task, then refunds it if that failed it (or it had failed without its refund). */
  async apply(taskId: string, command: SunoTaskCommand, metadata: MetadataInput): Promise<SunoTaskWrite> {
    const write = await this.run(taskId, command, metadata);
    if (!sunoRefundDue(write.state)) return write;
    return { state: write.state, position: await this.refund(write.state, metadata.correlationId) };
  }

  refund(task: RefundableTask, correlationId: string): Promise<number> {
    return this.refunder.refund(task, 'suno', correlationId);
  }

  private async run(taskId: string, command: SunoTaskCommand, metadata: MetadataInput): Promise<SunoTaskWrite> {
    const result = await this.aggregates.loadAndAppend(
      sunoTaskStream(taskId),
      evolveStoredSuno,
      initialSunoTaskState,
      // Random ids: a concurrent decision must conflict on the revision and be decided again, not pass as a duplicate.
      (state) => decideSuno(command, state).map((event) => toNewSunoTaskEvent(event, { id: randomUUID(), metadata })),
      { retries: TASK_RETRIES },
    );
    return { state: result.state, position: result.position };
  }
}
