import { DomainError } from '../../common/http/errors';
import { goInt, queryText } from '../logs/log-query';

/** `/api/data/self` refuses a span longer than this (30 days), as new-api. */
export const SELF_MAX_SPAN_SECONDS = 2_592_000;
export const SPAN_TOO_LONG = '时间跨度不能超过 1 个月';

/** The range of a dashboard query: unix seconds, both inclusive. */
export interface DashboardRange {
  startTimestamp: number;
  endTimestamp: number;
}

/**
 * `start_timestamp` and `end_timestamp` as new-api reads them (strconv.ParseInt with the error ignored: anything
 * unparseable is 0). new-api applies both bounds as they are, so a missing end gives no rows.
 */
export function parseRange(query: unknown): DashboardRange {
  return {
    startTimestamp: goInt(queryText(query, 'start_timestamp')),
    endTimestamp: goInt(queryText(query, 'end_timestamp')),
  };
}

/** The caller's own range, refused when it spans more than 30 days. */
export function parseSelfRange(query: unknown): DashboardRange {
  const range = parseRange(query);
  if (range.endTimestamp - range.startTimestamp > SELF_MAX_SPAN_SECONDS) throw new DomainError(SPAN_TOO_LONG, 'span_too_long');
  return range;
}
