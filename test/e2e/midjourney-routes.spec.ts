import { rebuildProjectionsIn } from '#server/cli/rebuild-projections';
import { MJ_POLL_QUEUE, MJ_POLL_SCHEDULER } from '#server/relay/midjourney/midjourney-poll.queue';
import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { compareTables, snapshotTables } from '../support/compare-tables';
import { eventsOfType, IMAGINE_QUOTA, midjourneyFixture, mj, poll } from './midjourney-support';
import { balanceRow, call, dataSource, projected, setOptions } from './users-support';

jest.setTimeout(90_000);

const TABLES = ['midjourney_tasks', 'account_balances', 'token_balances', 'logs', 'statement_lines'];

/**
 * The Midjourney routes beyond imagine: action tasks on their original task's channel (change, the parsed
 * simple-change, Plus action and modal), the Mj* options, the result-code rewriting, the saturated answer, the
 * notify callback, the image seed; the poller's job scheduler; and a rebuild of the task list equal to the live one.
 */
describe('midjourney: routes, options and rebuild', () => {
  const context = midjourneyFixture();
  let done: string;

  beforeAll(async () => {
    const submitted = await mj(context, 'POST', '/mj/submit/imagine', context.alice.key, { prompt: 'base' });
    done = submitted.body.result;
    context.proxy.succeed(done);
    await poll(context.target);
  });

  it('sends change, simple-change (its content parsed) and Plus actions to the original channel, priced per action', async () => {
    const { alice, proxy, target } = context;
    const change = await mj(context, 'POST', '/mj/submit/change', alice.key, { action: 'UPSCALE', taskId: done, index: 1 });
    expect(change.body.code).toBe(1);
    const simple = await mj(context, 'POST', '/mj/submit/simple-change', alice.key, { content: `${done} V2` });
    expect(simple.body.code).toBe(1);
    expect(proxy.submits().at(-1)).toEqual({ path: '/mj/submit/simple-change', body: { content: `${done} V2` } });
    const action = await mj(context, 'POST', '/mj/submit/action', alice.key, { customId: `MJ::JOB::reroll::0::${done}`, taskId: done });
    expect(action.body.code).toBe(1);
    await projected(target);
    const charges = await eventsOfType(target, 'QuotaConsumed');
    const byRequest = (id: string) => charges.find((event) => event.data.requestId === id)!.data;
    expect(byRequest(change.requestId)).toMatchObject({ modelName: 'mj_upscale', quota: 25_000, channelId: context.channelId });
    expect(byRequest(simple.requestId)).toMatchObject({ modelName: 'mj_variation', quota: IMAGINE_QUOTA });
    expect(byRequest(action.requestId)).toMatchObject({ modelName: 'mj_reroll', quota: IMAGINE_QUOTA });
    const rows = (await call(target, alice, 'get', `/api/mj/self?page_size=100`).expect(200)).body.data;
    expect(rows.find((row: any) => row.mj_id === simple.body.result)).toMatchObject({ action: 'VARIATION', prompt: 'base' });
  });

  it('prices describe, blend, shorten, upload and swap_face per action; an upload is done at once; a swap_face is charged on code 1 only', async () => {
    const { alice, proxy, target } = context;
    const describe = await mj(context, 'POST', '/mj/submit/describe', alice.key, { base64: 'data:image/png;base64,AA==' });
    const blend = await mj(context, 'POST', '/mj/submit/blend', alice.key, { base64Array: ['a', 'b'] });
    const shorten = await mj(context, 'POST', '/mj/submit/shorten', alice.key, { prompt: 'a very long prompt' });
    const upload = await mj(context, 'POST', '/mj/submit/upload-discord-images', alice.key, { base64Array: ['a'] });
    const swap = await mj(context, 'POST', '/mj/insight-face/swap', alice.key, { sourceBase64: 'a', targetBase64: 'b' });
    proxy.nextAnswer = { code: 22, description: '排队中' };
    const swapQueued = await mj(context, 'POST', '/mj/insight-face/swap', alice.key, { sourceBase64: 'a', targetBase64: 'b' });
    expect(swapQueued.body.code).toBe(1);
    await projected(target);
    const charges = new Map((await eventsOfType(target, 'QuotaConsumed')).map((event) => [event.data.requestId, event.data]));
    expect(charges.get(describe.requestId)).toMatchObject({ modelName: 'mj_describe', quota: 25_000 });
    expect(charges.get(blend.requestId)).toMatchObject({ modelName: 'mj_blend', quota: IMAGINE_QUOTA });
    expect(charges.get(shorten.requestId)).toMatchObject({ modelName: 'mj_shorten', quota: IMAGINE_QUOTA });
    expect(charges.get(upload.requestId)).toMatchObject({ modelName: 'mj_upload', quota: 25_000 });
    expect(charges.get(swap.requestId)).toMatchObject({ modelName: 'swap_face', quota: 25_000 });
    expect(charges.has(swapQueued.requestId)).toBe(false);
    const rows = (await call(target, context.alice, 'get', '/api/mj/self?page_size=100').expect(200)).body.data;
    expect(rows.find((row: any) => row.mj_id === upload.body.result)).toMatchObject({
      action: 'UPLOAD',
      status: 'SUCCESS',
      progress: '100%',
    });
  });

  it('refuses an action on an unfinished task (MjActionCheckSuccessEnabled) unless it is off, and on a disabled channel', async () => {
    const { alice, target, root, channelId } = context;
    const pending = (await mj(context, 'POST', '/mj/submit/imagine', alice.key, { prompt: 'pending' })).body.result;
    const refused = await mj(context, 'POST', '/mj/submit/change', alice.key, { action: 'UPSCALE', taskId: pending, index: 1 });
    expect(refused).toMatchObject({ status: 400, body: { description: 'task_status_not_success', code: 4 } });
    // A modal is allowed on any task.
    expect((await mj(context, 'POST', '/mj/submit/modal', alice.key, { taskId: pending, prompt: 'x' })).body.code).toBe(1);
    await setOptions(target, { MjActionCheckSuccessEnabled: 'false' });
    expect((await mj(context, 'POST', '/mj/submit/change', alice.key, { action: 'UPSCALE', taskId: pending, index: 1 })).body.code).toBe(1);
    await setOptions(target, { MjActionCheckSuccessEnabled: 'true' });

    await call(target, root, 'put', '/api/channel/', { id: channelId, status: 2 }).expect(200);
    const waitDisabled = Date.now() + 10_000;
    let answer = await mj(context, 'POST', '/mj/submit/change', alice.key, { action: 'UPSCALE', taskId: done, index: 2 });
    while (answer.body.description !== '该任务所属渠道已被禁用' && Date.now() < waitDisabled) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      answer = await mj(context, 'POST', '/mj/submit/change', alice.key, { action: 'UPSCALE', taskId: done, index: 2 });
    }
    expect(answer.body).toEqual({ description: '该任务所属渠道已被禁用', type: 'new_api_error', code: 4 });
    await call(target, root, 'put', '/api/channel/', { id: channelId, status: 1 }).expect(200);
    const waitEnabled = Date.now() + 10_000;
    while ((await mj(context, 'POST', '/mj/submit/imagine', alice.key, { prompt: 'probe' })).status !== 200 && Date.now() < waitEnabled) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });

  it('keeps accountFilter and notifyHook only when their options allow, and clears mode flags with MjModeClearEnabled', async () => {
    const { alice, proxy, target } = context;
    const body = { prompt: 'a fox --fast --relax', accountFilter: { modes: ['FAST'] }, notifyHook: 'http://hook/' };
    await mj(context, 'POST', '/mj/submit/imagine', alice.key, body);
    expect(proxy.submits().at(-1)!.body).toEqual({ prompt: 'a fox --fast --relax' });
    await setOptions(target, { MjAccountFilterEnabled: 'true', MjNotifyEnabled: 'true', MjModeClearEnabled: 'true' });
    await mj(context, 'POST', '/mj/submit/imagine', alice.key, body);
    expect(proxy.submits().at(-1)!.body).toEqual({ prompt: 'a fox', accountFilter: { modes: ['FAST'] }, notifyHook: 'http://hook/' });
    await setOptions(target, { MjAccountFilterEnabled: 'false', MjNotifyEnabled: 'false', MjModeClearEnabled: 'false' });
  });

  it('rewrites 21 and 22 to 1 (charging both), answers 429 for a saturated group, and never charges an inpaint', async () => {
    const { alice, proxy, target } = context;
    proxy.nextAnswer = { code: 22, description: '排队中' };
    const queued = await mj(context, 'POST', '/mj/submit/imagine', alice.key, { prompt: 'queued' });
    expect(queued.body).toMatchObject({ code: 1, description: '排队中' });
    proxy.nextAnswer = { code: 21, description: '已存在', result: done, properties: { status: 'SUCCESS', imageUrl: 'http://x/y.png' } };
    const exists = await mj(context, 'POST', '/mj/submit/imagine', alice.key, { prompt: 'exists' });
    expect(exists.body).toMatchObject({ code: 1, result: done });
    proxy.nextAnswer = { code: 30, description: '负载已满' };
    const saturated = await mj(context, 'POST', '/mj/submit/imagine', alice.key, { prompt: 'busy' });
    expect(saturated).toMatchObject({
      status: 429,
      body: { description: '负载已满 当前分组负载已饱和，请稍后再试，或升级账户以提升服务质量。', type: 'upstream_error', code: 30 },
    });
    proxy.nextAnswer = { code: 21, description: '已存在' };
    const inpaint = await mj(context, 'POST', '/mj/submit/action', alice.key, { customId: `MJ::Inpaint::1::${done}::SOLO`, taskId: done });
    expect(inpaint.body.code).toBe(21);
    await projected(target);
    const charged = new Set((await eventsOfType(target, 'QuotaConsumed')).map((event) => event.data.requestId));
    expect(charged.has(queued.requestId)).toBe(true);
    expect(charged.has(exists.requestId)).toBe(true);
    expect(charged.has(saturated.requestId)).toBe(false);
    expect(charged.has(inpaint.requestId)).toBe(false);
    const existsRow = (await call(target, alice, 'get', '/api/mj/self?page_size=100').expect(200)).body.data.find(
      (row: any) => row.mj_id === done && row.status === 'SUCCESS' && row.id !== undefined && row.image_url.includes(done),
    );
    expect(existsRow).toBeDefined();
  });

  it('serves the upstream URL with MjForwardUrlEnabled off, and a rand while unfinished when on', async () => {
    const { alice, proxy, target } = context;
    const running = (await mj(context, 'POST', '/mj/submit/imagine', alice.key, { prompt: 'rand' })).body.result;
    proxy.progress(running, '20%');
    Object.assign(proxy.tasks.get(running)!, { imageUrl: `${proxy.baseUrl}/image/${running}.png` });
    await poll(target);
    const forwarded = (await mj(context, 'GET', `/mj/task/${running}/fetch`, alice.key)).body.imageUrl;
    expect(forwarded).toMatch(new RegExp(`^http://localhost:3000/mj/image/${running}\\?rand=\\d+$`));
    await setOptions(target, { MjForwardUrlEnabled: 'false' });
    expect((await mj(context, 'GET', `/mj/task/${running}/fetch`, alice.key)).body.imageUrl).toBe(`${proxy.baseUrl}/image/${running}.png`);
    await setOptions(target, { MjForwardUrlEnabled: 'true' });
    expect(await mj(context, 'GET', '/mj/image/nosuchtask', '')).toMatchObject({
      status: 400,
      body: { error: 'midjourney_task_not_found' },
    });
  });

  it("takes a notify only for the caller's own task, and a failure it reports is refunded once", async () => {
    const { alice, bob, target } = context;
    const task = await mj(context, 'POST', '/mj/submit/imagine', alice.key, { prompt: 'notified' });
    const mjId = task.body.result;
    const report = { id: mjId, status: 'FAILURE', progress: '100%', failReason: 'notified failure', submitTime: Date.now() };
    expect(await mj(context, 'POST', '/mj/notify', bob.key, report)).toMatchObject({
      status: 400,
      body: { description: 'task_not_found' },
    });
    expect((await mj(context, 'GET', `/mj/task/${mjId}/fetch`, alice.key)).body.status).toBe('');
    expect((await mj(context, 'POST', '/mj/notify', alice.key, report)).body).toMatchObject({ code: 1 });
    expect((await mj(context, 'POST', '/mj/notify', alice.key, report)).body).toMatchObject({ code: 1 });
    await poll(target);
    expect((await mj(context, 'GET', `/mj/task/${mjId}/fetch`, alice.key)).body).toMatchObject({
      status: 'FAILURE',
      failReason: 'notified failure',
    });
    expect((await eventsOfType(target, 'QuotaRefunded')).filter((event) => event.data.taskId === task.requestId)).toHaveLength(1);
  });

  it("relays the image seed from the task's channel and checks swap_face's images", async () => {
    const { alice, bob } = context;
    expect((await mj(context, 'GET', `/mj/task/${done}/image-seed`, alice.key)).body).toEqual({
      code: 1,
      description: 'success',
      result: `seed-${done}`,
    });
    expect((await mj(context, 'GET', `/mj/task/${done}/image-seed`, bob.key)).body).toMatchObject({ description: 'task_no_found' });
    expect(await mj(context, 'POST', '/mj/insight-face/swap', alice.key, { sourceBase64: 'x' })).toMatchObject({
      status: 400,
      body: { description: 'sour_base64_and_target_base64_is_required', code: 4 },
    });
  });

  it('installs the poller as a 15 s job scheduler on the worker role', async () => {
    const queue = context.target.app.get<Queue>(getQueueToken(MJ_POLL_QUEUE), { strict: false });
    const schedulers = await queue.getJobSchedulers();
    expect(schedulers).toEqual([expect.objectContaining({ key: MJ_POLL_SCHEDULER, every: 15_000 })]);
  });

  it('rebuilds the task list, balances, logs and statement equal to the live ones', async () => {
    const { target, alice } = context;
    await projected(target);
    const live = await snapshotTables(dataSource(target), TABLES);
    expect(live.midjourney_tasks.length).toBeGreaterThan(10);
    await rebuildProjectionsIn(target.app, { waitSeconds: 10 }, () => undefined);
    await projected(target);
    const comparison = await compareTables(live, dataSource(target), TABLES);
    expect(comparison.summary).toBe(comparison.equal ? comparison.summary : 'equal');
    expect(await balanceRow(target, alice.id)).toBeTruthy();
  });
});
