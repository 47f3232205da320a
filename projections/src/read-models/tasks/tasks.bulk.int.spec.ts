import { decideSuno, evolveSuno, initialSunoTaskState, type SunoTaskCommand } from '#server/modules/tasks/suno-task.decider';
import { type SunoTaskFacts, sunoTaskStream } from '#server/modules/tasks/suno-task.events';
import { toNewSunoTaskEvent } from '#server/modules/tasks/suno-task-event-codec';
import { describeBulkEquivalence } from '../../../test/bulk-equivalence';
import { decidedStream, taskRefund } from '../../../test/decided-stream';
import { BASE_TIME, LedgerBuilder } from '../../../test/mixed-ledger';
import { TasksProjection } from './tasks.projection';

const projection = new TasksProjection();
const aggregate = { decide: decideSuno, evolve: evolveSuno, initial: initialSunoTaskState, encode: toNewSunoTaskEvent };

const facts = (taskId: string, userId: number): SunoTaskFacts => ({
  taskId,
  upstreamTaskId: `up-${taskId}`,
  userId,
  username: `user${userId}`,
  tokenId: 100 + userId,
  tokenUnlimited: false,
  channelId: 3,
  action: 'MUSIC',
  quota: 5000,
  properties: JSON.stringify({ input: { prompt: `song ${taskId}` } }),
  status: 'SUBMITTED',
  failReason: '',
  submitTime: BASE_TIME,
  startTime: 0,
  finishTime: 0,
  progress: '0%',
  data: '',
});
const observe = (status: string, failReason = '', finishTime = 0): SunoTaskCommand => ({
  type: 'ObserveSunoTask',
  upstream: { status, failReason, submitTime: BASE_TIME, startTime: BASE_TIME + 1, finishTime, data: `{"status":"${status}"}` },
});

describeBulkEquivalence(projection, ['tasks'], (context) => {
  it('given Suno tasks that succeed and fail, refunds of this platform and others, then both give the same rows, refunded where it was', async () => {
    const b = new LedgerBuilder('suno');
    const [ok, bad] = [facts('t-ok', 1), facts('t-bad', 2)];
    const [okStream, badStream] = [ok, bad].map((task) => decidedStream(b, sunoTaskStream(task.taskId), aggregate));
    const events = [
      ...okStream({ type: 'SubmitSunoTask', task: ok }),
      ...badStream({ type: 'SubmitSunoTask', task: bad }),
      ...okStream(observe('IN_PROGRESS')),
      // A refund whose task was never written (its append refused: task_write_failed), and another platform's.
      taskRefund(b, { ...facts('t-lost', 1) }, 'suno'),
      taskRefund(b, ok, 'midjourney'),
      ...badStream(observe('FAILURE', 'upstream said no', BASE_TIME + 9)),
      taskRefund(b, bad, 'suno'),
      ...okStream(observe('SUCCESS', '', BASE_TIME + 20)),
    ];
    expect(new Set(events.map((event) => event.type))).toEqual(new Set(['SunoTaskSubmitted', 'SunoTaskUpdated', 'QuotaRefunded']));
    await context.expectSameRows(events);
    const rows = await context.bulk.query(
      'SELECT task_key, id::int, created_at::int, updated_at::int, status, progress, fail_reason, refunded, revision FROM tasks ORDER BY id',
    );
    const at = (index: number) => events[index].createdAt.getTime() / 1000;
    expect(rows).toEqual([
      {
        task_key: 't-ok',
        id: events[0].position,
        created_at: at(0),
        updated_at: at(7),
        status: 'SUCCESS',
        progress: '100%',
        fail_reason: '',
        refunded: false,
        revision: 2,
      },
      {
        task_key: 't-bad',
        id: events[1].position,
        created_at: at(1),
        updated_at: at(5),
        status: 'FAILURE',
        progress: '100%',
        fail_reason: 'upstream said no',
        refunded: true,
        revision: 1,
      },
    ]);
  });
});
