import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics } from 'prom-client';
import { metricsRegistry } from '#projections/runner/metrics-registry';
import { httpMetrics, routeLabel } from './http-metrics';

/**
 * The process's Prometheus registry (shared with the projection runner's lag gauges), the Node.js process
 * metrics, and per-route HTTP counters fed by a Fastify onResponse hook.
 */
@Injectable()
export class MetricsService implements OnModuleInit {
  readonly registry = metricsRegistry;

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    // Default metrics are per process; a second app instance in the same process must not register them again.
    if (!this.registry.getSingleMetric('process_cpu_user_seconds_total')) collectDefaultMetrics({ register: this.registry });
    const adapter = this.adapterHost.httpAdapter;
    if (!adapter) return;
    const metrics = httpMetrics(this.registry);
    adapter.getInstance<FastifyInstance>().addHook('onResponse', async (request, reply) => {
      const route = routeLabel(request.routeOptions?.url);
      metrics.requests.inc({ method: request.method, route, status_code: String(reply.statusCode) });
      metrics.duration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    });
  }

  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
