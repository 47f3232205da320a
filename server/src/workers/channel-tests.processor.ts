import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { type Job, UnrecoverableError } from 'bullmq';
import { DomainError } from '../common/http/errors';
import { systemActor } from '../ledger/event-envelope';
import { CHANNEL_TESTS_QUEUE, type ChannelTestJobData, TEST_ALL_JOB } from '../modules/channel-health/channel-health.constants';
import { StartChannelRunsCommand } from '../modules/channel-health/usecases/start-channel-runs/start-channel-runs.command';
import { ChannelTestRunningError } from '../modules/channel-health/usecases/start-channel-runs/start-channel-runs.handler';
import { TestChannelCommand } from '../modules/channel-health/usecases/test-channel/test-channel.command';

/**
 * Channel tests (worker role): one job per channel of a test-all run, and the periodic job that starts a run.
 * A test whose upstream fails is a result, not a job failure; only infrastructure errors fail and retry.
 */
@Processor(CHANNEL_TESTS_QUEUE, { concurrency: 1 })
export class ChannelTestsProcessor extends WorkerHost {
  private readonly logger = new Logger(ChannelTestsProcessor.name);

  constructor(private readonly commandBus: CommandBus) {
    super();
  }

  async process(job: Job<ChannelTestJobData>): Promise<unknown> {
    if (job.name === TEST_ALL_JOB) {
      try {
        return await this.commandBus.execute(new StartChannelRunsCommand({ kind: 'test', runId: `periodic-${job.timestamp}` }));
      } catch (error) {
        if (error instanceof ChannelTestRunningError) return { queued: 0, skipped: 'a run is in progress' };
        throw error;
      }
    }
    await job.updateProgress(10);
    try {
      const result = await this.commandBus.execute(
        new TestChannelCommand({
          channelId: job.data.channelId,
          causeKey: `job-${job.id ?? ''}`,
          correlationId: job.data.runId,
          actor: systemActor(),
          clientIp: null,
        }),
      );
      await job.updateProgress(100);
      return { ok: result.ok, message: result.message, time: result.time, decision: result.decision };
    } catch (error) {
      // A deleted channel or an untestable type (MJ, Suno) will not change on retry.
      if (error instanceof DomainError) throw new UnrecoverableError(error.message);
      throw error;
    }
  }

  @OnWorkerEvent('failed')
  onFailed(job: Job<ChannelTestJobData> | undefined, error: Error): void {
    if (job) this.logger.warn(`channel test job ${job.id} (channel ${job.data.channelId}) failed: ${error.message}`);
  }
}
