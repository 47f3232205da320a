import { InMemoryEventStore } from '#server/ledger/in-memory/in-memory-event-store';
import { accountStream } from '#server/ledger/streams';
import type { OptionsService } from '#server/modules/options/options.service';
import { AccountChangedError } from '../../account.errors';
import type { AccountEvent } from '../../account.events';
import { toNewAccountEvent } from '../../account-event-codec';
import { AdjustQuotaByAdminCommand, type AdjustQuotaByAdminInput } from './adjust-quota-by-admin.command';
import { AdjustQuotaByAdminHandler } from './adjust-quota-by-admin.handler';

const options = {
  getBool: (key: string) => key === 'DisplayInCurrencyEnabled',
  getNumber: (key: string) => (key === 'QuotaPerUnit' ? 500000 : 0),
} as unknown as OptionsService;
const annotation = { username: 'bob', quotaDisplay: { inCurrency: true, quotaPerUnit: 500000 } };
const metadata = { correlationId: 'c', reasonCode: 'test', actor: { type: 'system' as const } };

describe('AdjustQuotaByAdminHandler', () => {
  let store: InMemoryEventStore;
  let handler: AdjustQuotaByAdminHandler;

  async function given(...events: AccountEvent[]) {
    for (const event of events) {
      await store.appendToStream(accountStream(7), [toNewAccountEvent(event, { id: crypto.randomUUID(), metadata, annotation })]);
    }
  }
  const when = (input: Partial<AdjustQuotaByAdminInput>) =>
    handler.execute(
      new AdjustQuotaByAdminCommand({
        userId: 7,
        username: 'bob',
        quota: 0,
        adminId: 1,
        actor: { type: 'user', userId: 1, role: 100 },
        correlationId: 'request-1',
        clientIp: '127.0.0.1',
        ...input,
      }),
    );
  const stored = async () => (await store.readStream(accountStream(7))).map((event) => ({ type: event.type, data: event.data }));

  beforeEach(() => {
    store = new InMemoryEventStore();
    handler = new AdjustQuotaByAdminHandler(store, options);
  });

  it('given an account without events, when the admin sets a quota, then it is recorded against 0', async () => {
    const result = await when({ quota: 1000, basisRevision: -1 });
    expect(result.changed).toBe(true);
    expect(await stored()).toEqual([{ type: 'QuotaAdjustedByAdmin', data: { before: 0, after: 1000, adminId: 1, ...annotation } }]);
  });

  it('given the form was filled at the current revision, when the quota changes, then before/after are recorded', async () => {
    await given({ type: 'QuotaGranted', data: { amount: 500, kind: 'new_user' } });
    await when({ quota: 20, basisRevision: 0 });
    expect((await stored())[1]).toEqual({ type: 'QuotaAdjustedByAdmin', data: { before: 500, after: 20, adminId: 1, ...annotation } });
  });

  it('given the account moved since the form was filled, when the admin left the quota alone, then nothing is appended', async () => {
    await given(
      { type: 'QuotaGranted', data: { amount: 500, kind: 'new_user' } },
      { type: 'InviterRewarded', data: { amount: 5, inviteeId: 9 } },
    );
    await given({ type: 'QuotaGranted', data: { amount: 100, kind: 'invitee_gift' } });
    // The form showed 500 (revision 1); the account has 600 now. The admin edited only the display name.
    expect(await when({ quota: 500, basisRevision: 1 })).toEqual({ changed: false, position: 0 });
    expect(await stored()).toHaveLength(3);
  });

  it('given the account moved since the form was filled, when the admin changed the quota, then the edit is refused with the current balance', async () => {
    await given(
      { type: 'QuotaGranted', data: { amount: 500, kind: 'new_user' } },
      { type: 'QuotaGranted', data: { amount: 500000, kind: 'invitee_gift' } },
    );
    const attempt = when({ quota: 42, basisRevision: 0 });
    await expect(attempt).rejects.toBeInstanceOf(AccountChangedError);
    await expect(when({ quota: 42, basisRevision: 0 })).rejects.toThrow(
      '用户额度已在您编辑期间发生变化（当前为 ＄1.001000 额度），请刷新后重新修改',
    );
    expect(await stored()).toHaveLength(2);
  });

  it('given no basis revision (an old client), then the current balance is the basis, as in new-api', async () => {
    await given({ type: 'QuotaGranted', data: { amount: 500, kind: 'new_user' } });
    expect(await when({ quota: 500 })).toEqual({ changed: false, position: 0 });
    expect((await when({ quota: 9 })).changed).toBe(true);
  });

  it('given a writer races the append, then the conflict is answered, not retried', async () => {
    await given({ type: 'QuotaGranted', data: { amount: 500, kind: 'new_user' } });
    const append = store.appendToStream.bind(store);
    let raced = false;
    store.appendToStream = async (stream, events, appendOptions) => {
      if (!raced) {
        raced = true;
        await append(stream, [
          toNewAccountEvent(
            { type: 'QuotaGranted', data: { amount: 1, kind: 'invitee_gift' } },
            { id: crypto.randomUUID(), metadata, annotation },
          ),
        ]);
      }
      return append(stream, events, appendOptions);
    };
    await expect(when({ quota: 9, basisRevision: 0 })).rejects.toThrow('当前为 ＄0.001002 额度');
    expect((await stored()).map((event) => event.type)).toEqual(['QuotaGranted', 'QuotaGranted']);
  });

  it('refuses a basis revision the account never had', async () => {
    await expect(when({ quota: 9, basisRevision: 3 })).rejects.toThrow('无效的参数');
    await expect(when({ quota: 9, basisRevision: -2 })).rejects.toThrow('无效的参数');
  });
});
