import { type DynamicModule, Global, Inject, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import Redis from 'ioredis';
import { SecretBox } from '../common/crypto/secret-box';
import { resolveSecretBox } from '../common/crypto/secret-key';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { dataSourceOptions } from './database/data-source';
import { setPreparedStatements } from './database/named-statements';
import { CacheInvalidationService } from './redis/cache-invalidation.service';
import { closeRedis } from './redis/close-redis';
import { watchLiveness } from './redis/redis-liveness';
import { redisOutageLog } from './redis/redis-outage-log';
import { CONSOLE_REDIS_TIMEOUT_MS, REDIS, REDIS_CONSOLE, REDIS_SUBSCRIBER } from './redis/redis.constants';
import { RedisKeys } from './redis/redis-keys';

function redisClient(url: string, unresponsiveMs: number): Redis {
  // maxRetriesPerRequest: null is what BullMQ requires of connections it shares.
  return watched(new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true }), 'redis', unresponsiveMs);
}

/**
 * Its connection errors go to the process's Redis outage log (one line per outage, not one per reconnect attempt),
 * and a PING unanswered for REDIS_UNRESPONSIVE_MS drops it (watchLiveness: a frozen Redis counts as away).
 */
function watched(client: Redis, source: string, unresponsiveMs: number): Redis {
  redisOutageLog.watch(client, source);
  return watchLiveness(client, source, unresponsiveMs);
}

/**
 * The pub/sub connection: no ready check (its INFO would be refused once the connection is in subscriber mode
 * and a reconnect would loop on that error); ioredis re-subscribes by itself after a reconnect.
 */
function redisSubscriber(url: string, unresponsiveMs: number): Redis {
  const client = new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: false, autoResubscribe: true });
  // ioredis re-subscribes after a reconnect through client.subscribe() and never handles that promise: closed before
  // Redis answered it (a shutdown after the subscriber reconnected to a frozen Redis), it was an unhandled rejection,
  // which ends a Node process. Each one is marked handled here; a caller still gets its outcome.
  const subscribe = client.subscribe.bind(client) as (...channels: string[]) => Promise<unknown>;
  client.subscribe = ((...channels: string[]) => {
    const subscribed = subscribe(...channels);
    subscribed.catch(() => undefined);
    return subscribed;
  }) as Redis['subscribe'];
  return watched(client, 'redis subscriber', unresponsiveMs);
}

/** Fails a command after one reconnect attempt or the deadline, whichever comes first (see REDIS_CONSOLE). */
function redisConsole(url: string, unresponsiveMs: number): Redis {
  // Reconnects at most every 200 ms, so with Redis gone a command waits for its one retry about that long, not for a backoff of seconds.
  return watched(
    new Redis(url, {
      maxRetriesPerRequest: 1,
      commandTimeout: CONSOLE_REDIS_TIMEOUT_MS,
      enableReadyCheck: true,
      retryStrategy: (attempt) => Math.min(attempt * 50, 200),
    }),
    'redis console',
    unresponsiveMs,
  );
}

/** Encryption at rest of channel keys and secret options: SECRETS_KEY, else DATA_DIR/secret-key; logs key ids only. */
function secretBox(config: AppConfig): SecretBox {
  const { box, describe } = resolveSecretBox(config);
  new Logger('Tollgate').log(describe);
  return box;
}

/** Configuration, Postgres (TypeORM) and Redis for every role. */
@Global()
@Module({})
export class InfrastructureModule implements OnApplicationShutdown {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(REDIS_SUBSCRIBER) private readonly subscriber: Redis,
    @Inject(REDIS_CONSOLE) private readonly consoleRedis: Redis,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    setPreparedStatements(config.PG_PREPARED_STATEMENTS);
  }

  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: InfrastructureModule,
      imports: [
        TypeOrmModule.forRoot({ ...dataSourceOptions(config.DATABASE_URL, [], config.DATABASE_POOL_SIZE), autoLoadEntities: true }),
      ],
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: REDIS, useFactory: () => redisClient(config.REDIS_URL, config.REDIS_UNRESPONSIVE_MS) },
        { provide: REDIS_SUBSCRIBER, useFactory: () => redisSubscriber(config.REDIS_URL, config.REDIS_UNRESPONSIVE_MS) },
        { provide: REDIS_CONSOLE, useFactory: () => redisConsole(config.REDIS_URL, config.REDIS_UNRESPONSIVE_MS) },
        RedisKeys,
        CacheInvalidationService,
        { provide: SecretBox, useFactory: () => secretBox(config) },
      ],
      exports: [APP_CONFIG, REDIS, REDIS_SUBSCRIBER, REDIS_CONSOLE, RedisKeys, CacheInvalidationService, SecretBox],
    };
  }

  /** Never waits for a Redis that is away (closeRedis). */
  async onApplicationShutdown(): Promise<void> {
    this.subscriber.disconnect();
    await Promise.all([closeRedis(this.consoleRedis), closeRedis(this.redis)]);
  }
}
