import { DomainError } from '../../common/http/errors';
import { parseRange, parseSelfRange, SELF_MAX_SPAN_SECONDS, SPAN_TOO_LONG } from './dashboard-query';

describe('dashboard query', () => {
  it('reads the bounds as new-api: decimal integers, anything else 0', () => {
    expect(parseRange({ start_timestamp: '100', end_timestamp: '200' })).toEqual({ startTimestamp: 100, endTimestamp: 200 });
    expect(parseRange({ start_timestamp: 'abc', end_timestamp: '1e9' })).toEqual({ startTimestamp: 0, endTimestamp: 0 });
    expect(parseRange({ start_timestamp: ['5', '6'] })).toEqual({ startTimestamp: 5, endTimestamp: 0 });
    expect(parseRange(undefined)).toEqual({ startTimestamp: 0, endTimestamp: 0 });
  });

  it('allows the own range up to 30 days and refuses a longer one with new-api message', () => {
    expect(parseSelfRange({ start_timestamp: '1000', end_timestamp: String(1000 + SELF_MAX_SPAN_SECONDS) })).toEqual({
      startTimestamp: 1000,
      endTimestamp: 1000 + SELF_MAX_SPAN_SECONDS,
    });
    const refuse = () => parseSelfRange({ start_timestamp: '1000', end_timestamp: String(1001 + SELF_MAX_SPAN_SECONDS) });
    expect(refuse).toThrow(DomainError);
    expect(refuse).toThrow(SPAN_TOO_LONG);
    // A missing start is 0, so any present-day end spans more than a month.
    expect(() => parseSelfRange({ end_timestamp: '1732600000' })).toThrow(SPAN_TOO_LONG);
    // An end before the start is no span at all.
    expect(parseSelfRange({ start_timestamp: '5000', end_timestamp: '1' })).toEqual({ startTimestamp: 5000, endTimestamp: 1 });
  });
});
