import { createTestApp, type TestApp } from '../support/app';
import { call, type Caller, changedRows, projected, rootCaller, seedCaller, sessionFor, tablesSnapshot } from './users-support';

/**
 * Look-alike usernames: names are NFKC-normalised before they are checked and stored, so `ｒｏｏｔ` (full width) is
 * root's name and taken; control, zero-width and bidirectional characters are refused in usernames and display
 * names. Every refusal is `{success:false, message}` and changes nothing.
 */
describe('look-alike usernames', () => {
  const FULL_WIDTH_ROOT = '\uFF52\uFF4F\uFF4F\uFF54';
  const ZERO_WIDTH_ROOT = 'ro\u200Bot';
  const RTL_OVERRIDE_ROOT = '\u202Eroot';
  const HIDDEN_NAME = '输入不合法 用户名不能包含控制字符、零宽字符或双向控制字符';
  const HIDDEN_DISPLAY = '输入不合法 显示名称不能包含控制字符、零宽字符或双向控制字符';
  let target: TestApp;
  let root: Caller;
  let admin: Caller;

  beforeAll(async () => {
    target = await createTestApp();
    root = await rootCaller(target);
    admin = await seedCaller(target, { role: 10, username: 'lookadmin' });
    // Root's seed grant reaches its projection first, so the snapshots below see only what the requests change.
    await projected(target);
  });
  afterAll(async () => {
    await target?.close();
  });

  /** Sends each request and expects the refusal `message` for it, with no table changed. */
  async function refusedUnchanged(requests: Array<[() => PromiseLike<{ body: unknown }>, string]>): Promise<void> {
    const before = await tablesSnapshot(target);
    for (const [send, message] of requests) expect((await send()).body).toEqual({ success: false, message });
    expect(changedRows(before, await tablesSnapshot(target))).toEqual({});
  }

  const registering = (username: string) => () =>
    target.http().post('/api/user/register').send({ username, password: 'password123', password2: 'password123' });
  const creating =
    (username: string, displayName = '') =>
    () =>
      call(target, admin, 'post', '/api/user/', { username, password: 'password123', display_name: displayName, role: 1 });

  it('refuses to register or create the full-width look-alike of root as a taken name', async () => {
    await refusedUnchanged([
      [registering(FULL_WIDTH_ROOT), '用户名已存在，或已注销'],
      [creating(FULL_WIDTH_ROOT), '用户名已存在，或已注销'],
    ]);
  });

  it.each([
    ['a zero-width space', ZERO_WIDTH_ROOT, 'lookzw'],
    ['a right-to-left override', RTL_OVERRIDE_ROOT, 'lookrtl'],
    ['a control character', 'ro\u0007ot', 'lookcc'],
    ['a byte-order mark', 'ro\uFEFFot', 'lookbom'],
  ])('refuses a username with %s at register, create and edits', async (_, username, seeded) => {
    const user = await seedCaller(target, { username: seeded });
    await refusedUnchanged([
      [registering(username), HIDDEN_NAME],
      [creating(username), HIDDEN_NAME],
      [() => call(target, user, 'put', '/api/user/self', { username }), HIDDEN_NAME],
      [() => call(target, root, 'put', '/api/user/', { id: user.id, username }), HIDDEN_NAME],
    ]);
  });

  it('refuses such characters in display names too', async () => {
    const user = await seedCaller(target, { username: 'lookdisp' });
    const displayName = `Bob\u202Egnp.exe`;
    await refusedUnchanged([
      [creating('lookdisp2', displayName), HIDDEN_DISPLAY],
      [() => call(target, user, 'put', '/api/user/self', { display_name: displayName }), HIDDEN_DISPLAY],
      [() => call(target, root, 'put', '/api/user/', { id: user.id, display_name: 'a\u200Db' }), HIDDEN_DISPLAY],
    ]);
  });

  it('stores names NFKC-normalised, and a look-alike login reaches the real account and needs its password', async () => {
    const created = await call(target, admin, 'post', '/api/user/', {
      username: '\uFF4C\uFF4F\uFF4F\uFF4B\uFF4E\uFF46',
      password: 'password123',
      display_name: 'Ｆｕｌｌ',
      role: 1,
    });
    expect(created.body).toEqual({ success: true, message: '' });
    const row = await target.http().post('/api/user/login').send({ username: 'looknf', password: 'password123' });
    expect(row.body).toMatchObject({ success: true, data: { username: 'looknf', display_name: 'Full' } });
    const lookalike = await sessionFor(target, '\uFF4C\uFF4F\uFF4F\uFF4B\uFF4E\uFF46', 'password123');
    expect(lookalike.id).toBe(row.body.data.id);
    const wrong = await target.http().post('/api/user/login').send({ username: FULL_WIDTH_ROOT, password: 'not-roots-password' });
    expect(wrong.body.success).toBe(false);
  });
});
