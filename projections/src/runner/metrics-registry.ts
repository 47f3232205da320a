import { Registry } from 'prom-client';

/**
 * The application's Prometheus registry: every metric registers here and the metrics endpoint serialises it.
 * One registry (not prom-client's global one) so tests and several app instances in one process stay apart.
 */
export const metricsRegistry = new Registry();
