import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { Queue, Worker } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { type WatchedConnection, watchLiveness } from '../infrastructure/redis/redis-liveness';
import { redisOutageLog } from '../infrastructure/redis/redis-outage-log';

/**
 * Gives every BullMQ queue (producer, every role) and worker (consumer, the worker role) an 'error' listener that
 * reports to the process's Redis outage log. Without one, BullMQ printed a stack trace to the console for every failed
 * reconnect attempt of every queue's connection while Redis was away.
 *
 * A queue's connection and a worker's command connection also get a liveness watch (REDIS_UNRESPONSIVE_MS): with a
 * frozen Redis their status stayed 'ready', so QueueShutdown and WorkerShutdown left them to the graceful close, whose
 * QUIT was never answered and kept a stopping process alive. A worker's blocking connection does not: its BZPOPMIN
 * would hold a PING for its whole timeout.
 */
@Injectable()
export class QueueErrors implements OnModuleInit, OnApplicationBootstrap {
  constructor(
    private readonly discovery: DiscoveryService,
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'REDIS_UNRESPONSIVE_MS'>,
  ) {}

  onModuleInit(): void {
    for (const instance of this.instances()) {
      if (!(instance instanceof Queue)) continue;
      const source = `queue ${instance.name}`;
      redisOutageLog.watch(instance, source);
      this.watchLiveness(instance.getBackend().connection.client, source);
    }
  }

  /** @nestjs/bullmq creates the workers while the modules initialise: they are all there by now. */
  onApplicationBootstrap(): void {
    for (const instance of this.instances()) {
      const worker = (instance as { worker?: unknown } | null)?.worker;
      if (!(worker instanceof Worker)) continue;
      const source = `worker ${worker.name}`;
      redisOutageLog.watch(worker, source);
      // Its command connection only (its BZPOPMIN has a connection of its own).
      this.watchLiveness(worker.getBackend().connection.client, source);
    }
  }

  /** Resolves once BullMQ has its client (at once while Redis is up); a connection never made needs no watch. */
  private watchLiveness(client: Promise<WatchedConnection>, source: string): void {
    void client.then(
      (connected) => watchLiveness(connected, source, this.config.REDIS_UNRESPONSIVE_MS),
      () => undefined,
    );
  }

  private instances(): unknown[] {
    return this.discovery.getProviders().map((wrapper) => wrapper.instance as unknown);
  }
}
