import { type BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { Queue } from 'bullmq';
import { SHUTDOWN_REDIS_WAIT_MS } from '../infrastructure/redis/close-redis';
import { queueClient } from '../infrastructure/redis/queue-client';
import { answersPing } from '../infrastructure/redis/redis-liveness';

/**
 * Whether a queue's Redis connection is ready now and answers a PING within `waitMs` (a frozen Redis leaves the status
 * 'ready'; answersPing). A connection BullMQ has not initialised yet (Redis away since the start) counts as not ready.
 */
export async function queueConnectionReady(queue: Queue, waitMs = SHUTDOWN_REDIS_WAIT_MS): Promise<boolean> {
  const client = await queueClient(queue);
  return client?.status === 'ready' && answersPing(client, waitMs);
}

/**
 * Closes the queues (producers) whose Redis is away before @nestjs/bullmq's own shutdown hook does. That hook's
 * `queue.close()` sends QUIT, which ioredis queues behind the adds waiting for Redis (BullMQ's connections keep them
 * until Redis is back, which may be never), so a process stopped during an outage never exited. Such a queue is
 * force-closed: its waiting adds are dropped (ioredis never settles them; nothing waits on them unbounded at shutdown,
 * ChannelOutcomeReporter bounds its own wait) and nothing more could reach Redis anyway. So is a queue whose Redis
 * does not answer a PING within SHUTDOWN_REDIS_WAIT_MS (frozen). A queue whose Redis is up is left to the graceful
 * close, which lets its adds finish.
 */
@Injectable()
export class QueueShutdown implements BeforeApplicationShutdown {
  private readonly logger = new Logger(QueueShutdown.name);

  constructor(private readonly discovery: DiscoveryService) {}

  async beforeApplicationShutdown(): Promise<void> {
    const queues = this.discovery
      .getProviders()
      .map((wrapper) => wrapper.instance as unknown)
      .filter((instance): instance is Queue => instance instanceof Queue);
    const away: string[] = [];
    await Promise.all(
      queues.map(async (queue) => {
        try {
          if (await queueConnectionReady(queue)) return;
          await queue.getBackend().close(true);
          away.push(queue.name);
        } catch (error) {
          this.logger.warn(`queue ${queue.name} did not close cleanly: ${(error as Error).message}`);
        }
      }),
    );
    if (away.length > 0) {
      this.logger.warn(`queues not connected to Redis (${away.sort().join(', ')}): closed without waiting for their pending adds`);
    }
  }
}
