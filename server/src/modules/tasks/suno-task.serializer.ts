import type { TaskEntity } from '#projections/read-models/tasks/task.entity';

/** new-api's TaskDto: the relay's view of a task. */
export function toTaskDto(task: TaskEntity) {
  return {
    task_id: task.taskId,
    action: task.action,
    status: task.status,
    fail_reason: task.failReason,
    submit_time: task.submitTime,
    start_time: task.startTime,
    finish_time: task.finishTime,
    progress: task.progress,
    data: parseData(task.data),
  };
}

function parseData(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** A row of the console's task lists (new-api's `tasks` columns); the self list leaves out the channel. */
export function toTaskRow(task: TaskEntity, admin: boolean) {
  const row = {
    id: task.id,
    created_at: task.createdAt,
    updated_at: task.updatedAt,
    task_id: task.taskId,
    platform: task.platform,
    user_id: task.userId,
    channel_id: task.channelId,
    quota: task.quota,
    action: task.action,
    status: task.status,
    fail_reason: task.failReason,
    submit_time: task.submitTime,
    start_time: task.startTime,
    finish_time: task.finishTime,
    progress: task.progress,
    properties: parseData(task.properties),
    data: parseData(task.data),
  };
  if (admin) return row;
  const { channel_id: _channel, ...own } = row;
  return own;
}
