import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type Redis from 'ioredis';
import { REDIS, REDIS_SUBSCRIBER } from './redis.constants';
import { RedisKeys } from './redis-keys';
import { whileReachable } from './redis-reachable';

/** How long a publish waits for a connection that went down while it was being sent. */
export const REDIS_PUBLISH_WAIT_MS = 1_000;

type Listener = (message: string) => void;

/**
 * In-process caches (options, users, later tokens and channels) are invalidated through Redis pub/sub so
 * every api/worker process sees a change at once. `publish(topic, message)` reaches every process,
 * including this one.
 */
@Injectable()
export class CacheInvalidationService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(CacheInvalidationService.name);
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly resyncListeners = new Set<() => void>();
  private connectedOnce = false;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(REDIS_SUBSCRIBER) private readonly subscriber: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async onModuleInit(): Promise<void> {
    // Messages published while the subscriber was away are lost: after a reconnect every cache reloads.
    this.subscriber.on('ready', () => {
      if (!this.connectedOnce) {
        this.connectedOnce = true;
        return;
      }
      this.logger.warn('invalidation channel reconnected: reloading every cache');
      for (const listener of this.resyncListeners) {
        try {
          listener();
        } catch (error) {
          this.logger.error(`cache resync failed: ${String(error)}`);
        }
      }
    });
    if (this.subscriber.status === 'ready') this.connectedOnce = true;
    this.subscriber.on('message', (channel: string, message: string) => {
      this.deliver(channel.slice(this.keys.key('invalidate', '').length), message);
    });
  }

  async on(topic: string, listener: Listener): Promise<void> {
    let set = this.listeners.get(topic);
    if (!set) {
      set = new Set();
      this.listeners.set(topic, set);
      await this.subscriber.subscribe(this.keys.key('invalidate', topic));
    }
    set.add(listener);
  }

  /** Called after the invalidation channel reconnected (messages may have been missed): reload everything. */
  onResync(listener: () => void): void {
    this.resyncListeners.add(listener);
  }

  /**
   * Tells every process, this one included. While Redis is up (the common case) it resolves once Redis has the
   * message. With Redis away the write that calls this is already committed and must not wait for Redis (it used to
   * wait for as long as Redis was gone, and the console request with it): this process's listeners are called at once,
   * the message goes out when the connection is back (ioredis keeps it), and the other processes reload every cache
   * when their subscriber is back (onResync). A connection that drops mid-publish is waited for REDIS_PUBLISH_WAIT_MS.
   */
  async publish(topic: string, message = ''): Promise<void> {
    const sent = this.redis.publish(this.keys.key('invalidate', topic), message);
    if (this.redis.status === 'ready' && (await whileReachable(this.redis, sent, REDIS_PUBLISH_WAIT_MS))) {
      await sent;
      return;
    }
    sent.catch((error: unknown) => this.logger.warn(`invalidation of ${topic} not published: ${String(error)}`));
    this.deliver(topic, message);
  }

  private deliver(topic: string, message: string): void {
    for (const listener of this.listeners.get(topic) ?? []) {
      try {
        listener(message);
      } catch (error) {
        this.logger.error(`cache listener for ${topic} failed: ${String(error)}`);
      }
    }
  }

  async onModuleDestroy(): Promise<void> {
    this.listeners.clear();
    this.resyncListeners.clear();
  }
}
