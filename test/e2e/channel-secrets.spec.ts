import { SecretBox } from '#server/common/crypto/secret-box';
import { openChannelKey } from '#server/modules/channels/channel-keys';
import { ChannelHealthUpstreamFake } from '../fakes/upstreams/channel-health-upstream-fake';
import type { TestApp } from '../support/app';
import { channelForm as form, channelsApiFixture } from './channels-api-support';
import { call, type Caller, dataSource, type Method } from './users-support';

/**
 * A channel key is answered to no one once saved: every channel route, as an admin and as root, is searched for
 * it. Finding a channel by its exact key is root's alone.
 */
describe('channel secrets', () => {
  const fixture = channelsApiFixture();
  const { create } = fixture;
  let target: TestApp;
  let root: Caller;
  let admin: Caller;
  let upstream: ChannelHealthUpstreamFake;

  beforeAll(async () => {
    ({ target, root, admin } = fixture.context);
    upstream = await new ChannelHealthUpstreamFake().start();
  });
  afterAll(async () => {
    await upstream?.close();
  });

  /** The channel's key as stored, opened (it is encrypted at rest: secrets-at-rest.spec.ts). */
  const storedKey = async (id: number): Promise<string> =>
    openChannelKey(target.app.get(SecretBox), (await dataSource(target).query('SELECT key FROM channels WHERE id = $1', [id]))[0].key);

  it.each([
    ['admin', () => admin],
    ['root', () => root],
  ])('no channel route answers the key to %s', async (label, who) => {
    const caller = who();
    const secret = `sk-secret-${label}-4f1c9a`;
    const base = { name: `secret-${label}`, key: secret, base_url: upstream.baseUrl, models: `secret-model-${label}` };
    const created = await call(target, caller, 'post', '/api/channel/', form(base));
    const [{ id }] = await dataSource(target).query('SELECT id FROM channels WHERE name = $1', [base.name]);
    expect(await storedKey(id)).toBe(secret);
    const edited = `${secret}-edited`;
    const routes: Array<[Method, string, unknown?]> = [
      ['get', '/api/channel/?p=0&page_size=100'],
      ['get', '/api/channel/?p=0&page_size=100&id_sort=true'],
      ['get', `/api/channel/search?keyword=${base.name}`],
      ['get', `/api/channel/search?keyword=${id}`],
      ['get', `/api/channel/search?keyword=&model=${base.models}`],
      ['get', `/api/channel/${id}`],
      ['get', '/api/channel/models'],
      ['get', `/api/channel/fetch_models/${id}`],
      ['get', `/api/channel/test/${id}`],
      ['get', `/api/channel/update_balance/${id}`],
      ['put', '/api/channel/', { id, key: edited }],
      ['put', '/api/channel/', { id, name: `${base.name}-renamed`, key: '' }],
      ['get', `/api/channel/search?keyword=${edited}`],
      ['get', '/api/channel/test'],
      ['get', '/api/channel/update_balance'],
    ];
    const answers = [created];
    for (const [method, path, body] of routes) answers.push(await call(target, caller, method, path, body));
    answers.forEach((answer, index) => {
      const route = index === 0 ? 'POST /api/channel/' : routes[index - 1].slice(0, 2).join(' ');
      const text = JSON.stringify(answer.body);
      expect([route, answer.status, text.includes(secret), text]).toEqual([route, 200, false, text]);
    });
    // Every answer carrying a channel keeps the `key` field, empty.
    expect(answers[answers.length - 4].body.data).toMatchObject({ id, key: '', name: `${base.name}-renamed` });
    // The edit with an empty key kept the key the previous edit stored.
    expect(await storedKey(id)).toBe(edited);
  });

  it('finds a channel by its exact key for root only; for an admin the keyword matches id and name', async () => {
    const [id] = await create({ name: 'by-key', key: 'sk-exact-7d3e' });
    const search = async (caller: Caller, keyword: string) =>
      (await call(target, caller, 'get', `/api/channel/search?keyword=${keyword}`)).body.data.map((channel: { id: number }) => channel.id);
    expect(await search(root, 'sk-exact-7d3e')).toEqual([id]);
    expect(await search(admin, 'sk-exact-7d3e')).toEqual([]);
    expect(await search(admin, 'by-key')).toEqual([id]);
    expect(await search(admin, String(id))).toEqual([id]);
    // A key is not a name: part of one finds nothing, for root either.
    expect(await search(root, 'sk-exact')).toEqual([]);
  });
});
