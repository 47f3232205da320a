import type { AppConfig } from '../../config/app-config';
import type { RateLimitRule } from './rate-limiter.service';

export type RateLimitBucket = 'GA' | 'GW' | 'CT';

export interface BucketCheck {
  bucket: RateLimitBucket;
  rule: RateLimitRule;
}

type LimitConfig = Pick<
  AppConfig,
  | 'GLOBAL_API_RATE_LIMIT'
  | 'GLOBAL_API_RATE_WINDOW_SECONDS'
  | 'GLOBAL_WEB_RATE_LIMIT'
  | 'GLOBAL_WEB_RATE_WINDOW_SECONDS'
  | 'CRITICAL_RATE_LIMIT'
  | 'CRITICAL_RATE_WINDOW_SECONDS'
>;

/** The relay has no limiter in new-api; /metrics is scraped by Prometheus and must not be throttled. */
const UNLIMITED_PREFIXES = ['/v1', '/pg', '/mj', '/suno', '/metrics'];

function under(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

/**
 * Which buckets a request is counted in, in the order they are checked (new-api's per-IP limiters):
 * /api/*, /dashboard/billing/* and /v1/dashboard/billing/* share the global API bucket (critical routes then also the critical
 * bucket); the console's static files and SPA fallback share the global web bucket; the relay has none.
 */
export function bucketsFor(path: string, critical: boolean, config: LimitConfig): BucketCheck[] {
  const apiBucket = under(path, '/api') || under(path, '/dashboard') || under(path, '/v1/dashboard');
  if (!apiBucket && (UNLIMITED_PREFIXES.some((prefix) => under(path, prefix)) || /^\/[^/]+\/mj(\/|$)/.test(path))) return [];
  if (apiBucket) {
    const checks: BucketCheck[] = [
      { bucket: 'GA', rule: { limit: config.GLOBAL_API_RATE_LIMIT, windowSeconds: config.GLOBAL_API_RATE_WINDOW_SECONDS } },
    ];
    if (critical) {
      checks.push({ bucket: 'CT', rule: { limit: config.CRITICAL_RATE_LIMIT, windowSeconds: config.CRITICAL_RATE_WINDOW_SECONDS } });
    }
    return checks;
  }
  return [{ bucket: 'GW', rule: { limit: config.GLOBAL_WEB_RATE_LIMIT, windowSeconds: config.GLOBAL_WEB_RATE_WINDOW_SECONDS } }];
}
