import { bucketsFor } from './rate-limit-policy';

const config = {
  GLOBAL_API_RATE_LIMIT: 180,
  GLOBAL_API_RATE_WINDOW_SECONDS: 180,
  GLOBAL_WEB_RATE_LIMIT: 60,
  GLOBAL_WEB_RATE_WINDOW_SECONDS: 180,
  CRITICAL_RATE_LIMIT: 20,
  CRITICAL_RATE_WINDOW_SECONDS: 1200,
};

const names = (path: string, critical = false) => bucketsFor(path, critical, config).map((check) => check.bucket);

describe('rate limit policy (new-api buckets)', () => {
  it('counts every /api route and /dashboard/billing in the global API bucket', () => {
    expect(names('/api/status')).toEqual(['GA']);
    expect(names('/api')).toEqual(['GA']);
    expect(names('/api/no-such-route')).toEqual(['GA']);
    expect(names('/dashboard/billing/subscription')).toEqual(['GA']);
    // The /v1 twins of the billing routes too (new-api's dashboard router), though the rest of /v1 has no limit.
    expect(names('/v1/dashboard/billing/usage')).toEqual(['GA']);
    expect(names('/v1/chat/completions')).toEqual([]);
    expect(names('/v1/dashboardx')).toEqual([]);
    expect(bucketsFor('/api/status', false, config)[0].rule).toEqual({ limit: 180, windowSeconds: 180 });
  });

  it('adds the critical bucket after the global one on critical routes', () => {
    expect(names('/api/user/login', true)).toEqual(['GA', 'CT']);
    expect(bucketsFor('/api/user/login', true, config)[1].rule).toEqual({ limit: 20, windowSeconds: 1200 });
  });

  it('counts the console files and SPA routes in the web bucket', () => {
    expect(names('/')).toEqual(['GW']);
    expect(names('/assets/index-abc.js')).toEqual(['GW']);
    expect(names('/channel/edit/3')).toEqual(['GW']);
    expect(names('/apiary')).toEqual(['GW']);
    expect(bucketsFor('/', false, config)[0].rule).toEqual({ limit: 60, windowSeconds: 180 });
  });

  it('leaves the relay and /metrics unlimited', () => {
    for (const path of [
      '/v1/chat/completions',
      '/v1',
      '/pg/chat/completions',
      '/mj/submit/imagine',
      '/fast/mj/submit/imagine',
      '/suno/submit/music',
      '/metrics',
    ]) {
      expect(names(path)).toEqual([]);
    }
  });
});
