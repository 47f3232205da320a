import { Gauge, type Registry } from 'prom-client';
import type { ProjectionLagReport, ProjectionLagService } from './projection-lag';

/**
 * Projection lag as Prometheus gauges, computed when scraped (so any role's /metrics shows it). One lag query
 * serves all gauges of a scrape.
 */
export class ProjectionMetrics {
  private readonly gauges: Gauge[] = [];
  private cached: { at: number; report: Promise<ProjectionLagReport | null> } | null = null;

  constructor(
    private readonly lagService: ProjectionLagService,
    private readonly registry: Registry,
  ) {}

  register(): void {
    const perProjection = (name: string, help: string, value: (lag: ProjectionLagReport['projections'][number]) => number) =>
      this.gauge(name, help, ['projection'], async (gauge, report) => {
        for (const projection of report.projections) gauge.set({ projection: projection.name }, value(projection));
      });
    perProjection('tollgate_projection_checkpoint_position', 'Ledger position each projection has applied', (lag) => lag.checkpoint);
    perProjection('tollgate_projection_lag_positions', 'Ledger head position minus the projection checkpoint', (lag) => lag.behind);
    perProjection(
      'tollgate_projection_lag_seconds',
      'Age of the oldest ledger event a projection has not applied',
      (lag) => lag.secondsBehind,
    );
    this.gauge('tollgate_ledger_head_position', 'Position of the last ledger event', [], async (gauge, report) => gauge.set(report.head));
    this.gauge('tollgate_projector_leader', '1 when a projector holds the leadership, else 0', [], async (gauge, report) =>
      gauge.set(report.leaderPid === null ? 0 : 1),
    );
  }

  unregister(): void {
    for (const gauge of this.gauges.splice(0)) {
      const name = (gauge as unknown as { name: string }).name;
      if (this.registry.getSingleMetric(name) === gauge) this.registry.removeSingleMetric(name);
    }
  }

  private gauge(
    name: string,
    help: string,
    labelNames: string[],
    fill: (gauge: Gauge, report: ProjectionLagReport) => Promise<void>,
  ): void {
    // Another app instance in this process (tests) may have registered it: the newest instance answers.
    this.registry.removeSingleMetric(name);
    const report = () => this.report();
    const gauge = new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        this.reset();
        const current = await report();
        if (current) await fill(this, current);
      },
    });
    this.gauges.push(gauge);
  }

  /** One lag query per scrape: gauges collected within a second share it. A failed query leaves gauges empty. */
  private report(): Promise<ProjectionLagReport | null> {
    const now = Date.now();
    if (!this.cached || now - this.cached.at > 1000) {
      this.cached = { at: now, report: this.lagService.lag().catch(() => null) };
    }
    return this.cached.report;
  }
}
