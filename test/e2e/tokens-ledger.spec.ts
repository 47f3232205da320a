import { ProjectionRunner } from '#projections/runner/projection-runner';
import { deterministicEventId } from '#server/ledger/event-ids';
import { newEvent, systemActor } from '#server/ledger/event-envelope';
import { accountStream } from '#server/ledger/streams';
import { QuotaAdmissionService } from '#server/relay/admission/quota-admission.service';
import { QUOTA_CONSUMED, type QuotaConsumedData } from '#server/modules/accounts/index';
import { createTestApp, type TestApp } from '../support/app';
import { compareTables, snapshotTables } from '../support/compare-tables';
import { call, type Caller, dataSource, eventStore, projected, seedCaller } from './users-support';

/**
 * A token's money is ledger state: TokenQuotaAllotted on `token-{id}` (console create/edit) and the relay's
 * QuotaConsumed on `account-{userId}` (contract 4), folded by the token-balances projection into what the token
 * API shows. Rebuilding the projection from the ledger gives the same table as the live fold.
 */
describe('tokens: balances from the ledger', () => {
  let target: TestApp;
  let user: Caller;

  beforeAll(async () => {
    target = await createTestApp();
    user = await seedCaller(target, { username: 'spender' });
  });
  afterAll(async () => {
    await target.close();
  });

  async function create(body: Record<string, unknown>): Promise<number> {
    await call(target, user, 'post', '/api/token/', { name: 'ledger', ...body }).expect(200, { success: true, message: '' });
    const [row] = await dataSource(target).query('SELECT id FROM tokens WHERE user_id = $1 ORDER BY id DESC LIMIT 1', [user.id]);
    return row.id;
  }

  /** One settled relay request, as the settlement appends it (id derived from the request id). */
  async function charge(requestId: string, tokenId: number, quota: number, tokenUnlimited = false): Promise<void> {
    const data: QuotaConsumedData = {
      requestId,
      userId: user.id,
      tokenId,
      tokenName: 'ledger',
      group: 'default',
      modelName: 'gpt-4o-mini',
      upstreamModel: 'gpt-4o-mini',
      channelId: 1,
      channelName: 'c1',
      channelPath: [1],
      relayMode: 'chat',
      promptTokens: 10,
      completionTokens: 5,
      cachedTokens: 0,
      modelRatio: 0.075,
      completionRatio: 4,
      groupRatio: 1,
      modelPrice: -1,
      quota,
      tokenUnlimited,
      isStream: false,
      useTimeSeconds: 1,
      firstTokenMs: 0,
      createdAt: Math.floor(Date.now() / 1000),
      username: user.username,
    };
    await eventStore(target).appendToStream(
      accountStream(user.id),
      [
        newEvent(
          QUOTA_CONSUMED,
          { ...data },
          {
            id: deterministicEventId('relay-request', requestId),
            metadata: { correlationId: requestId, actor: systemActor(), reasonCode: 'relay' },
          },
        ),
      ],
      { expectedRevision: 'any' },
    );
  }

  const shown = async (id: number) => (await call(target, user, 'get', `/api/token/${id}`).expect(200)).body.data;

  it('folds allotments and charges into remain_quota, used_quota and accessed_time; unlimited tokens keep their figure', async () => {
    const limited = await create({ remain_quota: 1000 });
    const unlimited = await create({ remain_quota: 300, unlimited_quota: true });
    const edited = await create({ remain_quota: 100 });
    const createdAt = (await shown(limited)).accessed_time as number;

    await charge('r1', limited, 150);
    await charge('r2', limited, 50);
    await charge('r1', limited, 150); // a retried settlement: the same event id appends nothing
    await charge('r3', unlimited, 80, true);
    await charge('r4', edited, 30);
    await charge('r5', 0, 999); // the playground: no token
    await projected(target);

    expect(await shown(limited)).toMatchObject({ remain_quota: 800, used_quota: 200 });
    expect((await shown(limited)).accessed_time).toBeGreaterThanOrEqual(createdAt);
    expect(await shown(unlimited)).toMatchObject({ remain_quota: 300, used_quota: 80, unlimited_quota: true });
    expect(await shown(edited)).toMatchObject({ remain_quota: 70, used_quota: 30 });

    const admission = target.app.get(QuotaAdmissionService);
    expect((await admission.available(user.id, edited)).token).toBe(70);
    // An edit sets the remaining quota; what was used stays used; later charges come off the new figure.
    const response = await call(target, user, 'put', '/api/token/', { id: edited, remain_quota: 500 }).expect(200);
    expect(response.body.data).toMatchObject({ remain_quota: 500, used_quota: 30 });
    const [allotment] = await dataSource(target).query(
      "SELECT data FROM events WHERE stream_id = $1 AND type = 'TokenQuotaAllotted' ORDER BY revision DESC LIMIT 1",
      [`token-${edited}`],
    );
    expect(allotment.data).toEqual({ userId: user.id, remainQuota: 500, unlimited: false, before: { remainQuota: 70, unlimited: false } });
    // Admission's copy of the token balance follows the edit at once.
    expect((await admission.available(user.id, edited)).token).toBe(500);
    await charge('r6', edited, 20);
    await projected(target);
    expect(await shown(edited)).toMatchObject({ remain_quota: 480, used_quota: 50 });
  });

  it('rebuilds token_balances from the ledger to exactly the live table', async () => {
    await projected(target);
    const db = dataSource(target);
    const live = await snapshotTables(db, ['token_balances']);
    expect(live.token_balances.length).toBe(3);
    await target.app.get(ProjectionRunner).rebuild({ projections: ['token-balances'] });
    await projected(target);
    const comparison = await compareTables(live, db, ['token_balances']);
    expect(comparison.summary).toBe(comparison.equal ? comparison.summary : 'equal');
    expect(comparison.equal).toBe(true);
  });
});
