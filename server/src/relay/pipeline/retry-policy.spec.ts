import type { RoutableChannel } from '../relay-ports';
import { shouldRetry } from './retry-policy';
import { applyStatusCodeMapping } from './status-code-mapping';

const upstream = (status: number) => ({ status, local: false });

describe('shouldRetry (as new-api decides)', () => {
  it('never retries local errors, a forced channel or with no attempt left', () => {
    expect(shouldRetry({ status: 500, local: true }, 3, false, 1)).toBe(false);
    expect(shouldRetry(upstream(500), 0, false, 1)).toBe(false);
    expect(shouldRetry(upstream(500), 3, true, 1)).toBe(false);
  });

  it('retries 429, 307, 5xx but 504/524, 400 only on Anthropic, never 408 or 2xx, and other statuses', () => {
    expect(shouldRetry(upstream(429), 1, false, 1)).toBe(true);
    expect(shouldRetry(upstream(307), 1, false, 1)).toBe(true);
    expect(shouldRetry(upstream(502), 1, false, 1)).toBe(true);
    expect(shouldRetry(upstream(504), 1, false, 1)).toBe(false);
    expect(shouldRetry(upstream(524), 1, false, 1)).toBe(false);
    expect(shouldRetry(upstream(400), 1, false, 1)).toBe(false);
    expect(shouldRetry(upstream(400), 1, false, 14)).toBe(true);
    expect(shouldRetry(upstream(408), 1, false, 1)).toBe(false);
    expect(shouldRetry(upstream(200), 1, false, 1)).toBe(false);
    expect(shouldRetry(upstream(401), 1, false, 1)).toBe(true);
  });
});

describe('status_code_mapping', () => {
  const channel = (statusCodeMapping: Record<string, string>) =>
    ({ statusCodeMapping }) as Pick<RoutableChannel, 'statusCodeMapping'> as RoutableChannel;
  it('maps upstream error statuses, never 200, and ignores bad entries', () => {
    expect(applyStatusCodeMapping(channel({ '400': '500' }), 400)).toBe(500);
    expect(applyStatusCodeMapping(channel({ '429': '503' }), 429)).toBe(503);
    expect(applyStatusCodeMapping(channel({ '200': '500' }), 200)).toBe(200);
    expect(applyStatusCodeMapping(channel({ '400': 'x' }), 400)).toBe(400);
    expect(applyStatusCodeMapping(channel({}), 401)).toBe(401);
  });
});
