import { call, projected } from './users-support';
import { pollSuno, suno, sunoFixture } from './suno-support';

jest.setTimeout(60_000);

/** `/api/task/` (admins) and `/api/task/self` with the filters of console-api-behaviour §13; the channel filter works. */
describe('suno task lists', () => {
  const context = sunoFixture();

  it('lists one own tasks only, filters them, and gives admins every task with a working channel filter', async () => {
    const { alice, bob, root, suno: fake, target, channelId } = context;
    const music = await suno(context, 'POST', '/suno/submit/music', alice.key, { prompt: 'song' });
    const lyrics = await suno(context, 'POST', '/suno/submit/lyrics', alice.key, { prompt: 'words' });
    const bobs = await suno(context, 'POST', '/suno/submit/music', bob.key, { prompt: 'bob song' });
    fake.fail(lyrics.body.data, 'no words');
    await pollSuno(target);
    await projected(target);

    const own = (await call(target, alice, 'get', '/api/task/self').expect(200)).body;
    expect(own.success).toBe(true);
    expect(own.data.map((row: { task_id: string }) => row.task_id)).toEqual([lyrics.body.data, music.body.data]);
    expect(own.data[0]).toEqual({
      id: expect.any(Number),
      created_at: expect.any(Number),
      updated_at: expect.any(Number),
      task_id: lyrics.body.data,
      platform: 'suno',
      user_id: alice.id,
      quota: 5_000,
      action: 'LYRICS',
      status: 'FAILURE',
      fail_reason: 'no words',
      submit_time: expect.any(Number),
      start_time: 0,
      finish_time: expect.any(Number),
      progress: '100%',
      properties: { input: 'words' },
      data: null,
    });
    const filtered = async (caller: typeof alice, query: string) =>
      (await call(target, caller, 'get', `/api/task/self?${query}`).expect(200)).body.data.map((row: { task_id: string }) => row.task_id);
    expect(await filtered(alice, 'status=FAILURE')).toEqual([lyrics.body.data]);
    expect(await filtered(alice, 'action=MUSIC')).toEqual([music.body.data]);
    expect(await filtered(alice, `task_id=${music.body.data}`)).toEqual([music.body.data]);
    expect(await filtered(alice, 'platform=suno&page_size=1&p=1')).toEqual([music.body.data]);
    expect(await filtered(alice, `start_timestamp=${Math.floor(Date.now() / 1000) + 3600}`)).toEqual([]);
    expect(await filtered(alice, `task_id=${bobs.body.data}`)).toEqual([]);
    expect(await filtered(bob, '')).toEqual([bobs.body.data]);

    const all = (await call(target, root, 'get', `/api/task/?channel_id=${channelId}`).expect(200)).body.data;
    expect(all.map((row: { task_id: string }) => row.task_id)).toEqual([bobs.body.data, lyrics.body.data, music.body.data]);
    expect(all[0]).toMatchObject({ channel_id: channelId, user_id: bob.id });
    expect((await call(target, root, 'get', `/api/task/?channel_id=${channelId + 100}`).expect(200)).body.data).toEqual([]);

    // Not an admin; bad filters are refused and read nothing.
    expect((await call(target, bob, 'get', '/api/task/').expect(200)).body.success).toBe(false);
    for (const query of ['p=x', 'page_size=0', 'status=DONE', 'action=VIDEO', 'platform=mj', 'start_timestamp=-1']) {
      expect((await call(target, alice, 'get', `/api/task/self?${query}`).expect(200)).body).toMatchObject({ success: false });
    }
    expect((await call(target, null, 'get', '/api/task/self').expect(401)).body.success).toBe(false);
  });
});
