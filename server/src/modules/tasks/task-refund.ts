import { Inject, Injectable } from '@nestjs/common';
import { deterministicEventId } from '../../ledger/event-ids';
import { EVENT_STORE, type EventStore } from '../../ledger/event-store.port';
import { accountStream } from '../../ledger/streams';
import type { TaskPlatform } from '../accounts/account.events';
import { toNewAccountEvent } from '../accounts/account-event-codec';
import { quotaDisplayFromOptions } from '../accounts/quota-display';
import { OptionsService } from '../options/options.service';
import { TASK_REFUND_NAMESPACE } from './midjourney-task.events';

/** The failure reason (and reason code) of a charge given back because its task could not be written. */
export const TASK_WRITE_FAILED = 'task_write_failed';
/** The event id namespace of a task's first event when it is appended with its charge: deterministicEventId(…, taskId). */
export const TASK_SUBMIT_NAMESPACE = 'task-submit';

/** Runs `append` up to `attempts` times (an idempotent append: a retry after one that did commit is a no-op). */
export async function appendWithRetries<T>(append: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await append();
    } catch (error) {
      if (attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }
}

/** What a refund needs of a failed task, whatever its platform. */
export interface RefundableTask {
  taskId: string;
  /** The upstream's id of the task (the statement line names it). */
  upstreamTaskId: string;
  userId: number;
  username: string;
  tokenId: number;
  tokenUnlimited: boolean;
  quota: number;
  failReason: string;
}

/**
 * The refund of a failed, charged asynchronous task (Midjourney or Suno): QuotaRefunded on the owner's account,
 * back to the user and to the token that paid, with an id derived from the task, so it is credited once whoever
 * appends it, however often. `task_write_failed`: the charge committed and the task's own append was refused
 * (chargeTaskWithRecord), so there is no task to fail later; the charge goes back at once.
 */
@Injectable()
export class TaskRefunder {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly options: OptionsService,
  ) {}

  /** Appends the refund (a no-op once it is in the ledger); returns its position. */
  async refund(
    task: RefundableTask,
    platform: TaskPlatform,
    correlationId: string,
    reasonCode: 'task_failed' | 'task_write_failed' = 'task_failed',
  ): Promise<number> {
    const event = toNewAccountEvent(
      {
        type: 'QuotaRefunded',
        data: {
          amount: task.quota,
          tokenId: task.tokenId,
          tokenUnlimited: task.tokenUnlimited,
          reason: task.failReason,
          taskId: task.taskId,
          upstreamTaskId: task.upstreamTaskId,
          platform,
        },
      },
      {
        id: deterministicEventId(TASK_REFUND_NAMESPACE, task.taskId),
        metadata: { correlationId, actor: { type: 'system' }, reasonCode },
        annotation: { username: task.username, quotaDisplay: quotaDisplayFromOptions(this.options) },
      },
    );
    return (await this.store.appendToStream(accountStream(task.userId), [event], { expectedRevision: 'any' })).position;
  }
}
