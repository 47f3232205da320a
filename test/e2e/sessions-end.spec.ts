import { createTestApp, type TestApp } from '../support/app';
import { call, type Caller, rootCaller, seedCaller, sessionFor } from './users-support';

/**
 * A new password ends the account's other sessions (self change, admin edit), and "log out everywhere" ends them
 * all. Each user logs in from two or three browsers (agents with their own cookie).
 */
describe('sessions end on a password change and on log out everywhere', () => {
  let target: TestApp;
  let root: Caller;

  beforeAll(async () => {
    target = await createTestApp();
    root = await rootCaller(target);
  });
  afterAll(async () => {
    await target?.close();
  });

  type Session = Awaited<ReturnType<typeof sessionFor>>;
  const alive = async (session: Session) => (await session.get('/api/user/self')).body.success === true;
  const browsers = async (username: string, password: string, count: number): Promise<Session[]> => {
    const sessions: Session[] = [];
    for (let i = 0; i < count; i += 1) sessions.push(await sessionFor(target, username, password));
    return sessions;
  };

  it('a self password change keeps the session that made it and ends the others', async () => {
    await seedCaller(target, { username: 'sessself', password: 'old-password-1' });
    const [here, laptop, phone] = await browsers('sessself', 'old-password-1', 3);
    await seedCaller(target, { username: 'sessnear', password: 'near-password-1' });
    const [stranger] = await browsers('sessnear', 'near-password-1', 1);
    expect((await here.put('/api/user/self', { password: 'new-password-1' })).body).toEqual({ success: true, message: '' });
    expect(await alive(here)).toBe(true);
    expect(await alive(laptop)).toBe(false);
    expect(await alive(phone)).toBe(false);
    const refused = await laptop.get('/api/user/self');
    expect([refused.status, refused.body.success]).toEqual([401, false]);
    // Another user's session is untouched, and the new password logs in.
    expect(await alive(stranger)).toBe(true);
    expect(await alive(await sessionFor(target, 'sessself', 'new-password-1'))).toBe(true);
  });

  it('a profile change without a password ends no session', async () => {
    await seedCaller(target, { username: 'sessname', password: 'old-password-2' });
    const [here, other] = await browsers('sessname', 'old-password-2', 2);
    expect((await here.put('/api/user/self', { display_name: 'Renamed' })).body.success).toBe(true);
    expect(await alive(here)).toBe(true);
    expect(await alive(other)).toBe(true);
  });

  it("an admin's password edit ends every session of that user and none of the admin's", async () => {
    const user = await seedCaller(target, { username: 'sessedit', password: 'old-password-3' });
    const [first, second] = await browsers('sessedit', 'old-password-3', 2);
    const bystander = await seedCaller(target, { username: 'sessby', password: 'by-password-3' });
    const [watching] = await browsers(bystander.username, 'by-password-3', 1);
    const edited = await call(target, root, 'put', '/api/user/', { id: user.id, password: 'admin-set-pw-3' });
    expect(edited.body).toEqual({ success: true, message: '' });
    expect(await alive(first)).toBe(false);
    expect(await alive(second)).toBe(false);
    expect(await alive(watching)).toBe(true);
    // An edit of other fields leaves the new sessions alone.
    const [again] = await browsers('sessedit', 'admin-set-pw-3', 1);
    expect((await call(target, root, 'put', '/api/user/', { id: user.id, display_name: 'Edited' })).body.success).toBe(true);
    expect(await alive(again)).toBe(true);
  });

  it('POST /api/user/logout_all ends every session of the caller, this one included', async () => {
    await seedCaller(target, { username: 'sessall', password: 'old-password-4' });
    const [here, other] = await browsers('sessall', 'old-password-4', 2);
    await seedCaller(target, { username: 'sessoth', password: 'oth-password-4' });
    const [someoneElse] = await browsers('sessoth', 'oth-password-4', 1);
    const response = await here.post('/api/user/logout_all');
    expect([response.status, response.body]).toEqual([200, { success: true, message: '' }]);
    expect(await alive(here)).toBe(false);
    expect(await alive(other)).toBe(false);
    expect(await alive(someoneElse)).toBe(true);
    expect((await target.http().post('/api/user/logout_all')).status).toBe(401);
    // The password still logs in afterwards.
    expect(await alive(await sessionFor(target, 'sessall', 'old-password-4'))).toBe(true);
  });
});
