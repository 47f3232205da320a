/** The metrics module's public entry: the HTTP metrics the relay's routes record. */
export { type HttpMetrics, httpMetrics } from './http-metrics';
