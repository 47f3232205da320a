import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bullmq';

/** The queue the auto-disable / auto-enable decision worker consumes. */
export const CHANNEL_OUTCOMES_QUEUE = 'channel-outcomes';

/** How one call to a channel went (cross-team contract 3). */
export interface ChannelOutcome {
  channelId: number;
  ok: boolean;
  status: number;
  errorCode: string | null;
  message: string;
  source: 'relay' | 'test';
}

/**
 * Feeds the channel decision worker (cross-team contract 3). `report` never throws and never waits: the job is
 * handed to BullMQ in the background and a Redis failure is only logged, because a relay answer must not depend
 * on the health bookkeeping of its channel.
 */
@Injectable()
export class ChannelOutcomeReporter {
  private readonly logger = new Logger(ChannelOutcomeReporter.name);

  constructor(@InjectQueue(CHANNEL_OUTCOMES_QUEUE) private readonly queue: Queue<ChannelOutcome>) {}

  report(outcome: ChannelOutcome): void {
    try {
      const data: ChannelOutcome = {
        channelId: outcome.channelId,
        ok: outcome.ok,
        status: outcome.status,
        errorCode: outcome.errorCode,
        message: outcome.message,
        source: outcome.source,
      };
      this.queue
        .add('outcome', data, { removeOnComplete: 1000, removeOnFail: 5000 })
        .catch((error: unknown) => this.logger.warn(`channel outcome for #${outcome.channelId} not queued: ${String(error)}`));
    } catch (error) {
      this.logger.warn(`channel outcome not queued: ${String(error)}`);
    }
  }
}
