import { randomUUID } from 'node:crypto';
import { rebuildProjectionsIn } from '#server/cli/rebuild-projections';
import { AggregateRepository } from '#server/ledger/aggregate-repository';
import { systemActor } from '#server/ledger/event-envelope';
import { deterministicEventId } from '#server/ledger/event-ids';
import { decideSuno, initialSunoTaskState, SunoTaskLedger, sunoTaskStream } from '#server/modules/tasks/index';
import { evolveStoredSuno, toNewSunoTaskEvent } from '#server/modules/tasks/suno-task-event-codec';
import { quotaConsumedEventId } from '#server/relay/settlement/relay-settlement.service';
import { compareTables, snapshotTables } from '../support/compare-tables';
import { balanceRow, dataSource, logRows, projected } from './users-support';
import {
  ALICE_QUOTA,
  ALICE_TOKEN_QUOTA,
  eventsOfType,
  LYRICS_QUOTA,
  MUSIC_QUOTA,
  pollSuno,
  suno,
  sunoFixture,
  sunoPoller,
  tokenBalance,
} from './suno-support';

jest.setTimeout(60_000);

/**
 * Suno through the relay against a Suno API fake (relay-behaviour.md §7.2): a submit is charged once through the
 * relay's admission and settlement, the poller moves the task, a task that fails is refunded exactly once to the
 * user and the token (also with two runs at once, or after a worker died mid-run), and nobody sees another user's
 * tasks. The tasks read model rebuilds equal to live.
 */
describe('suno: submit, poll, success or refund', () => {
  const context = sunoFixture();

  it('submits MUSIC, relays the answer verbatim, charges it once, records the action and polls it to SUCCESS', async () => {
    const { alice, suno: fake, target } = context;
    const submitted = await suno(context, 'POST', '/suno/submit/music', alice.key, { prompt: 'a song about cats', title: 'cats' });
    expect(submitted.status).toBe(200);
    expect(submitted.body).toEqual({ code: 'success', message: '', data: expect.any(String) });
    const taskId: string = submitted.body.data;
    // The action upper-cased in the path, the mv defaulted, the channel key as Bearer.
    expect(fake.submits().at(-1)).toEqual({
      path: '/suno/submit/MUSIC',
      body: { prompt: 'a song about cats', title: 'cats', mv: 'chirp-v3-0' },
    });
    expect(fake.requests.at(-1)!.headers.authorization).toBe(`Bearer ${fake.key}`);

    await projected(target);
    const charges = (await eventsOfType(target, 'QuotaConsumed')).filter((event) => event.data.requestId === submitted.requestId);
    expect(charges).toHaveLength(1);
    expect(charges[0]).toMatchObject({
      stream_id: `account-${alice.id}`,
      event_id: quotaConsumedEventId(submitted.requestId),
      data: {
        quota: MUSIC_QUOTA,
        modelName: 'suno_music',
        modelPrice: 0.1,
        tokenId: alice.tokenId,
        relayMode: 'suno',
        content: '模型固定价格 0.10，分组倍率 1.00，操作 MUSIC',
      },
    });
    expect(await balanceRow(target, alice.id)).toMatchObject({ quota: ALICE_QUOTA - MUSIC_QUOTA, used_quota: MUSIC_QUOTA });
    expect(await tokenBalance(target, alice.tokenId)).toEqual({ remain_quota: ALICE_TOKEN_QUOTA - MUSIC_QUOTA, used_quota: MUSIC_QUOTA });

    const fresh = await suno(context, 'GET', `/suno/fetch/${taskId}`, alice.key);
    expect(fresh.status).toBe(200);
    expect(fresh.body).toEqual({
      code: 'success',
      message: '',
      data: {
        task_id: taskId,
        action: 'MUSIC',
        status: 'NOT_START',
        fail_reason: '',
        submit_time: expect.any(Number),
        start_time: 0,
        finish_time: 0,
        progress: '0%',
        data: null,
      },
    });
    expect(Math.abs(fresh.body.data.submit_time - Date.now() / 1000)).toBeLessThan(60);

    fake.inProgress(taskId);
    await pollSuno(target);
    expect((await suno(context, 'GET', `/suno/fetch/${taskId}`, alice.key)).body.data).toMatchObject({
      status: 'IN_PROGRESS',
      progress: '0%',
    });

    fake.succeed(taskId);
    const report = await pollSuno(target);
    expect(report).toMatchObject({ ran: true, refunds: 0 });
    const done = await suno(context, 'POST', '/suno/fetch', alice.key, { ids: [taskId], action: 'MUSIC' });
    expect(done.body).toEqual({
      code: 'success',
      message: '',
      data: [expect.objectContaining({ task_id: taskId, status: 'SUCCESS', progress: '100%', data: fake.tasks.get(taskId)!.data })],
    });
    // A finished task is not asked about again; nothing was refunded.
    const asked = fake.fetches();
    await pollSuno(target);
    expect(fake.fetches()).toBe(asked);
    expect((await eventsOfType(target, 'QuotaRefunded')).filter((event) => event.data.taskId === submitted.requestId)).toHaveLength(0);
  });

  it('fails a task the upstream fails and refunds it exactly once to the user and the token, also with three runs at once', async () => {
    const { alice, suno: fake, target } = context;
    await projected(target);
    const before = await balanceRow(target, alice.id);
    const tokenBefore = await tokenBalance(target, alice.tokenId);
    const submitted = await suno(context, 'POST', '/suno/submit/lyrics', alice.key, { prompt: 'lyrics please' });
    expect(submitted.status).toBe(200);
    const taskId: string = submitted.body.data;
    await projected(target);
    expect(await balanceRow(target, alice.id)).toMatchObject({ quota: before!.quota - LYRICS_QUOTA });

    fake.fail(taskId, 'upstream broke');
    const runs = await Promise.all([pollSuno(target), pollSuno(target), pollSuno(target)]);
    expect(runs.filter((run) => run.ran).length).toBeGreaterThanOrEqual(1);
    await pollSuno(target);
    await projected(target);

    const refunds = (await eventsOfType(target, 'QuotaRefunded')).filter((event) => event.data.taskId === submitted.requestId);
    expect(refunds).toEqual([
      {
        stream_id: `account-${alice.id}`,
        event_id: deterministicEventId('task-refund', submitted.requestId),
        data: expect.objectContaining({ amount: LYRICS_QUOTA, tokenId: alice.tokenId, platform: 'suno', upstreamTaskId: taskId }),
      },
    ]);
    expect(await balanceRow(target, alice.id)).toMatchObject({ quota: before!.quota, used_quota: before!.used_quota });
    expect(await tokenBalance(target, alice.tokenId)).toEqual(tokenBefore);
    const fetched = await suno(context, 'GET', `/suno/fetch/${taskId}`, alice.key);
    expect(fetched.body.data).toMatchObject({ action: 'LYRICS', status: 'FAILURE', progress: '100%', fail_reason: 'upstream broke' });
    const logs = await logRows(target, alice.id);
    expect(logs.filter((row) => row.content.startsWith(`异步任务执行失败 ${taskId}，补偿`))).toHaveLength(1);
  });

  it('refunds once when two pollers decide one failure at once, and when a worker died between the failure and its refund', async () => {
    const { alice, suno: fake, target } = context;
    const ledger = target.app.get(SunoTaskLedger, { strict: false });
    const metadata = { correlationId: 'spec', actor: systemActor(), reasonCode: 'suno_poll' };
    const failed = { status: 'FAILURE', failReason: 'broke', submitTime: 0, startTime: 0, finishTime: 0, data: '' };
    const observe = { type: 'ObserveSunoTask' as const, upstream: failed };

    const first = await suno(context, 'POST', '/suno/submit/music', alice.key, { gpt_description_prompt: 'twice' });
    await Promise.all([ledger.apply(first.requestId, observe, metadata), ledger.apply(first.requestId, observe, metadata)]);
    await projected(target);
    expect((await eventsOfType(target, 'QuotaRefunded')).filter((event) => event.data.taskId === first.requestId)).toHaveLength(1);
    const moves = (await eventsOfType(target, 'SunoTaskUpdated')).filter((event) => event.stream_id === sunoTaskStream(first.requestId));
    expect(moves).toHaveLength(1);

    // A worker that appended the failure and died before the refund: the next runs refund it, once.
    const second = await suno(context, 'POST', '/suno/submit/music', alice.key, { prompt: 'orphan' });
    fake.fail(second.body.data, 'gone');
    await target.app
      .get(AggregateRepository)
      .loadAndAppend(
        sunoTaskStream(second.requestId),
        evolveStoredSuno,
        initialSunoTaskState,
        (state) =>
          decideSuno({ ...observe, upstream: { ...failed, failReason: 'gone' } }, state).map((event) =>
            toNewSunoTaskEvent(event, { id: randomUUID(), metadata }),
          ),
        { retries: 0 },
      );
    await projected(target);
    const orphanRefunds = async () =>
      (await eventsOfType(target, 'QuotaRefunded')).filter((event) => event.data.taskId === second.requestId);
    expect(await orphanRefunds()).toHaveLength(0);
    await Promise.all([sunoPoller(target).run(), sunoPoller(target).run()]);
    await pollSuno(target);
    expect(await orphanRefunds()).toHaveLength(1);
    expect((await suno(context, 'GET', `/suno/fetch/${second.body.data}`, alice.key)).body.data).toMatchObject({
      status: 'FAILURE',
      fail_reason: 'gone',
    });
  });

  it('never shows a task to another user', async () => {
    const { alice, bob } = context;
    const submitted = await suno(context, 'POST', '/suno/submit/music', alice.key, { prompt: 'mine' });
    const taskId: string = submitted.body.data;
    const foreign = await suno(context, 'GET', `/suno/fetch/${taskId}`, bob.key);
    expect(foreign).toMatchObject({ status: 400, body: { code: 'task_not_exist', message: 'task_not_exist', data: null } });
    expect((await suno(context, 'POST', '/suno/fetch', bob.key, { ids: [taskId] })).body).toEqual({
      code: 'success',
      message: '',
      data: [],
    });
    expect((await suno(context, 'POST', '/suno/fetch', alice.key, { ids: [taskId] })).body.data).toEqual([
      expect.objectContaining({ task_id: taskId, action: 'MUSIC' }),
    ]);
    expect((await suno(context, 'POST', '/suno/fetch', alice.key, {})).body).toEqual({ code: 'success', message: '', data: [] });
    // A continuation of another user's task is refused too.
    expect(await suno(context, 'POST', '/suno/submit/music', bob.key, { continue_clip_id: 'c1', task_id: taskId })).toMatchObject({
      status: 400,
      body: { code: 'task_not_exist' },
    });
  });

  it('rebuilds the tasks read model, balances, logs and statement equal to live', async () => {
    const { target } = context;
    await projected(target);
    const tables = ['tasks', 'account_balances', 'token_balances', 'logs', 'statement_lines'];
    const before = await snapshotTables(dataSource(target), tables);
    expect(before.tasks.length).toBeGreaterThanOrEqual(5);
    await dataSource(target).query(`UPDATE tasks SET status = 'UNKNOWN', refunded = false`);
    const report = await rebuildProjectionsIn(target.app, { waitSeconds: 10 }, () => undefined);
    expect(report.projections.map((projection) => projection.name)).toEqual(expect.arrayContaining(['tasks']));
    await projected(target);
    expect((await compareTables(before, dataSource(target), tables)).differences).toEqual([]);
  });
});
