import { InvalidParamsError } from '../../common/http/errors';
import { isRowId, parseGoInt, queryText } from '../users/user-input';
import type { MidjourneyTaskFilter } from './midjourney-task.reader';

export const MJ_TASKS_PER_PAGE = 10;
export const MAX_MJ_TASKS_PER_PAGE = 100;

function optionalInteger(query: unknown, name: string, ok: (value: number) => boolean): number | undefined {
  const text = queryText(query, name).trim();
  if (text === '') return undefined;
  const value = parseGoInt(text);
  if (value === null || !ok(value)) throw new InvalidParamsError();
  return value;
}

/**
 * The drawing lists' query: `p` (0-based, default 0), `page_size` (1..100, default 10), `mj_id`, `start_timestamp` and
 * `end_timestamp` (milliseconds, on submit_time) and, on the admin list only, `channel_id` (which works, unlike
 * new-api's). Anything malformed is "无效的参数" and nothing is read.
 */
export function parseMidjourneyListQuery(query: unknown, admin: boolean): { filter: MidjourneyTaskFilter; offset: number; limit: number } {
  const page = optionalInteger(query, 'p', (value) => value >= 0 && value <= 1_000_000) ?? 0;
  const limit = optionalInteger(query, 'page_size', (value) => value >= 1 && value <= MAX_MJ_TASKS_PER_PAGE) ?? MJ_TASKS_PER_PAGE;
  const filter: MidjourneyTaskFilter = {
    startTimestamp: optionalInteger(query, 'start_timestamp', (value) => value >= 0),
    endTimestamp: optionalInteger(query, 'end_timestamp', (value) => value >= 0),
  };
  const mjId = queryText(query, 'mj_id').trim();
  if (mjId !== '') filter.mjId = mjId;
  if (admin) filter.channelId = optionalInteger(query, 'channel_id', (value) => isRowId(value));
  return { filter, offset: page * limit, limit };
}
