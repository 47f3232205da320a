import { Injectable, type OnApplicationBootstrap, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { Queue, Worker } from 'bullmq';
import { redisOutageLog } from '../infrastructure/redis/redis-outage-log';

/**
 * Gives every BullMQ queue (producer, every role) and worker (consumer, the worker role) an 'error' listener that
 * reports to the process's Redis outage log. Without one, BullMQ printed a stack trace to the console for every failed
 * reconnect attempt of every queue's connection while Redis was away.
 */
@Injectable()
export class QueueErrors implements OnModuleInit, OnApplicationBootstrap {
  constructor(private readonly discovery: DiscoveryService) {}

  onModuleInit(): void {
    for (const instance of this.instances()) {
      if (instance instanceof Queue) redisOutageLog.watch(instance, `queue ${instance.name}`);
    }
  }

  /** @nestjs/bullmq creates the workers while the modules initialise: they are all there by now. */
  onApplicationBootstrap(): void {
    for (const instance of this.instances()) {
      const worker = (instance as { worker?: unknown } | null)?.worker;
      if (worker instanceof Worker) redisOutageLog.watch(worker, `worker ${worker.name}`);
    }
  }

  private instances(): unknown[] {
    return this.discovery.getProviders().map((wrapper) => wrapper.instance as unknown);
  }
}
