import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { type Job, UnrecoverableError } from 'bullmq';
import { systemActor } from '../ledger/event-envelope';
import { BalanceNotSupportedError } from '../modules/channel-health/balance/fetch-channel-balance';
import { BALANCE_ALL_JOB, CHANNEL_BALANCES_QUEUE, type ChannelBalanceJobData } from '../modules/channel-health/runs/channel-run-queues';
import { StartChannelRunsCommand } from '../modules/channel-health/usecases/start-channel-runs/start-channel-runs.command';
import { UpdateChannelBalanceCommand } from '../modules/channel-health/usecases/update-channel-balance/update-channel-balance.command';
import { ChannelNotFoundError } from '../modules/channels/channel.errors';

/** Balance refreshes (worker role): one job per channel of a balance-all run, and the periodic job that starts one. */
@Processor(CHANNEL_BALANCES_QUEUE, { concurrency: 2 })
export class ChannelBalancesProcessor extends WorkerHost {
  private readonly logger = new Logger(ChannelBalancesProcessor.name);

  constructor(private readonly commandBus: CommandBus) {
    super();
  }

  async process(job: Job<ChannelBalanceJobData>): Promise<unknown> {
    if (job.name === BALANCE_ALL_JOB) {
      return this.commandBus.execute(new StartChannelRunsCommand({ kind: 'balance', runId: `periodic-${job.timestamp}` }));
    }
    try {
      const result = await this.commandBus.execute(
        new UpdateChannelBalanceCommand({
          channelId: job.data.channelId,
          disableWhenEmpty: true,
          causeKey: `job-${job.id ?? ''}`,
          correlationId: job.data.runId,
          actor: systemActor(),
          clientIp: null,
        }),
      );
      return { balance: result.balance };
    } catch (error) {
      if (error instanceof ChannelNotFoundError || error instanceof BalanceNotSupportedError) throw new UnrecoverableError(error.message);
      throw error;
    }
  }

  @OnWorkerEvent('failed')
  onFailed(job: Job<ChannelBalanceJobData> | undefined, error: Error): void {
    if (job) this.logger.warn(`balance job ${job.id} (channel ${job.data.channelId}) failed: ${error.message}`);
  }
}
