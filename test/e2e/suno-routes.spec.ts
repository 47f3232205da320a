import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { SUNO_POLL_QUEUE, SUNO_POLL_SCHEDULER } from '#server/relay/suno/suno-poll.queue';
import { SunoPollProcessor } from '#server/workers/suno-poll.processor';
import { SunoApiFake } from '../fakes/upstreams/suno-api-fake';
import { createChannel, userWithToken } from './relay-support';
import { balanceRow, call, projected, setOptions } from './users-support';
import { eventsOfType, MUSIC_QUOTA, pollSuno, suno, sunoFixture } from './suno-support';

jest.setTimeout(60_000);

/** The Suno routes' errors (TaskError `{code, message, data}`), and the task retry rule: never a 400. */
describe('suno routes: errors and retries', () => {
  const context = sunoFixture();

  async function unchanged(run: () => Promise<void>): Promise<void> {
    const { alice, target } = context;
    await projected(target);
    const before = await balanceRow(target, alice.id);
    const charges = (await eventsOfType(target, 'QuotaConsumed')).length;
    const tasks = (await eventsOfType(target, 'SunoTaskSubmitted')).length;
    await run();
    await projected(target);
    expect(await balanceRow(target, alice.id)).toEqual(before);
    expect((await eventsOfType(target, 'QuotaConsumed')).length).toBe(charges);
    expect((await eventsOfType(target, 'SunoTaskSubmitted')).length).toBe(tasks);
  }

  it('refuses bad submits locally, in the TaskError shape, before the upstream is asked, and changes nothing', async () => {
    const { alice, suno: fake } = context;
    await unchanged(async () => {
      const asked = fake.requests.length;
      expect(await suno(context, 'POST', '/suno/submit/video', alice.key, { prompt: 'x' })).toMatchObject({
        status: 400,
        body: { code: 'invalid_request', message: 'invalid_action', data: null },
      });
      expect(await suno(context, 'POST', '/suno/submit/lyrics', alice.key, { title: 'no prompt' })).toMatchObject({
        status: 400,
        body: { code: 'invalid_request', message: 'prompt_empty' },
      });
      expect(await suno(context, 'POST', '/suno/submit/music', alice.key, '{not json')).toMatchObject({
        status: 400,
        body: { code: 'invalid_request' },
      });
      expect(await suno(context, 'POST', '/suno/submit/music', alice.key, { prompt: 42 })).toMatchObject({
        status: 400,
        body: { code: 'invalid_request', message: 'prompt must be a string' },
      });
      expect(await suno(context, 'POST', '/suno/submit/music', alice.key, { continue_clip_id: 'clip' })).toMatchObject({
        status: 400,
        body: { code: 'invalid_request', message: 'task id is empty' },
      });
      expect(await suno(context, 'POST', '/suno/submit/music', alice.key, { continue_clip_id: 'clip', task_id: 'nope' })).toMatchObject({
        status: 400,
        body: { code: 'task_not_exist', message: 'task_origin_not_exist' },
      });
      expect(await suno(context, 'GET', '/suno/fetch/nope', alice.key)).toMatchObject({ status: 400, body: { code: 'task_not_exist' } });
      expect(await suno(context, 'POST', '/suno/fetch', alice.key, { ids: 'x' })).toMatchObject({
        status: 400,
        body: { code: 'invalid_request' },
      });
      const badKey = await suno(context, 'POST', '/suno/submit/music', 'sk-nosuchkey', { prompt: 'x' });
      expect(badKey.status).toBe(401);
      expect(badKey.body.error.message).toContain('无效的令牌');
      expect(fake.requests.length).toBe(asked);
    });
  });

  it('refuses a submit the user cannot pay with 403 quota_not_enough before the upstream is asked', async () => {
    const { target, suno: fake } = context;
    const poor = await userWithToken(target, 'sunopoor', MUSIC_QUOTA - 1);
    await setOptions(target, { QuotaForNewUser: '0' });
    const asked = fake.requests.length;
    expect(await suno(context, 'POST', '/suno/submit/music', poor.key, { prompt: 'x' })).toMatchObject({
      status: 403,
      body: { code: 'quota_not_enough', message: 'user quota is not enough', data: null },
    });
    expect(fake.requests.length).toBe(asked);
    await projected(target);
    expect(await balanceRow(target, poor.id)).toMatchObject({ quota: MUSIC_QUOTA - 1, used_quota: 0 });
  });

  it('answers upstream refusals as TaskErrors and charges nothing', async () => {
    const { alice, suno: fake } = context;
    await unchanged(async () => {
      fake.nextAnswer = { status: 400, body: { detail: 'bad prompt' } };
      expect(await suno(context, 'POST', '/suno/submit/music', alice.key, { prompt: 'x' })).toMatchObject({
        status: 400,
        body: { code: 'fail_to_fetch_task', message: '{"detail":"bad prompt"}', data: null },
      });
      fake.nextAnswer = { status: 200, body: { code: 'banned', message: 'no such songs', data: null } };
      expect(await suno(context, 'POST', '/suno/submit/music', alice.key, { prompt: 'x' })).toMatchObject({
        status: 500,
        body: { code: 'banned', message: 'no such songs' },
      });
      fake.nextAnswer = { status: 429, body: { detail: 'slow down' } };
      expect(await suno(context, 'POST', '/suno/submit/music', alice.key, { prompt: 'x' })).toMatchObject({
        status: 429,
        body: { code: 'fail_to_fetch_task', message: '当前分组上游负载已饱和，请稍后再试' },
      });
    });
  });

  it('retries a failed submit on another channel (never a 400) and charges the one that took it, once', async () => {
    const { alice, root, suno: fake, target } = context;
    const backup = await new SunoApiFake('backup-key').start();
    try {
      const backupId = await createChannel(target, root, {
        type: 36,
        name: 'backup-suno',
        key: backup.key,
        baseUrl: backup.baseUrl,
        models: ['suno_music', 'suno_lyrics'],
        priority: -1,
      });
      await setOptions(target, { RetryTimes: '1' });
      // A 500 on the first channel: retried on the backup, which takes it.
      fake.nextAnswer = { status: 500, body: { detail: 'down' } };
      const retried = await suno(context, 'POST', '/suno/submit/music', alice.key, { prompt: 'retry me' });
      expect(retried.status).toBe(200);
      expect(backup.tasks.has(retried.body.data)).toBe(true);
      await projected(target);
      const charges = (await eventsOfType(target, 'QuotaConsumed')).filter((event) => event.data.requestId === retried.requestId);
      expect(charges).toHaveLength(1);
      expect(charges[0].data).toMatchObject({ channelId: backupId, quota: MUSIC_QUOTA });
      const submitted = (await eventsOfType(target, 'SunoTaskSubmitted')).filter((event) => event.data.taskId === retried.requestId);
      expect(submitted.map((event) => event.data.channelId)).toEqual([backupId]);

      // A 400 is never retried.
      const backupAsked = backup.requests.length;
      fake.nextAnswer = { status: 400, body: { detail: 'no' } };
      expect((await suno(context, 'POST', '/suno/submit/music', alice.key, { prompt: 'x' })).status).toBe(400);
      expect(backup.requests.length).toBe(backupAsked);

      // The backup channel is deleted: its unfinished task fails with new-api's reason and is refunded, once.
      expect((await call(target, root, 'delete', `/api/channel/${backupId}`).expect(200)).body.success).toBe(true);
      await projected(target);
      await pollSuno(target);
      await pollSuno(target);
      expect((await suno(context, 'GET', `/suno/fetch/${retried.body.data}`, alice.key)).body.data).toMatchObject({
        status: 'FAILURE',
        progress: '100%',
        fail_reason: `获取渠道信息失败，请联系管理员，渠道ID：${backupId}`,
      });
      const refunds = (await eventsOfType(target, 'QuotaRefunded')).filter((event) => event.data.taskId === retried.requestId);
      expect(refunds).toHaveLength(1);
    } finally {
      await setOptions(target, { RetryTimes: '0' });
      await backup.close();
    }
  });

  it('installs the poller as a 15 s job scheduler on the worker role, whose job runs a poll', async () => {
    const { alice, suno: fake, target } = context;
    const queue = target.app.get<Queue>(getQueueToken(SUNO_POLL_QUEUE), { strict: false });
    const schedulers = await queue.getJobSchedulers();
    expect(schedulers).toEqual([expect.objectContaining({ key: SUNO_POLL_SCHEDULER, every: 15_000 })]);
    const submitted = await suno(context, 'POST', '/suno/submit/music', alice.key, { prompt: 'job' });
    fake.succeed(submitted.body.data);
    const report = await target.app.get(SunoPollProcessor, { strict: false }).process();
    expect(report).toMatchObject({ ran: true });
    await projected(target);
    expect((await suno(context, 'GET', `/suno/fetch/${submitted.body.data}`, alice.key)).body.data).toMatchObject({ status: 'SUCCESS' });
  });
});
