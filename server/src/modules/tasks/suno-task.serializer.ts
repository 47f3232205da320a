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
