import type { EntityManager } from 'typeorm';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { streamCategory } from '#server/ledger/streams';
import { AccountEventType } from '#server/modules/accounts/account.events';
import { toAccountEvent } from '#server/modules/accounts/account-event-codec';
import { MIDJOURNEY_TASK_CATEGORY, MidjourneyTaskEventType, midjourneyTaskStream } from '#server/modules/tasks/midjourney-task.events';
import { toMidjourneyTaskEvent } from '#server/modules/tasks/midjourney-task-event-codec';
import { evolve, initialMidjourneyTaskState, type MidjourneyTaskState } from '#server/modules/tasks/midjourney-task.state';
import type { Projection } from '../../runner/projection';
import { ReadModelProjection } from '../../runner/read-model-projection.decorator';

const TASK_PREFIX = midjourneyTaskStream('');

const COLUMNS = [
  'task_id',
  'id',
  'code',
  'user_id',
  'username',
  'token_id',
  'token_unlimited',
  'action',
  'mj_id',
  'prompt',
  'prompt_en',
  'description',
  'state',
  'submit_time',
  'start_time',
  'finish_time',
  'image_url',
  'status',
  'progress',
  'fail_reason',
  'channel_id',
  'quota',
  'buttons',
  'properties',
  'revision',
] as const;

type TaskRow = Record<(typeof COLUMNS)[number], string | number | boolean>;

function stateOf(row: TaskRow): MidjourneyTaskState {
  return {
    submitted: true,
    taskId: String(row.task_id),
    userId: Number(row.user_id),
    username: String(row.username),
    tokenId: Number(row.token_id),
    tokenUnlimited: Boolean(row.token_unlimited),
    channelId: Number(row.channel_id),
    action: String(row.action),
    mjId: String(row.mj_id),
    prompt: String(row.prompt),
    quota: Number(row.quota),
    code: Number(row.code),
    promptEn: String(row.prompt_en),
    description: String(row.description),
    state: String(row.state),
    submitTime: Number(row.submit_time),
    startTime: Number(row.start_time),
    finishTime: Number(row.finish_time),
    imageUrl: String(row.image_url),
    status: String(row.status),
    progress: String(row.progress),
    failReason: String(row.fail_reason),
    buttons: String(row.buttons),
    properties: String(row.properties),
  };
}

/**
 * `midjourney_tasks`: each `mjtask-{taskId}` stream folded with the task's own `evolve`, the row id being the
 * position of its MidjourneyTaskSubmitted (so a rebuild gives the same list, ids and all); and `refunded` set by the
 * task's QuotaRefunded on the owner's account stream.
 */
@ReadModelProjection()
export class MidjourneyTasksProjection implements Projection {
  readonly name = 'midjourney-tasks';
  readonly tables = ['midjourney_tasks'];
  readonly handles = [...Object.values(MidjourneyTaskEventType), AccountEventType.QuotaRefunded];

  async apply(event: RecordedEvent, manager: EntityManager): Promise<void> {
    const category = streamCategory(event.streamId);
    if (event.type === AccountEventType.QuotaRefunded) {
      if (category !== 'account') return;
      const refund = toAccountEvent(event);
      if (refund.type !== 'QuotaRefunded' || refund.data.platform !== 'midjourney') return;
      await manager.query('UPDATE midjourney_tasks SET refunded = true WHERE task_id = $1', [refund.data.taskId]);
      return;
    }
    if (category !== MIDJOURNEY_TASK_CATEGORY) return;
    const taskId = event.streamId.slice(TASK_PREFIX.length);
    const decoded = toMidjourneyTaskEvent(event);
    const rows: TaskRow[] = await manager.query(`SELECT ${COLUMNS.join(', ')} FROM midjourney_tasks WHERE task_id = $1`, [taskId]);
    const row = rows[0];
    if (decoded.type !== 'MidjourneyTaskSubmitted' && !row) return;
    // The runner applies each event once; this guard only keeps a hand-run replay from applying one twice.
    if (row && Number(row.revision) >= event.revision) return;
    const next = evolve(row ? stateOf(row) : initialMidjourneyTaskState, decoded);
    const id = row ? Number(row.id) : event.position;
    const values = [
      taskId,
      id,
      next.code,
      next.userId,
      next.username,
      next.tokenId,
      next.tokenUnlimited,
      next.action,
      next.mjId,
      next.prompt,
      next.promptEn,
      next.description,
      next.state,
      next.submitTime,
      next.startTime,
      next.finishTime,
      next.imageUrl,
      next.status,
      next.progress,
      next.failReason,
      next.channelId,
      next.quota,
      next.buttons,
      next.properties,
      event.revision,
    ];
    const placeholders = values.map((_, index) => `$${index + 1}`).join(', ');
    const updates = COLUMNS.filter((column) => column !== 'task_id' && column !== 'id')
      .map((column) => `${column} = EXCLUDED.${column}`)
      .join(', ');
    await manager.query(
      `INSERT INTO midjourney_tasks (${COLUMNS.join(', ')}) VALUES (${placeholders}) ON CONFLICT (task_id) DO UPDATE SET ${updates}`,
      values,
    );
  }
}
