import { eventMetadata, systemActor, userActor } from '#server/ledger/event-envelope';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { evolveStored } from '#server/modules/accounts/account-event-codec';
import { type AccountState, initialAccountState } from '#server/modules/accounts/account.state';
import { quotaConsumedEvent, quotaConsumedEventId } from '#server/modules/accounts/quota-consumed-event-codec';
import { quotaConsumedFixture } from '#test/support/quota-consumed-fixture';
import {
  type ChargeColumns,
  chargeRefOf,
  STATEMENT_COLUMNS,
  STATEMENT_KINDS,
  statementLine,
  type StatementLine,
  statementLineValues,
} from './statement-line';

const display = { inCurrency: true, quotaPerUnit: 500000 };
let position = 0;

function event(type: string, data: Record<string, unknown>, actor = systemActor(), reasonCode = 'test'): RecordedEvent {
  position += 1;
  return {
    id: `e${position}`,
    streamId: 'account-7',
    revision: position - 1,
    position: position * 10,
    type,
    data: { ...data, username: 'u7', quotaDisplay: display },
    metadata: eventMetadata({ correlationId: `req-${position}`, reasonCode, actor }),
    createdAt: new Date(1_732_600_000_000 + position * 1000),
  };
}

describe('statement lines', () => {
  const history = [
    event('QuotaGranted', { amount: 1000, kind: 'new_user' }, systemActor(), 'password_signup'),
    event('InviterRewarded', { amount: 400, inviteeId: 9 }),
    event('AffiliateQuotaTransferred', { amount: 400 }, userActor(7, 1), 'aff_transfer'),
    event('QuotaConsumed', { quota: 250, tokenId: 3, tokenName: 'main', modelName: 'gpt-4o-mini', requestId: 'r1' }, userActor(7, 1)),
    event('QuotaAdjustedByAdmin', { before: 1150, after: 5000, adminId: 1 }, userActor(1, 100), 'admin_edit'),
    event('QuotaRedeemed', { amount: 300, redemptionId: 12 }, userActor(7, 1), 'redemption_credit'),
    event('QuotaToppedUp', { amount: 700, tradeNo: 'T1', money: 1.4, paymentMethod: 'zfb' }, systemActor(), 'topup_credit'),
    event('QuotaAdjustedByAdmin', { before: 6000, after: 0, adminId: 1 }, userActor(1, 100), 'admin_edit'),
    event('QuotaConsumed', { quota: 40, tokenId: 3, tokenName: 'main', modelName: 'gpt-4o', requestId: 'r2' }, userActor(7, 1)),
    event(
      'QuotaRefunded',
      { amount: 40, tokenId: 3, tokenUnlimited: false, reason: 'banned', taskId: 'r2', upstreamTaskId: 'mj1', platform: 'midjourney' },
      systemActor(),
      'task_failed',
    ),
  ];
  const lines: StatementLine[] = [];
  for (const recorded of history) lines.push(statementLine(recorded, 7, lines.at(-1)?.balance ?? 0));

  it('gives each event its kind, signed delta and the balance after it, with the admin edit as the change it made', () => {
    expect(lines.map((line) => [line.kind, line.delta, line.balance])).toEqual([
      ['gift', 1000, 1000],
      ['invite_reward', 0, 1000],
      ['affiliate_transfer', 400, 1400],
      ['relay_charge', -250, 1150],
      ['admin_adjustment', 3850, 5000],
      ['redemption', 300, 5300],
      ['topup', 700, 6000],
      ['admin_adjustment', -6000, 0],
      ['relay_charge', -40, -40],
      ['refund', 40, 0],
    ]);
  });

  it('chains: each balance minus its delta is the previous balance, the deltas sum to the balance, which is the account fold', () => {
    lines.forEach((line, index) => expect(line.balance - line.delta).toBe(index === 0 ? 0 : lines[index - 1].balance));
    expect(lines.reduce((sum, line) => sum + line.delta, 0)).toBe(lines.at(-1)!.balance);
    const folded = history.reduce<AccountState>(evolveStored, initialAccountState);
    expect(lines.at(-1)!.balance).toBe(folded.quota);
  });

  it('carries the envelope: ledger position as id, ledger time, actor, reason, request id and the reference', () => {
    expect(lines[3]).toEqual({
      position: 40,
      userId: 7,
      revision: 3,
      createdAt: 1_732_600_004,
      kind: 'relay_charge',
      delta: -250,
      balance: 1150,
      actorType: 'user',
      actorId: 7,
      actorRole: 1,
      reason: 'test',
      requestId: 'req-4',
      ref: { token_id: 3, token_name: 'main', model: 'gpt-4o-mini' },
      charge: { quota: 250, tokenId: 3, tokenName: 'main', modelName: 'gpt-4o-mini' },
    });
    expect(lines[0]).toMatchObject({
      actorType: 'system',
      actorId: null,
      actorRole: null,
      reason: 'password_signup',
      ref: { grant: 'new_user' },
    });
    expect(lines[1].ref).toEqual({ invitee_id: 9, aff_amount: 400 });
    expect(lines[4]).toMatchObject({ actorId: 1, actorRole: 100, ref: { before: 1150, after: 5000 } });
    expect(lines[5].ref).toEqual({ code_id: 12 });
    expect(lines[9]).toMatchObject({
      kind: 'refund',
      reason: 'task_failed',
      ref: { task_id: 'r2', platform: 'midjourney', token_id: 3, reason: 'banned' },
    });
  });

  it('lists every kind once, and refuses a charge whose quota is not a safe integer', () => {
    expect(STATEMENT_KINDS).toEqual([
      'gift',
      'invite_reward',
      'affiliate_transfer',
      'admin_adjustment',
      'redemption',
      'topup',
      'refund',
      'relay_charge',
    ]);
    expect(() => statementLine(event('QuotaConsumed', { quota: 1.5 }), 7, 0)).toThrow(/quota/);
    const odd = statementLine(event('QuotaConsumed', { quota: 1, tokenName: 't\u0000k', modelName: `m${'x'.repeat(400)}` }), 7, 0);
    expect(odd.ref).toMatchObject({ token_name: 'tk', model: `m${'x'.repeat(254)}` });
    expect(() => statementLine(event('QuotaGranted', { amount: 'x', kind: 'new_user' }), 7, 0)).toThrow(/amount/);
  });

  it("shows a charge's usage source and end reason in its reference, and invents neither for an older charge", () => {
    const charge = (data: Record<string, unknown>) =>
      statementLine(event('QuotaConsumed', { quota: 9, tokenId: 3, tokenName: 'main', modelName: 'gpt-4o-mini', ...data }), 7, 100);
    expect(charge({ usageSource: 'upstream', endReason: 'client_gone' }).ref).toEqual({
      token_id: 3,
      token_name: 'main',
      model: 'gpt-4o-mini',
      usage_source: 'upstream',
      end_reason: 'client_gone',
    });
    expect(charge({ usageSource: 'estimated', endReason: 'cut_stream' }).ref).toMatchObject({
      usage_source: 'estimated',
      end_reason: 'cut_stream',
    });
    // Written before the fields existed, or with a value this code does not know: the keys are left out.
    expect(charge({}).ref).toEqual({ token_id: 3, token_name: 'main', model: 'gpt-4o-mini' });
    expect(charge({ usageSource: 'guess', endReason: 42 }).ref).toEqual({ token_id: 3, token_name: 'main', model: 'gpt-4o-mini' });
  });

  it.each(['v2', 'v3'] as const)(
    'gives a charge stored compact (%s, no metadata) the same line as the same charge stored whole (v1)',
    (shape) => {
      const data = { ...quotaConsumedFixture('7d1c2a3b-0000-7000-8000-00000000abcd', 7, { quota: 250, tokenId: 3, tokenName: 'main' }) };
      const v1: RecordedEvent = {
        id: quotaConsumedEventId(data.requestId),
        streamId: 'account-7',
        revision: 3,
        position: 40,
        type: 'QuotaConsumed',
        data: data as unknown as Record<string, unknown>,
        metadata: eventMetadata({
          correlationId: data.requestId,
          reasonCode: 'relay_request',
          actor: userActor(7, 10),
          clientIp: '10.1.1.1',
        }),
        createdAt: new Date(1_732_600_004_000),
      };
      const { event } = quotaConsumedEvent(data, { userRole: 10, clientIp: '10.1.1.1' }, shape);
      const compact: RecordedEvent = { ...v1, data: event.data, metadata: event.metadata };
      expect(Object.keys(compact.data)).toEqual([shape]);
      expect(compact.metadata).toEqual({});
      const line = statementLine(compact, 7, 1400);
      expect(line).toEqual(statementLine(v1, 7, 1400));
      expect(line).toMatchObject({
        actorType: 'user',
        actorId: 7,
        actorRole: 10,
        reason: 'relay_request',
        requestId: data.requestId,
        delta: -250,
      });
    },
  );

  describe('stored', () => {
    const stored = (line: StatementLine) =>
      Object.fromEntries(STATEMENT_COLUMNS.map((column, index) => [column, statementLineValues(line)[index]]));
    const charge = (data: Record<string, unknown>, reasonCode = 'relay_request') =>
      statementLine(
        event('QuotaConsumed', { quota: 9, tokenId: 3, tokenName: 'main', modelName: 'gpt-4o-mini', ...data }, userActor(7, 1), reasonCode),
        7,
        100,
      );

    it("keeps a charge compact, its ref in columns and the relay's reason left out, and reads them back as the same ref", () => {
      const variants = [
        charge({}),
        charge({ usageSource: 'upstream', endReason: 'completed' }),
        charge({ usageSource: 'estimated', endReason: 'cut_stream' }),
        charge({ endReason: 'client_gone' }),
        charge({ tokenName: '', modelName: '' }),
      ];
      for (const line of variants) {
        const row = stored(line);
        expect(row).toMatchObject({
          kind: 'relay_charge',
          ref: null,
          reason: null,
          token_id: 3,
          request_id: line.requestId,
          request_uuid: null,
        });
        expect(chargeRefOf(row as unknown as ChargeColumns)).toEqual(line.ref);
      }
      expect(stored(variants[2])).toMatchObject({ usage_source: 1, end_reason: 4, token_name: 'main', model: 'gpt-4o-mini' });
      expect(stored(variants[0])).toMatchObject({ usage_source: null, end_reason: null });
    });

    it('keeps the reason of a charge recorded with another one, and the whole ref of a charge whose token id no column holds', () => {
      expect(stored(charge({}, 'manual'))).toMatchObject({ reason: 'manual', ref: null, token_id: 3 });
      const odd = charge({ tokenId: 2 ** 40 });
      expect(stored(odd)).toMatchObject({ reason: 'relay_request', ref: odd.ref, token_id: null, token_name: null, model: null });
      expect(odd.ref.token_id).toBe(2 ** 40);
    });

    it('stores a request id that is a uuid as Postgres writes one in request_uuid, any other as text', () => {
      const id = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
      const withId = (requestId: string) => ({ ...charge({}), requestId });
      expect(stored(withId(id))).toMatchObject({ request_id: null, request_uuid: id });
      expect(stored({ ...lines[0], requestId: id })).toMatchObject({ request_id: null, request_uuid: id, ref: { grant: 'new_user' } });
      for (const other of [id.toUpperCase(), `{${id}}`, id.replace(/-/g, ''), 'req-1', ''])
        expect(stored(withId(other))).toMatchObject({ request_id: other, request_uuid: null });
    });

    it('keeps every other line with its ref and no charge columns', () => {
      for (const line of lines.filter((entry) => entry.kind !== 'relay_charge')) {
        expect(stored(line)).toMatchObject({
          reason: line.reason,
          ref: line.ref,
          token_id: null,
          token_name: null,
          model: null,
          usage_source: null,
          end_reason: null,
        });
      }
    });
  });
});
