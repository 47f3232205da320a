import { QuotaAdmissionService } from '../../server/src/relay/admission/quota-admission.service';
import { createTestApp, type TestApp } from '../support/app';
import { call, projected, register, rootCaller, setOptions } from './users-support';

/**
 * The relay admits against Redis bases loaded once from the projections; the projector must move them when a
 * balance changes for any other reason than a relay charge (admin edits here; top-ups and refunds later), or
 * admission would keep refusing (or allowing) against a stale balance.
 */
describe('admission bases follow the account balances', () => {
  let target: TestApp;
  let admission: QuotaAdmissionService;

  beforeAll(async () => {
    target = await createTestApp();
    admission = target.app.get(QuotaAdmissionService, { strict: false });
  });
  afterAll(() => target.close());

  const eventually = async (check: () => Promise<void>, timeoutMs = 10_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        return await check();
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  };

  it('raises and lowers what admission allows when an admin edits the quota', async () => {
    await setOptions(target, { QuotaForNewUser: '1000' });
    const user = await register(target, 'basefollow');
    await projected(target);
    expect((await admission.available(user.id)).user).toBe(1000);

    const root = await rootCaller(target);
    const edit = async (quota: number) => {
      const current = await call(target, root, 'get', `/api/user/${user.id}`);
      const response = await call(target, root, 'put', '/api/user/', {
        id: user.id,
        quota,
        account_revision: current.body.data.account_revision,
      });
      expect(response.body).toMatchObject({ success: true });
    };

    await edit(50_000);
    await eventually(async () => expect((await admission.available(user.id)).user).toBe(50_000));
    await edit(10);
    await eventually(async () => expect((await admission.available(user.id)).user).toBe(10));
  });
});
