import { isRowId, queryText } from '../users/user-input';
import { listPage, MAX_TASKS_PER_PAGE, optionalInteger, TASKS_PER_PAGE } from './list-query';
import type { MidjourneyTaskFilter } from './midjourney-task.reader';

export const MJ_TASKS_PER_PAGE = TASKS_PER_PAGE;
export const MAX_MJ_TASKS_PER_PAGE = MAX_TASKS_PER_PAGE;

/**
 * The drawing lists' query: `p` (0-based, default 0), `page_size` (1..100, default 10), `mj_id`, `start_timestamp` and
 * `end_timestamp` (milliseconds, on submit_time) and, on the admin list only, `channel_id` (which works, unlike
 * new-api's). Anything malformed is "无效的参数" and nothing is read.
 */
export function parseMidjourneyListQuery(query: unknown, admin: boolean): { filter: MidjourneyTaskFilter; offset: number; limit: number } {
  const { offset, limit } = listPage(query);
  const filter: MidjourneyTaskFilter = {
    startTimestamp: optionalInteger(query, 'start_timestamp', (value) => value >= 0),
    endTimestamp: optionalInteger(query, 'end_timestamp', (value) => value >= 0),
  };
  const mjId = queryText(query, 'mj_id').trim();
  if (mjId !== '') filter.mjId = mjId;
  if (admin) filter.channelId = optionalInteger(query, 'channel_id', (value) => isRowId(value));
  return { filter, offset, limit };
}
