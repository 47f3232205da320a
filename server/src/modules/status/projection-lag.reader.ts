import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit, Optional } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { metricsRegistry } from '#projections/runner/metrics-registry';
import { ProjectionLagService, type ProjectionLagReport } from '#projections/runner/projection-lag';
import { ProjectionMetrics } from '#projections/runner/projection-metrics';
import { ProjectionRegistry } from '#projections/runner/projection-registry';
import { DomainError } from '../../common/http/errors';
import { EVENT_STORE, type EventStore } from '../../ledger/event-store.port';

/**
 * Where the admin view and /metrics read projection lag from: the runner's ProjectionLagService when the
 * projections module provides one, else one built here from the event store, this module's own registry
 * (it discovers the same @ReadModelProjection providers) and the database. Built here, it also registers
 * the lag gauges, so /metrics shows them in every role.
 */
@Injectable()
export class ProjectionLagReader implements OnModuleInit, OnModuleDestroy {
  private readonly service: ProjectionLagService | null;
  /** True when the service was built here (then this reader also owns the lag gauges). */
  private readonly ownsService: boolean;
  private metrics: ProjectionMetrics | null = null;

  constructor(
    registry: ProjectionRegistry,
    dataSource: DataSource,
    @Optional() provided?: ProjectionLagService,
    @Optional() @Inject(EVENT_STORE) store?: EventStore,
  ) {
    this.service = provided ?? (store ? new ProjectionLagService(registry, store, dataSource) : null);
    this.ownsService = !provided && this.service !== null;
  }

  onModuleInit(): void {
    if (!this.ownsService || !this.service) return;
    this.metrics = new ProjectionMetrics(this.service, metricsRegistry);
    this.metrics.register();
  }

  onModuleDestroy(): void {
    this.metrics?.unregister();
  }

  async report(): Promise<ProjectionLagReport> {
    if (!this.service) throw new DomainError('账本未启用，无法读取投影进度', 'ledger_unavailable');
    return this.service.lag();
  }
}
