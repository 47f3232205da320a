import type { TestApp } from '../support/app';
import { channelsApiFixture, storedChannelKeys } from './channels-api-support';
import { call, type Caller, changedRows, tablesSnapshot } from './users-support';

/** POST /api/channel/copy/:id: the console's copy action (the listed channel has no key to post back). */
describe('channels API: copy', () => {
  const fixture = channelsApiFixture();
  const { create, getChannel, abilities } = fixture;
  let target: TestApp;
  let admin: Caller;
  let common: Caller;

  beforeAll(() => {
    ({ target, admin, common } = fixture.context);
  });

  const keyOf = async (id: number): Promise<string> => (await storedChannelKeys(target, [id]))[0];

  it('copies the configuration and the key under the name with "_复制", routing like the original', async () => {
    const [id] = await create({
      name: 'copied',
      key: 'sk-copy-secret',
      models: 'gpt-4o,gpt-4o-mini',
      group: 'default,vip',
      priority: 5,
      weight: 3,
    });
    const response = await call(target, admin, 'post', `/api/channel/copy/${id}`);
    expect(response.status).toBe(200);
    expect(response.body.success).toBe(true);
    const copyId = response.body.data.id as number;
    expect(copyId).toBeGreaterThan(id);
    const [original, copy] = [await getChannel(id), await getChannel(copyId)];
    expect(copy).toMatchObject({ name: 'copied_复制', models: original.models, group: original.group, priority: 5, weight: 3, status: 1 });
    expect(await keyOf(copyId)).toBe('sk-copy-secret');
    expect(await abilities(copyId)).toEqual(await abilities(id));
  });

  it('takes a suffix, keeps a manual disable, and refuses unknown ids and ordinary users, changing nothing', async () => {
    const [id] = await create({ name: 'offcopy', status: 2 });
    const copied = await call(target, admin, 'post', `/api/channel/copy/${id}?suffix=-b`);
    expect(await getChannel(copied.body.data.id)).toMatchObject({ name: 'offcopy-b', status: 2 });

    const before = await tablesSnapshot(target);
    expect((await call(target, admin, 'post', '/api/channel/copy/999999')).body).toEqual({ success: false, message: '渠道不存在' });
    expect((await call(target, admin, 'post', '/api/channel/copy/abc')).body).toMatchObject({ success: false });
    expect((await call(target, common, 'post', `/api/channel/copy/${id}`)).body).toEqual({
      success: false,
      message: '无权进行此操作，权限不足',
    });
    expect(changedRows(before, await tablesSnapshot(target))).toEqual({});
  });
});
