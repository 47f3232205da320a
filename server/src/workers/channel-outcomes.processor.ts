import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { Job } from 'bullmq';
import { systemActor } from '../ledger/event-envelope';
import { CHANNEL_OUTCOMES_QUEUE, type ChannelOutcomeJob } from '../modules/channel-health';
import { ApplyChannelOutcomeCommand } from '../modules/channel-health/usecases/apply-channel-outcome/apply-channel-outcome.command';

/**
 * The auto-disable / auto-enable decisions for relay outcomes (worker role): loads, decides, appends, through
 * ApplyChannelOutcomeCommand. The job id makes a retried job append nothing new; the job's enqueue time places
 * the outcome in the failure window.
 */
@Processor(CHANNEL_OUTCOMES_QUEUE, { concurrency: 4 })
export class ChannelOutcomesProcessor extends WorkerHost {
  private readonly logger = new Logger(ChannelOutcomesProcessor.name);

  constructor(private readonly commandBus: CommandBus) {
    super();
  }

  async process(job: Job<ChannelOutcomeJob>): Promise<unknown> {
    const data = job.data;
    const result = await this.commandBus.execute(
      new ApplyChannelOutcomeCommand({
        outcome: {
          channelId: Number(data.channelId),
          ok: data.ok === true,
          status: Number(data.status) || 0,
          errorCode: typeof data.errorCode === 'string' ? data.errorCode : null,
          errorType: typeof data.errorType === 'string' ? data.errorType : null,
          message: typeof data.message === 'string' ? data.message : '',
          source: data.source === 'test' ? 'test' : 'relay',
        },
        count: Number(data.count) > 0 ? Number(data.count) : 1,
        precedingSuccesses: Number(data.precedingSuccesses) > 0 ? Number(data.precedingSuccesses) : 0,
        observedAtMs: job.timestamp,
        causeKey: `outcome-${job.id ?? ''}`,
        correlationId: `outcome-${job.id ?? ''}`,
        actor: systemActor(),
      }),
    );
    return result.decision;
  }

  @OnWorkerEvent('failed')
  onFailed(job: Job<ChannelOutcomeJob> | undefined, error: Error): void {
    if (job) this.logger.warn(`outcome job ${job.id} (channel ${job.data.channelId}) failed: ${error.message}`);
  }
}
