import { InvalidParamsError } from '../../common/http/errors';
import { isRowId, queryText } from '../users/user-input';
import { listPage, optionalInteger } from './list-query';
import { SUNO_TASK_STATUSES } from './suno-task.events';
import type { TaskFilter } from './suno-task.reader';

const PLATFORMS = ['suno'];
const ACTIONS = ['MUSIC', 'LYRICS'];

function oneOf(query: unknown, name: string, allowed: readonly string[]): string | undefined {
  const value = queryText(query, name).trim();
  if (value === '') return undefined;
  if (!allowed.includes(value)) throw new InvalidParamsError();
  return value;
}

/**
 * The task lists' query (console-api-behaviour §13): `p`, `page_size`, `task_id`, `platform`, `status`, `action`,
 * `start_timestamp` and `end_timestamp` (seconds, on submit_time) and, on the admin list only, `channel_id` (which
 * works, unlike new-api's). Anything malformed is "无效的参数" and nothing is read.
 */
export function parseTaskListQuery(query: unknown, admin: boolean): { filter: TaskFilter; offset: number; limit: number } {
  const { offset, limit } = listPage(query);
  const filter: TaskFilter = {
    startTimestamp: optionalInteger(query, 'start_timestamp', (value) => value >= 0),
    endTimestamp: optionalInteger(query, 'end_timestamp', (value) => value >= 0),
    platform: oneOf(query, 'platform', PLATFORMS),
    status: oneOf(query, 'status', SUNO_TASK_STATUSES),
    action: oneOf(query, 'action', ACTIONS),
  };
  const taskId = queryText(query, 'task_id').trim();
  if (taskId !== '') filter.taskId = taskId;
  if (admin) filter.channelId = optionalInteger(query, 'channel_id', (value) => isRowId(value));
  return { filter, offset, limit };
}
