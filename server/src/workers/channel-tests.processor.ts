import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { type Job, UnrecoverableError } from 'bullmq';
import { DomainError } from '../common/http/errors';
import { systemActor } from '../ledger/event-envelope';
import {
  CHANNEL_TESTS_QUEUE,
  type ChannelTestJobData,
  TEST_ALL_JOB,
  TEST_ONE_JOB,
} from '../modules/channel-health/runs/channel-run-queues';
import { FinishChannelTestRunCommand } from '../modules/channel-health/usecases/finish-channel-test-run/finish-channel-test-run.command';
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

  /** Runs after the job left the active set, so the run's last job finds nothing of its run pending. */
  @OnWorkerEvent('completed')
  onCompleted(job: Job<ChannelTestJobData>): void {
    this.jobEnded(job);
  }

  @OnWorkerEvent('failed')
  onFailed(job: Job<ChannelTestJobData> | undefined, error: Error): void {
    if (!job) return;
    this.logger.warn(`channel test job ${job.id} (channel ${job.data.channelId}) failed: ${error.message}`);
    // A job with attempts left is back in the delayed set, so its run does not look finished yet.
    this.jobEnded(job);
  }

  /** One job of a test-all run ended: the run may be over (then root is mailed "通道测试完成"). */
  private jobEnded(job: Job<ChannelTestJobData>): void {
    if (job.name !== TEST_ONE_JOB || !job.data?.runId) return;
    this.commandBus.execute(new FinishChannelTestRunCommand({ runId: job.data.runId })).catch((error: unknown) => {
      this.logger.warn(`channel test run ${job.data.runId}: end not checked: ${error instanceof Error ? error.message : String(error)}`);
    });
  }
}
