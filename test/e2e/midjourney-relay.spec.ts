import { randomUUID } from 'node:crypto';
import { AggregateRepository } from '#server/ledger/aggregate-repository';
import { systemActor } from '#server/ledger/event-envelope';
import { deterministicEventId } from '#server/ledger/event-ids';
import { evolveStored, toNewMidjourneyTaskEvent } from '#server/modules/tasks/midjourney-task-event-codec';
import { quotaConsumedEventId } from '#server/relay/settlement/relay-settlement.service';
import {
  decide,
  initialMidjourneyTaskState,
  MidjourneyTaskLedger,
  midjourneyTaskStream,
  MJ_TIMEOUT_REASON,
} from '#server/modules/tasks/index';
import { fakeImage } from '../fakes/upstreams/midjourney-proxy-fake';
import { userWithToken } from './relay-support';
import { balanceRow, call, logRows, projected, setOptions } from './users-support';
import {
  ALICE_QUOTA,
  ALICE_TOKEN_QUOTA,
  eventsOfType,
  IMAGINE_QUOTA,
  midjourneyFixture,
  mj,
  poll,
  poller,
  tokenBalance,
} from './midjourney-support';

jest.setTimeout(60_000);

/**
 * Midjourney through the relay against a Midjourney-Proxy fake: a submit is charged once through the relay's
 * admission and settlement, the poller moves the task, a task that fails is refunded exactly once to the user and
 * the token (also with two runs at once), and nobody sees another user's tasks.
 */
describe('midjourney: submit, poll, success or refund', () => {
  const context = midjourneyFixture();

  it('submits an imagine, charges it once, polls it to SUCCESS and serves its image through /mj/image/:id', async () => {
    const { alice, proxy, target } = context;
    const submitted = await mj(context, 'POST', '/mj/submit/imagine', alice.key, { prompt: 'a cat', notifyHook: 'http://evil/' });
    expect(submitted.status).toBe(200);
    expect(submitted.body).toMatchObject({ code: 1, description: '提交成功' });
    const mjId: string = submitted.body.result;
    // notifyHook is dropped while MjNotifyEnabled is off (the default); the secret is the channel key.
    expect(proxy.submits().at(-1)).toEqual({ path: '/mj/submit/imagine', body: { prompt: 'a cat' } });
    expect(proxy.requests.at(-1)!.headers['mj-api-secret']).toBe(proxy.secret);

    await projected(target);
    const charges = (await eventsOfType(target, 'QuotaConsumed')).filter((event) => event.data.requestId === submitted.requestId);
    expect(charges).toHaveLength(1);
    expect(charges[0]).toMatchObject({
      stream_id: `account-${alice.id}`,
      event_id: quotaConsumedEventId(submitted.requestId),
      data: { quota: IMAGINE_QUOTA, modelName: 'mj_imagine', modelPrice: 0.1, tokenId: alice.tokenId, relayMode: 'midjourney' },
    });
    expect(await balanceRow(target, alice.id)).toMatchObject({ quota: ALICE_QUOTA - IMAGINE_QUOTA, used_quota: IMAGINE_QUOTA });
    expect(await tokenBalance(target, alice.tokenId)).toEqual({
      remain_quota: ALICE_TOKEN_QUOTA - IMAGINE_QUOTA,
      used_quota: IMAGINE_QUOTA,
    });
    const consumeLog = (await logRows(target, alice.id)).find((row) => row.type === 2);
    expect(consumeLog?.content).toBe(`模型固定价格 0.10，分组倍率 1.00，操作 IMAGINE，ID ${mjId}`);

    const fresh = await mj(context, 'GET', `/mj/task/${mjId}/fetch`, alice.key);
    expect(fresh.body).toMatchObject({ id: mjId, action: 'IMAGINE', prompt: 'a cat', progress: '0%', status: '', imageUrl: '' });

    proxy.progress(mjId, '40%');
    expect(await poll(target)).toMatchObject({ ran: true, observed: 1 });
    expect((await mj(context, 'GET', `/mj/task/${mjId}/fetch`, alice.key)).body).toMatchObject({
      status: 'IN_PROGRESS',
      progress: '40%',
      promptEn: 'a cat, translated',
    });

    proxy.succeed(mjId);
    await poll(target);
    const done = await mj(context, 'GET', `/mj/task/${mjId}/fetch`, alice.key);
    // MjForwardUrlEnabled (default on): the image is served by this server, without ?rand once SUCCESS.
    expect(done.body).toMatchObject({ status: 'SUCCESS', progress: '100%', imageUrl: `http://localhost:3000/mj/image/${mjId}` });
    expect(done.body.buttons).toEqual([{ customId: `MJ::JOB::upsample::1::${mjId}`, label: 'U1' }]);
    const image = await fetch(`${context.base}/mj/image/${mjId}`);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await image.arrayBuffer())).toEqual(fakeImage(mjId));

    // A finished task is not asked about again, and success refunds nothing.
    const asked = proxy.requests.length;
    await poll(target);
    expect(proxy.requests.length).toBe(asked);
    expect(await eventsOfType(target, 'QuotaRefunded')).toHaveLength(0);
  });

  it('fails a task the upstream failed and refunds user and token exactly once, however many runs see it at once', async () => {
    const { alice, proxy, target } = context;
    await projected(target);
    const before = await balanceRow(target, alice.id);
    const tokenBefore = await tokenBalance(target, alice.tokenId);
    // The key in mj-api-secret (Authorization empty) and a mode prefix, as Midjourney clients send them.
    const submitted = await mj(
      context,
      'POST',
      '/mj-fast/mj/submit/imagine',
      alice.key,
      { prompt: 'a dog --fast' },
      { secretHeader: true },
    );
    expect(submitted.body.code).toBe(1);
    expect(proxy.submits().at(-1)!.path).toBe('/mj/submit/imagine');
    const mjId: string = submitted.body.result;
    proxy.fail(mjId, 'banned by the upstream moderation');

    const runs = await Promise.all([poll(target), poll(target), poll(target)]);
    // The run lock lets one of them work; the others stand down.
    expect(runs.filter((run) => run.ran).length).toBeGreaterThanOrEqual(1);
    await poll(target);
    await poll(target);

    const refunds = await eventsOfType(target, 'QuotaRefunded');
    expect(refunds).toHaveLength(1);
    expect(refunds[0]).toMatchObject({
      stream_id: `account-${alice.id}`,
      event_id: deterministicEventId('task-refund', submitted.requestId),
      data: {
        amount: IMAGINE_QUOTA,
        tokenId: alice.tokenId,
        reason: 'banned by the upstream moderation',
        taskId: submitted.requestId,
        upstreamTaskId: mjId,
        platform: 'midjourney',
      },
    });
    expect(await balanceRow(target, alice.id)).toMatchObject({ quota: before!.quota, used_quota: before!.used_quota });
    expect(await tokenBalance(target, alice.tokenId)).toEqual(tokenBefore);
    const fetched = await mj(context, 'GET', `/mj/task/${mjId}/fetch`, alice.key);
    expect(fetched.body).toMatchObject({ status: 'FAILURE', progress: '100%', failReason: 'banned by the upstream moderation' });

    // The refund is a statement line with its reason, and new-api's system log row.
    const statement = await call(target, alice, 'get', '/api/statement/self?kind=refund').expect(200);
    expect(statement.body.data.items).toEqual([
      expect.objectContaining({
        kind: 'refund',
        delta: IMAGINE_QUOTA,
        reason: 'task_failed',
        ref: expect.objectContaining({ task_id: submitted.requestId }),
      }),
    ]);
    expect((await logRows(target, alice.id)).map((row) => row.content)).toContain(`构图失败 ${mjId}，补偿 ＄0.100000 额度`);
  });

  it('refunds once when two pollers decide one failure at once, and when a worker died between the failure and its refund', async () => {
    const { alice, proxy, target } = context;
    const ledger = target.app.get(MidjourneyTaskLedger, { strict: false });
    const metadata = { correlationId: 'spec', actor: systemActor(), reasonCode: 'mj_poll' };

    // Two runs that both passed the lock (or a run and a callback): both observe the failure.
    const first = await mj(context, 'POST', '/mj/submit/imagine', alice.key, { prompt: 'twice' });
    const upstream = {
      code: 1,
      promptEn: '',
      description: '',
      state: '',
      submitTime: Date.now(),
      startTime: 0,
      finishTime: 0,
      imageUrl: '',
      status: 'FAILURE',
      progress: '100%',
      failReason: 'upstream broke',
      buttons: '',
      properties: '',
    };
    const observe = { type: 'ObserveMidjourneyTask' as const, upstream, now: Date.now() };
    await Promise.all([ledger.apply(first.requestId, observe, metadata), ledger.apply(first.requestId, observe, metadata)]);
    await projected(target);
    expect((await eventsOfType(target, 'QuotaRefunded')).filter((event) => event.data.taskId === first.requestId)).toHaveLength(1);
    const failures = (await eventsOfType(target, 'MidjourneyTaskUpdated')).filter(
      (event) => event.stream_id === midjourneyTaskStream(first.requestId),
    );
    expect(failures).toHaveLength(1);

    // A worker that appended the failure and died before the refund: the next run refunds it, once.
    const second = await mj(context, 'POST', '/mj/submit/imagine', alice.key, { prompt: 'orphan' });
    proxy.fail(second.body.result, 'gone');
    await target.app
      .get(AggregateRepository)
      .loadAndAppend(
        midjourneyTaskStream(second.requestId),
        evolveStored,
        initialMidjourneyTaskState,
        (state) =>
          decide({ ...observe, upstream: { ...upstream, failReason: 'gone' } }, state).map((event) =>
            toNewMidjourneyTaskEvent(event, { id: randomUUID(), metadata }),
          ),
        { retries: 0 },
      );
    await projected(target);
    const orphanRefunds = async () =>
      (await eventsOfType(target, 'QuotaRefunded')).filter((event) => event.data.taskId === second.requestId);
    expect(await orphanRefunds()).toHaveLength(0);
    await poll(target);
    await poll(target);
    expect(await orphanRefunds()).toHaveLength(1);
    const rows = (await call(target, alice, 'get', `/api/mj/self?mj_id=${second.body.result}`).expect(200)).body.data;
    expect(rows[0]).toMatchObject({ status: 'FAILURE', fail_reason: 'gone' });
  });

  it('fails a task still unfinished an hour after its submit, with new-api reason, and refunds it', async () => {
    const { alice, proxy, target } = context;
    const submitted = await mj(context, 'POST', '/mj/submit/imagine', alice.key, { prompt: 'slow' });
    const mjId: string = submitted.body.result;
    proxy.progress(mjId, '10%');
    const report = await poller(target).run(() => Date.now() + 60 * 60 * 1000 + 1000);
    expect(report.ran).toBe(true);
    await projected(target);
    const fetched = await mj(context, 'GET', `/mj/task/${mjId}/fetch`, alice.key);
    expect(fetched.body).toMatchObject({ status: 'FAILURE', progress: '100%', failReason: MJ_TIMEOUT_REASON });
    const refunds = (await eventsOfType(target, 'QuotaRefunded')).filter((event) => event.data.upstreamTaskId === mjId);
    expect(refunds).toHaveLength(1);
  });

  it('charges nothing for a submit the upstream refuses, stores it with its reason, and fails it without a refund', async () => {
    const { alice, proxy, target } = context;
    await projected(target);
    const before = await balanceRow(target, alice.id);
    proxy.nextAnswer = { code: 24, description: '可能包含敏感词' };
    const refused = await mj(context, 'POST', '/mj/submit/imagine', alice.key, { prompt: 'something banned' });
    expect(refused.status).toBe(200);
    expect(refused.body).toMatchObject({ code: 24, description: '可能包含敏感词' });
    await poll(target);
    expect(await balanceRow(target, alice.id)).toMatchObject({ quota: before!.quota });
    const rows = await call(target, alice, 'get', '/api/mj/self').expect(200);
    expect(rows.body.data[0]).toMatchObject({
      code: 24,
      mj_id: '',
      status: 'FAILURE',
      progress: '100%',
      fail_reason: '可能包含敏感词',
      quota: 0,
    });
    const refunds = (await eventsOfType(target, 'QuotaRefunded')).filter((event) => event.data.taskId === refused.requestId);
    expect(refunds).toHaveLength(0);
  });

  it('never shows a task to another user: fetch, list-by-condition and /api/mj/self are scoped; the admin list filters by channel', async () => {
    const { alice, bob, target, channelId } = context;
    const submitted = await mj(context, 'POST', '/mj/submit/imagine', alice.key, { prompt: 'mine' });
    const mjId: string = submitted.body.result;
    const foreign = await mj(context, 'GET', `/mj/task/${mjId}/fetch`, bob.key);
    expect(foreign.status).toBe(400);
    expect(foreign.body).toEqual({ description: 'task_no_found', type: 'new_api_error', code: 4 });
    expect((await mj(context, 'POST', '/mj/task/list-by-condition', bob.key, { ids: [mjId] })).body).toEqual([]);
    expect((await mj(context, 'POST', '/mj/task/list-by-condition', alice.key, { ids: [mjId] })).body).toEqual([
      expect.objectContaining({ id: mjId, prompt: 'mine' }),
    ]);
    expect((await call(target, bob, 'get', '/api/mj/self').expect(200)).body.data).toEqual([]);
    const own = (await call(target, alice, 'get', `/api/mj/self?mj_id=${mjId}`).expect(200)).body.data;
    expect(own).toEqual([expect.objectContaining({ mj_id: mjId, user_id: alice.id, channel_id: channelId })]);
    // The admin list: everything, and the channel filter works (new-api's did not).
    const all = (await call(target, context.root, 'get', `/api/mj/?channel_id=${channelId}`).expect(200)).body.data;
    expect(all.length).toBeGreaterThanOrEqual(4);
    expect((await call(target, context.root, 'get', `/api/mj/?channel_id=${channelId + 100}`).expect(200)).body.data).toEqual([]);
    // Bob is not an admin; a bad filter is refused.
    expect((await call(target, bob, 'get', '/api/mj/').expect(200)).body.success).toBe(false);
    expect((await call(target, alice, 'get', '/api/mj/self?p=x').expect(200)).body).toMatchObject({ success: false });
  });

  it('refuses bad submits in the Midjourney error shape and changes nothing', async () => {
    const { alice, target } = context;
    await projected(target);
    const before = await balanceRow(target, alice.id);
    const tasksBefore = (await call(target, alice, 'get', '/api/mj/self?page_size=100').expect(200)).body.data.length;
    expect(await mj(context, 'POST', '/mj/submit/imagine', alice.key, { prompt: '' })).toMatchObject({
      status: 400,
      body: { description: 'prompt_is_required', type: 'new_api_error', code: 4 },
    });
    expect(await mj(context, 'POST', '/mj/submit/imagine', alice.key, '{not json')).toMatchObject({
      status: 400,
      body: { description: 'bind_request_body_failed', code: 4 },
    });
    expect(await mj(context, 'POST', '/mj/submit/action', alice.key, { customId: 'MJ::JOB::dance::1::x', taskId: '1' })).toMatchObject({
      body: { description: 'unknown_action:MJ::JOB::dance::1::x', code: 4 },
    });
    expect(await mj(context, 'POST', '/mj/submit/change', alice.key, { action: 'UPSCALE', taskId: 'nope', index: 1 })).toMatchObject({
      body: { description: 'task_not_found', code: 4 },
    });
    const badKey = await mj(context, 'POST', '/mj/submit/imagine', 'sk-nosuchkey', { prompt: 'x' });
    expect(badKey.status).toBe(401);
    expect(badKey.body.error.message).toContain('无效的令牌');
    // Admission refuses a submit the user's quota cannot pay, in the Midjourney shape, before the upstream is asked.
    const poor = await userWithToken(target, 'mjpoor', IMAGINE_QUOTA - 1);
    const asked = context.proxy.requests.length;
    expect(await mj(context, 'POST', '/mj/submit/imagine', poor.key, { prompt: 'x' })).toMatchObject({
      status: 400,
      body: { description: 'quota_not_enough', type: 'new_api_error', code: 4 },
    });
    expect(context.proxy.requests.length).toBe(asked);
    await setOptions(target, { QuotaForNewUser: '0' });
    await projected(target);
    expect(await balanceRow(target, alice.id)).toMatchObject({ quota: before!.quota });
    expect((await call(target, alice, 'get', '/api/mj/self?page_size=100').expect(200)).body.data.length).toBe(tasksBefore);
  });
});
