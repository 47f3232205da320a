import {
  type DynamicModule,
  Inject,
  Injectable,
  Module,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '#server/config/app-config';
import { EVENT_STORE, type EventStore } from '#server/ledger/event-store.port';
import { metricsRegistry } from './metrics-registry';
import type { ProjectionRunnerOptions } from './projection';
import { ProjectionLagService } from './projection-lag';
import { ProjectionMetrics } from './projection-metrics';
import { ProjectionRegistry } from './projection-registry';
import { ProjectionRunner } from './projection-runner';
import { ProjectionWaiter } from './projection-waiter';

export interface ProjectionsModuleOptions {
  /** Start the runner (the projector role). Other roles still get the waiter, the lag and rebuild. */
  run: boolean;
  runner?: Partial<ProjectionRunnerOptions>;
  /** Checkpoint poll of ProjectionWaiter (default 20 ms). */
  waiterPollMs?: number;
}

const PROJECTIONS_MODULE_OPTIONS = Symbol('PROJECTIONS_MODULE_OPTIONS');

/** Starts and stops what the options ask for; stopping runs before the event store and TypeORM close. */
@Injectable()
class ProjectionsLifecycle implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  constructor(
    @Inject(PROJECTIONS_MODULE_OPTIONS) private readonly options: ProjectionsModuleOptions,
    private readonly runner: ProjectionRunner,
    private readonly waiter: ProjectionWaiter,
    private readonly metrics: ProjectionMetrics,
  ) {}

  onModuleInit(): void {
    this.metrics.register();
  }

  onApplicationBootstrap(): void {
    if (this.options.run) this.runner.start();
  }

  async onModuleDestroy(): Promise<void> {
    this.metrics.unregister();
    await this.runner.stop();
    this.waiter.close();
  }
}

/**
 * The read side's machinery, global: ProjectionRegistry (finds `@ReadModelProjection()` providers),
 * ProjectionWaiter (read-your-writes), ProjectionLagService (admin lag view) and ProjectionRunner (the
 * projector, started only with `run: true`; rebuild from any role). Needs APP_CONFIG, EVENT_STORE and TypeORM.
 */
@Module({})
export class ProjectionsModule {
  static forRoot(options: ProjectionsModuleOptions): DynamicModule {
    return {
      module: ProjectionsModule,
      global: true,
      imports: [DiscoveryModule],
      providers: [
        { provide: PROJECTIONS_MODULE_OPTIONS, useValue: options },
        ProjectionRegistry,
        {
          provide: ProjectionWaiter,
          useFactory: (registry: ProjectionRegistry, dataSource: DataSource, config: AppConfig) =>
            new ProjectionWaiter(registry, dataSource, {
              pollIntervalMs: options.waiterPollMs ?? 20,
              defaultTimeoutMs: config.READ_YOUR_WRITES_TIMEOUT_MS,
            }),
          inject: [ProjectionRegistry, DataSource, APP_CONFIG],
        },
        {
          provide: ProjectionRunner,
          useFactory: (
            registry: ProjectionRegistry,
            store: EventStore,
            dataSource: DataSource,
            config: AppConfig,
            waiter: ProjectionWaiter,
          ) =>
            new ProjectionRunner({
              registry,
              store,
              dataSource,
              databaseUrl: config.DATABASE_URL,
              options: { lingerMs: config.PROJECTOR_LINGER_MS, ...options.runner },
              onCheckpoint: (position) => waiter.notify(position),
            }),
          inject: [ProjectionRegistry, EVENT_STORE, DataSource, APP_CONFIG, ProjectionWaiter],
        },
        {
          provide: ProjectionLagService,
          useFactory: (registry: ProjectionRegistry, store: EventStore, dataSource: DataSource) =>
            new ProjectionLagService(registry, store, dataSource),
          inject: [ProjectionRegistry, EVENT_STORE, DataSource],
        },
        {
          provide: ProjectionMetrics,
          useFactory: (lag: ProjectionLagService) => new ProjectionMetrics(lag, metricsRegistry),
          inject: [ProjectionLagService],
        },
        ProjectionsLifecycle,
      ],
      exports: [ProjectionRegistry, ProjectionWaiter, ProjectionRunner, ProjectionLagService],
    };
  }
}
