import { InjectQueue } from '@nestjs/bullmq';
import { type BeforeApplicationShutdown, Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { APP_CONFIG, type AppConfig, CONFIG_DEFAULTS } from '#server/config/app-config';
import { SHUTDOWN_REDIS_WAIT_MS } from '#server/infrastructure/redis/close-redis';
import { CHANNEL_OUTCOMES_QUEUE, type ChannelOutcome, type ChannelOutcomeJob } from './channel-outcome';

/**
 * Feeds the channel decision worker (cross-team contract 3). `report` never throws and never waits: the job is
 * handed to BullMQ in the background and a Redis failure is only logged, because a relay answer must not depend
 * on the health bookkeeping of its channel.
 *
 * Relay successes only matter to the health rules as counts in the failure-rate window, and a success never
 * changes a channel (only a test re-enables one). So they are counted in process and sent once per flushMs per
 * channel as one job (`count`), instead of one job (several Redis round trips) per relayed request. Failures and
 * test outcomes are queued at once, carrying the channel's successes not sent yet (`precedingSuccesses`), so the
 * window a failure is judged against holds every success observed before it. Pending counts are sent on shutdown.
 */
@Injectable()
export class ChannelOutcomeReporter implements BeforeApplicationShutdown {
  private readonly logger = new Logger(ChannelOutcomeReporter.name);
  /** Per channel: relay successes not sent yet, and the last success status seen. */
  private readonly pending = new Map<number, { count: number; status: number }>();
  private timer: NodeJS.Timeout | null = null;

  /** How often aggregated relay successes are sent (RELAY_OUTCOME_FLUSH_MS, default 1 s). */
  private readonly flushMs: number;

  constructor(
    @InjectQueue(CHANNEL_OUTCOMES_QUEUE) private readonly queue: Queue<ChannelOutcomeJob>,
    /** Absent in specs that build the reporter by hand: the defaults. */
    @Optional() @Inject(APP_CONFIG) config: Pick<AppConfig, 'RELAY_OUTCOME_FLUSH_MS'> | null = null,
  ) {
    this.flushMs = (config ?? CONFIG_DEFAULTS).RELAY_OUTCOME_FLUSH_MS;
  }

  report(outcome: ChannelOutcome): void {
    try {
      if (outcome.ok && outcome.source === 'relay') {
        const entry = this.pending.get(outcome.channelId);
        if (entry) {
          entry.count++;
          entry.status = outcome.status;
        } else {
          this.pending.set(outcome.channelId, { count: 1, status: outcome.status });
        }
        this.timer ??= setTimeout(() => {
          this.timer = null;
          void this.flush();
        }, this.flushMs).unref();
        return;
      }
      const preceding = this.pending.get(outcome.channelId);
      if (preceding) this.pending.delete(outcome.channelId);
      const data: ChannelOutcomeJob = {
        channelId: outcome.channelId,
        ok: outcome.ok,
        status: outcome.status,
        errorCode: outcome.errorCode,
        message: outcome.message,
        source: outcome.source,
      };
      if (outcome.errorType) data.errorType = outcome.errorType;
      if (preceding) data.precedingSuccesses = preceding.count;
      void this.enqueue(data);
    } catch (error) {
      this.logger.warn(`channel outcome not queued: ${String(error)}`);
    }
  }

  /** Sends every channel's pending successes now, one job per channel (the timer, shutdown and tests). */
  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const batch = [...this.pending];
    this.pending.clear();
    await Promise.all(
      batch.map(([channelId, { count, status }]) =>
        this.enqueue({ channelId, ok: true, status, errorCode: null, message: '', source: 'relay', count }),
      ),
    );
  }

  /**
   * Before the queues close (they close in onApplicationShutdown). With Redis away the adds would wait for it
   * forever: waited for SHUTDOWN_REDIS_WAIT_MS, then the counts are given up (QueueShutdown then force-closes the
   * queue, and the adds with it).
   */
  async beforeApplicationShutdown(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const sent = await Promise.race([
      this.flush().then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), SHUTDOWN_REDIS_WAIT_MS))),
    ]);
    clearTimeout(timer);
    if (!sent) this.logger.warn(`channel outcomes not queued at shutdown within ${SHUTDOWN_REDIS_WAIT_MS} ms (Redis unreachable?)`);
  }

  private enqueue(data: ChannelOutcomeJob): Promise<void> {
    try {
      return this.queue.add('outcome', data, { removeOnComplete: 1000, removeOnFail: 5000 }).then(
        () => undefined,
        (error: unknown) => this.logger.warn(`channel outcome for #${data.channelId} not queued: ${String(error)}`),
      );
    } catch (error) {
      this.logger.warn(`channel outcome for #${data.channelId} not queued: ${String(error)}`);
      return Promise.resolve();
    }
  }
}
