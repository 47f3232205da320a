import { decide, evolve, initialMidjourneyTaskState, type MidjourneyTaskCommand } from '#server/modules/tasks/midjourney-task.decider';
import { type MidjourneyTaskFacts, type MidjourneyTaskProgress, midjourneyTaskStream } from '#server/modules/tasks/midjourney-task.events';
import { toNewMidjourneyTaskEvent } from '#server/modules/tasks/midjourney-task-event-codec';
import { describeBulkEquivalence } from '../../../test/bulk-equivalence';
import { decidedStream, taskRefund } from '../../../test/decided-stream';
import { BASE_TIME, LedgerBuilder } from '../../../test/mixed-ledger';
import { MidjourneyTasksProjection } from './midjourney-tasks.projection';

const projection = new MidjourneyTasksProjection();
const aggregate = { decide, evolve, initial: initialMidjourneyTaskState, encode: toNewMidjourneyTaskEvent };
const SUBMITTED_MS = BASE_TIME * 1000;

const progress = (status: string, percent: string, failReason = ''): MidjourneyTaskProgress => ({
  code: 1,
  promptEn: 'a cat',
  description: 'Submit success',
  state: '',
  submitTime: SUBMITTED_MS,
  startTime: SUBMITTED_MS + 1000,
  finishTime: percent === '100%' ? SUBMITTED_MS + 9000 : 0,
  imageUrl: status === 'SUCCESS' ? 'https://cdn.example/cat.png' : '',
  status,
  progress: percent,
  failReason,
  buttons: status === 'SUCCESS' ? '[{"customId":"U1"}]' : '',
  properties: '',
});
const facts = (taskId: string, userId: number): MidjourneyTaskFacts => ({
  ...progress('SUBMITTED', '0%'),
  taskId,
  userId,
  username: `user${userId}`,
  tokenId: 100 + userId,
  tokenUnlimited: false,
  channelId: 4,
  action: 'IMAGINE',
  mjId: `mj-${taskId}`,
  prompt: '一只猫 "cat" {x}',
  quota: 25_000,
});
const observe = (upstream: MidjourneyTaskProgress): MidjourneyTaskCommand => ({
  type: 'ObserveMidjourneyTask',
  upstream,
  now: SUBMITTED_MS + 10_000,
});

describeBulkEquivalence(projection, ['midjourney_tasks'], (context) => {
  it('given Midjourney tasks that succeed and fail, refunds of this platform and others, then both give the same rows, refunded where it was', async () => {
    const b = new LedgerBuilder('mj');
    const [ok, bad] = [facts('m-ok', 1), facts('m-bad', 2)];
    const [okStream, badStream] = [ok, bad].map((task) => decidedStream(b, midjourneyTaskStream(task.taskId), aggregate));
    const upstreamTaskId = (task: MidjourneyTaskFacts) => ({ ...task, upstreamTaskId: task.mjId });
    const events = [
      ...okStream({ type: 'SubmitMidjourneyTask', task: ok }),
      ...badStream({ type: 'SubmitMidjourneyTask', task: bad }),
      ...okStream(observe(progress('IN_PROGRESS', '40%'))),
      // A refund whose task was never written (its append refused: task_write_failed), and another platform's.
      taskRefund(b, upstreamTaskId(facts('m-lost', 1)), 'midjourney'),
      taskRefund(b, upstreamTaskId(ok), 'suno'),
      ...badStream(observe(progress('FAILURE', '100%', 'banned prompt'))),
      taskRefund(b, upstreamTaskId(bad), 'midjourney'),
      ...okStream(observe(progress('SUCCESS', '100%'))),
    ];
    expect(new Set(events.map((event) => event.type))).toEqual(
      new Set(['MidjourneyTaskSubmitted', 'MidjourneyTaskUpdated', 'QuotaRefunded']),
    );
    await context.expectSameRows(events);
    const rows = await context.bulk.query(
      'SELECT task_id, id::int, status, progress, fail_reason, image_url, refunded, revision FROM midjourney_tasks ORDER BY id',
    );
    expect(rows).toEqual([
      {
        task_id: 'm-ok',
        id: events[0].position,
        status: 'SUCCESS',
        progress: '100%',
        fail_reason: '',
        image_url: 'https://cdn.example/cat.png',
        refunded: false,
        revision: 2,
      },
      {
        task_id: 'm-bad',
        id: events[1].position,
        status: 'FAILURE',
        progress: '100%',
        fail_reason: 'banned prompt',
        image_url: '',
        refunded: true,
        revision: 1,
      },
    ]);
  });
});
