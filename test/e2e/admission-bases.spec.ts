import { newEvent, systemActor } from '#server/ledger/event-envelope';
import { deterministicEventId } from '#server/ledger/event-ids';
import { accountStream } from '#server/ledger/streams';
import { QuotaAdmissionService } from '#server/relay/admission/quota-admission.service';
import { QUOTA_CONSUMED, type QuotaConsumedData } from '#server/modules/accounts/index';
import { createTestApp, type TestApp } from '../support/app';
import { call, eventStore, projected, register, rootCaller, setOptions } from './users-support';

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

  it('moves the user and token bases past charges settled by another process', async () => {
    await setOptions(target, { QuotaForNewUser: '5000' });
    const user = await register(target, 'tokbase');
    const created = await call(target, user, 'post', '/api/token/', { name: 'k', remain_quota: 1000, expired_time: -1 });
    expect(created.body).toMatchObject({ success: true });
    const list = await call(target, user, 'get', '/api/token/?p=0');
    const tokenId: number = list.body.data[0].id;
    await projected(target);
    expect(await admission.available(user.id, tokenId)).toEqual({ user: 5000, token: 1000 });

    // A charge this process's admission never saw (settled by another api process, or replayed after a crash).
    const data: QuotaConsumedData = {
      requestId: 'req-base-1',
      userId: user.id,
      tokenId,
      tokenName: 'k',
      group: 'default',
      modelName: 'm',
      upstreamModel: 'm',
      channelId: 1,
      channelName: 'c',
      channelPath: [1],
      relayMode: 'chat',
      promptTokens: 1,
      completionTokens: 1,
      cachedTokens: 0,
      modelRatio: 1,
      completionRatio: 1,
      groupRatio: 1,
      modelPrice: -1,
      quota: 300,
      tokenUnlimited: false,
      isStream: false,
      useTimeSeconds: 1,
      firstTokenMs: 0,
      createdAt: Math.floor(Date.now() / 1000),
      username: 'tokbase',
    };
    await eventStore(target).appendToStream(
      accountStream(user.id),
      [
        newEvent(QUOTA_CONSUMED, data as unknown as Record<string, unknown>, {
          id: deterministicEventId('relay-request', data.requestId),
          metadata: { correlationId: data.requestId, actor: systemActor(), reasonCode: 'relay_request' },
        }),
      ],
      { expectedRevision: 'any' },
    );
    await eventually(async () => expect(await admission.available(user.id, tokenId)).toEqual({ user: 4700, token: 700 }));
  });
});
