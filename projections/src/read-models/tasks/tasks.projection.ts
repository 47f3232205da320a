import type { EntityManager } from 'typeorm';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { streamCategory } from '#server/ledger/streams';
import { AccountEventType } from '#server/modules/accounts/account.events';
import { toAccountEvent } from '#server/modules/accounts/account-event-codec';
import { SUNO_TASK_CATEGORY, SunoTaskEventType, sunoTaskStream } from '#server/modules/tasks/suno-task.events';
import { toSunoTaskEvent } from '#server/modules/tasks/suno-task-event-codec';
import { evolveSuno, initialSunoTaskState, type SunoTaskState } from '#server/modules/tasks/suno-task.state';
import type { Projection } from '../../runner/projection';
import { ReadModelProjection } from '../../runner/read-model-projection.decorator';

const TASK_PREFIX = sunoTaskStream('');

const COLUMNS = [
  'task_key',
  'id',
  'created_at',
  'updated_at',
  'task_id',
  'platform',
  'user_id',
  'username',
  'token_id',
  'token_unlimited',
  'channel_id',
  'quota',
  'action',
  'status',
  'fail_reason',
  'submit_time',
  'start_time',
  'finish_time',
  'progress',
  'properties',
  'data',
  'revision',
] as const;

type TaskRow = Record<(typeof COLUMNS)[number], string | number | boolean>;

function stateOf(row: TaskRow): SunoTaskState {
  return {
    submitted: true,
    taskId: String(row.task_key),
    upstreamTaskId: String(row.task_id),
    userId: Number(row.user_id),
    username: String(row.username),
    tokenId: Number(row.token_id),
    tokenUnlimited: Boolean(row.token_unlimited),
    channelId: Number(row.channel_id),
    action: String(row.action),
    quota: Number(row.quota),
    properties: String(row.properties),
    status: String(row.status),
    failReason: String(row.fail_reason),
    submitTime: Number(row.submit_time),
    startTime: Number(row.start_time),
    finishTime: Number(row.finish_time),
    progress: String(row.progress),
    data: String(row.data),
  };
}

/**
 * `tasks`: each `sunotask-{taskKey}` stream folded with the task's own `evolveSuno`, the row id being the position
 * of its SunoTaskSubmitted and the times those of the events (so a rebuild gives the same list, ids and all); and
 * `refunded` set by the task's QuotaRefunded (platform suno) on the owner's account stream.
 */
@ReadModelProjection()
export class TasksProjection implements Projection {
  readonly name = 'tasks';
  readonly tables = ['tasks'];
  readonly handles = [...Object.values(SunoTaskEventType), AccountEventType.QuotaRefunded];

  async apply(event: RecordedEvent, manager: EntityManager): Promise<void> {
    const category = streamCategory(event.streamId);
    if (event.type === AccountEventType.QuotaRefunded) {
      if (category !== 'account') return;
      const refund = toAccountEvent(event);
      if (refund.type !== 'QuotaRefunded' || refund.data.platform !== 'suno') return;
      await manager.query('UPDATE tasks SET refunded = true WHERE task_key = $1', [refund.data.taskId]);
      return;
    }
    if (category !== SUNO_TASK_CATEGORY) return;
    const taskKey = event.streamId.slice(TASK_PREFIX.length);
    const decoded = toSunoTaskEvent(event);
    const rows: TaskRow[] = await manager.query(`SELECT ${COLUMNS.join(', ')} FROM tasks WHERE task_key = $1`, [taskKey]);
    const row = rows[0];
    if (decoded.type !== 'SunoTaskSubmitted' && !row) return;
    // The runner applies each event once; this guard only keeps a hand-run replay from applying one twice.
    if (row && Number(row.revision) >= event.revision) return;
    const next = evolveSuno(row ? stateOf(row) : initialSunoTaskState, decoded);
    const at = Math.floor(event.createdAt.getTime() / 1000);
    const values = [
      taskKey,
      row ? Number(row.id) : event.position,
      row ? Number(row.created_at) : at,
      at,
      next.upstreamTaskId,
      'suno',
      next.userId,
      next.username,
      next.tokenId,
      next.tokenUnlimited,
      next.channelId,
      next.quota,
      next.action,
      next.status,
      next.failReason,
      next.submitTime,
      next.startTime,
      next.finishTime,
      next.progress,
      next.properties,
      next.data,
      event.revision,
    ];
    const placeholders = values.map((_, index) => `$${index + 1}`).join(', ');
    const updates = COLUMNS.filter((column) => column !== 'task_key' && column !== 'id' && column !== 'created_at')
      .map((column) => `${column} = EXCLUDED.${column}`)
      .join(', ');
    await manager.query(
      `INSERT INTO tasks (${COLUMNS.join(', ')}) VALUES (${placeholders}) ON CONFLICT (task_key) DO UPDATE SET ${updates}`,
      values,
    );
  }
}
