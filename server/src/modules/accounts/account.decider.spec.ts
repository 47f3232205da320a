import { decide, evolve, fold, initialAccountState, type AccountCommand } from './account.decider';
import { AffiliateTransferBelowMinimumError, InsufficientAffiliateQuotaError, InvalidAmountError } from './account.errors';
import type { AccountEvent } from './account.events';
import { deciderSpec } from '#test/support/decider-spec';

const display = { inCurrency: true, quotaPerUnit: 500000 };

const { given } = deciderSpec({ decide, evolve, initialState: initialAccountState });

const granted = (amount: number, kind: 'new_user' | 'invitee_gift' | 'root_initial' = 'new_user'): AccountEvent => ({
  type: 'QuotaGranted',
  data: { amount, kind },
});
const rewarded = (amount: number, inviteeId = 7): AccountEvent => ({ type: 'InviterRewarded', data: { amount, inviteeId } });

describe('account decider', () => {
  describe('GrantQuota', () => {
    it('grants a positive amount', () => {
      given([])
        .when({ type: 'GrantQuota', amount: 1000, kind: 'new_user' })
        .then([granted(1000)]);
    });
    it('grants nothing for a zero option (no event, no log)', () => {
      given([]).when({ type: 'GrantQuota', amount: 0, kind: 'invitee_gift' }).then([]);
    });
    it('refuses a non-integer amount as a programming error', () => {
      given([]).when({ type: 'GrantQuota', amount: 1.5, kind: 'new_user' }).thenThrows(InvalidAmountError);
    });
  });

  describe('RewardInviter', () => {
    it('rewards into pending earnings', () => {
      given([granted(10)])
        .when({ type: 'RewardInviter', amount: 300, inviteeId: 9 })
        .then([rewarded(300, 9)]);
    });
    it('does nothing (and so does not count the invitee) when QuotaForInviter is 0', () => {
      given([]).when({ type: 'RewardInviter', amount: 0, inviteeId: 9 }).then([]);
    });
  });

  describe('TransferAffiliateQuota', () => {
    const transfer = (amount: number): AccountCommand => ({ type: 'TransferAffiliateQuota', amount, minimum: 500000, display });

    it('moves pending earnings into quota', () => {
      given([rewarded(600000)])
        .when(transfer(500000))
        .then([{ type: 'AffiliateQuotaTransferred', data: { amount: 500000 } }]);
    });
    it('allows moving exactly everything', () => {
      given([rewarded(500000), rewarded(500000)])
        .when(transfer(1000000))
        .then([{ type: 'AffiliateQuotaTransferred', data: { amount: 1000000 } }]);
    });
    it('refuses less than one unit, wording the minimum like a log line', () => {
      given([rewarded(5000000)])
        .when(transfer(499999))
        .thenThrows(AffiliateTransferBelowMinimumError, '划转失败 转移额度最小为＄1.000000 额度！');
    });
    it('refuses a negative amount with the minimum message (it is below the minimum)', () => {
      given([rewarded(5000000)])
        .when(transfer(-500000))
        .thenThrows(AffiliateTransferBelowMinimumError);
    });
    it('words the minimum in points when currency display is off', () => {
      given([])
        .when({ type: 'TransferAffiliateQuota', amount: 1, minimum: 500000, display: { inCurrency: false, quotaPerUnit: 500000 } })
        .thenThrows(AffiliateTransferBelowMinimumError, '划转失败 转移额度最小为500000 点额度！');
    });
    it('refuses more than the pending earnings', () => {
      given([rewarded(600000)])
        .when(transfer(700000))
        .thenThrows(InsufficientAffiliateQuotaError, '划转失败 邀请额度不足！');
    });
    it('checks the minimum before the balance, as new-api does', () => {
      given([]).when(transfer(1)).thenThrows(AffiliateTransferBelowMinimumError);
    });
    it('cannot spend earnings that were already transferred', () => {
      given([rewarded(500000), { type: 'AffiliateQuotaTransferred', data: { amount: 500000 } }])
        .when(transfer(500000))
        .thenThrows(InsufficientAffiliateQuotaError);
    });
  });

  describe('AdjustQuotaByAdmin', () => {
    it('records the balance it was decided against and the new one', () => {
      given([granted(1000), rewarded(50)])
        .when({ type: 'AdjustQuotaByAdmin', after: 250, adminId: 1 })
        .then([{ type: 'QuotaAdjustedByAdmin', data: { before: 1000, after: 250, adminId: 1 } }]);
    });
    it('allows setting quota to 0 (zero values are written)', () => {
      given([granted(1000)])
        .when({ type: 'AdjustQuotaByAdmin', after: 0, adminId: 1 })
        .then([{ type: 'QuotaAdjustedByAdmin', data: { before: 1000, after: 0, adminId: 1 } }]);
    });
    it('records nothing when the quota does not change', () => {
      given([granted(1000)])
        .when({ type: 'AdjustQuotaByAdmin', after: 1000, adminId: 1 })
        .then([]);
    });
  });

  describe('evolve', () => {
    it('folds every event type into the balances the console shows', () => {
      const state = fold([
        granted(100000000, 'root_initial'),
        rewarded(300),
        rewarded(200),
        { type: 'AffiliateQuotaTransferred', data: { amount: 400 } },
        granted(5, 'invitee_gift'),
      ]);
      expect(state).toEqual({ ...initialAccountState, quota: 100000405, affCount: 2, affQuota: 100, affHistoryQuota: 500 });
    });
    it('sets (not adds) the admin-adjusted quota', () => {
      expect(
        evolve({ ...initialAccountState, quota: 70 }, { type: 'QuotaAdjustedByAdmin', data: { before: 70, after: 9, adminId: 1 } }).quota,
      ).toBe(9);
    });
    it('never mutates the state it is given', () => {
      const state = { ...initialAccountState };
      evolve(state, granted(5));
      expect(state).toEqual(initialAccountState);
    });
  });
});
