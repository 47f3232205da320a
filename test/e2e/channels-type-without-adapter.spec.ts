import { channelForm, channelsApiFixture } from './channels-api-support';
import { call, dataSource } from './users-support';

const REFUSAL = '该渠道类型（AI Proxy 知识库）没有可用的上游适配器，无法转发任何请求，请选择其他类型';

/** Type 21 (AI Proxy knowledge base) has no adapter: refused when created or when an edit moves a channel to it. */
describe('channels API: a type without an adapter', () => {
  const fixture = channelsApiFixture();
  const { create, getChannel } = fixture;

  const count = async () => (await dataSource(fixture.context.target).query('SELECT count(*)::int AS n FROM channels'))[0].n as number;

  it('refuses to create a type-21 channel, saying why, and stores nothing', async () => {
    const { target, admin } = fixture.context;
    const before = await count();
    const response = await call(target, admin, 'post', '/api/channel/', channelForm({ type: 21, name: 'kb', key: 'a\nb', other: 'kb-1' }));
    expect(response.body).toEqual({ success: false, message: REFUSAL });
    expect(await count()).toBe(before);
    expect(await dataSource(target).query("SELECT id FROM channels WHERE name = 'kb'")).toEqual([]);
  });

  it('refuses an edit that moves a channel to type 21 and keeps the channel as it was', async () => {
    const { target, admin } = fixture.context;
    const [id] = await create({ name: 'to-kb' });
    const loaded = await getChannel(id);
    const response = await call(target, admin, 'put', '/api/channel/', { ...loaded, type: 21, name: 'renamed' });
    expect(response.body).toEqual({ success: false, message: REFUSAL });
    const after = await getChannel(id);
    expect(after).toMatchObject({ type: 1, name: 'to-kb' });
    const [{ type, name }] = await dataSource(target).query('SELECT type, name FROM channels WHERE id = $1', [id]);
    expect({ type, name }).toEqual({ type: 1, name: 'to-kb' });
  });

  it('still lets an already stored type-21 channel be edited (disabled), without changing its type', async () => {
    const { target, admin } = fixture.context;
    const [id] = await create({ name: 'legacy-kb' });
    // A database imported from new-api may hold one: stored before this rule existed.
    await dataSource(target).query('UPDATE channels SET type = 21 WHERE id = $1', [id]);
    const response = await call(target, admin, 'put', '/api/channel/', { id, name: 'legacy-kb-2', type: 21 });
    expect(response.body).toMatchObject({ success: true });
    const [{ type, name }] = await dataSource(target).query('SELECT type, name FROM channels WHERE id = $1', [id]);
    expect({ type, name }).toEqual({ type: 21, name: 'legacy-kb-2' });
  });
});
