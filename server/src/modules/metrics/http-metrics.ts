import { Counter, Histogram, type Registry } from 'prom-client';

export interface HttpMetrics {
  requests: Counter<'method' | 'route' | 'status_code'>;
  duration: Histogram<'method' | 'route'>;
}

const REQUESTS = 'tollgate_http_requests_total';
const DURATION = 'tollgate_http_request_duration_seconds';

/**
 * The HTTP metrics, created once per registry: several app instances in one process (tests) share them
 * rather than failing on a duplicate name.
 */
export function httpMetrics(registry: Registry): HttpMetrics {
  const requests =
    (registry.getSingleMetric(REQUESTS) as HttpMetrics['requests'] | undefined) ??
    new Counter({
      name: REQUESTS,
      help: 'HTTP requests answered, by method, route pattern and status code',
      labelNames: ['method', 'route', 'status_code'] as const,
      registers: [registry],
    });
  const duration =
    (registry.getSingleMetric(DURATION) as HttpMetrics['duration'] | undefined) ??
    new Histogram({
      name: DURATION,
      help: 'Time from request to response, by method and route pattern',
      labelNames: ['method', 'route'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    });
  return { requests, duration };
}

/**
 * The route pattern, never the raw URL: ids and query strings in labels would make one time series per
 * request. Requests that matched no route (404s, the SPA fallback) share one label.
 */
export function routeLabel(pattern: string | undefined): string {
  return pattern ?? 'unmatched';
}
