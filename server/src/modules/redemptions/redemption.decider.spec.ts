import { deciderSpec } from '#test/support/decider-spec';
import { decide, evolve, initialRedemptionState } from './redemption.decider';
import { RedeemFailedError, RedemptionCodeUsedError, RedemptionNotFoundError } from './redemption.errors';
import type { RedemptionEvent } from './redemption.events';

const { given } = deciderSpec({ decide, evolve, initialState: initialRedemptionState });

const issue = {
  type: 'IssueRedemptionCode',
  id: 7,
  key: 'a'.repeat(32),
  name: 'gift',
  quota: 500,
  creatorId: 1,
  createdTime: 100,
} as const;
const issued: RedemptionEvent = {
  type: 'RedemptionCodeIssued',
  data: { id: 7, key: 'a'.repeat(32), name: 'gift', quota: 500, creatorId: 1, createdTime: 100 },
};
const redeem = { type: 'RedeemRedemptionCode', userId: 3, username: 'carol', redeemedTime: 200 } as const;
const redeemed: RedemptionEvent = { type: 'RedemptionCodeRedeemed', data: { userId: 3, username: 'carol', quota: 500, redeemedTime: 200 } };
const disabled: RedemptionEvent = { type: 'RedemptionCodeDisabled', data: {} };
const deleted: RedemptionEvent = { type: 'RedemptionCodeDeleted', data: {} };

describe('redemption decider', () => {
  it('issues a code once; a retried issue of the same id is a no-op', () => {
    given([]).when(issue).then([issued]);
    given([issued]).when(issue).then([]);
  });

  it('redeems an unused code for its current quota, and the fold marks it used by that user', () => {
    given([issued, { type: 'RedemptionCodeEdited', data: { name: 'gift', quota: 900 } }])
      .when(redeem)
      .then([{ type: 'RedemptionCodeRedeemed', data: { userId: 3, username: 'carol', quota: 900, redeemedTime: 200 } }]);
    expect(given([issued, redeemed]).state).toMatchObject({ status: 3, usedUserId: 3, redeemedTime: 200 });
  });

  it('refuses to redeem a used, a disabled (same text) or a deleted or unknown code, with new-api messages', () => {
    given([issued, redeemed]).when(redeem).thenThrows(RedeemFailedError, '兑换失败，该兑换码已被使用');
    given([issued, disabled]).when(redeem).thenThrows(RedeemFailedError, '兑换失败，该兑换码已被使用');
    given([issued, deleted]).when(redeem).thenThrows(RedeemFailedError, '兑换失败，无效的兑换码');
    given([]).when(redeem).thenThrows(RedeemFailedError, '兑换失败，无效的兑换码');
  });

  it('edits name and quota of an unused or disabled code; an unchanged edit appends nothing', () => {
    given([issued])
      .when({ type: 'EditRedemptionCode', name: 'x', quota: 1 })
      .then([{ type: 'RedemptionCodeEdited', data: { name: 'x', quota: 1 } }]);
    given([issued, disabled])
      .when({ type: 'EditRedemptionCode', name: 'x', quota: 500 })
      .then([{ type: 'RedemptionCodeEdited', data: { name: 'x', quota: 500 } }]);
    given([issued]).when({ type: 'EditRedemptionCode', name: 'gift', quota: 500 }).then([]);
  });

  it('disables and enables; the same status again appends nothing', () => {
    given([issued]).when({ type: 'ChangeRedemptionCodeStatus', status: 2 }).then([disabled]);
    given([issued, disabled])
      .when({ type: 'ChangeRedemptionCodeStatus', status: 1 })
      .then([{ type: 'RedemptionCodeEnabled', data: {} }]);
    given([issued]).when({ type: 'ChangeRedemptionCodeStatus', status: 1 }).then([]);
    given([issued, disabled]).when({ type: 'ChangeRedemptionCodeStatus', status: 2 }).then([]);
  });

  it('refuses to edit, enable or disable a used code (new-api allowed it, so a code could be redeemed twice)', () => {
    given([issued, redeemed])
      .when({ type: 'EditRedemptionCode', name: 'x', quota: 1 })
      .thenThrows(RedemptionCodeUsedError, '兑换码已被使用，无法编辑');
    given([issued, redeemed])
      .when({ type: 'ChangeRedemptionCodeStatus', status: 1 })
      .thenThrows(RedemptionCodeUsedError, '兑换码已被使用，无法启用或禁用');
    given([issued, redeemed]).when({ type: 'ChangeRedemptionCodeStatus', status: 2 }).thenThrows(RedemptionCodeUsedError);
  });

  it('soft-deletes once; a deleted or unknown code is not found for every admin change', () => {
    given([issued, redeemed]).when({ type: 'DeleteRedemptionCode' }).then([deleted]);
    for (const events of [[], [issued, deleted]]) {
      given(events).when({ type: 'DeleteRedemptionCode' }).thenThrows(RedemptionNotFoundError, 'record not found');
      given(events).when({ type: 'EditRedemptionCode', name: 'x', quota: 1 }).thenThrows(RedemptionNotFoundError);
      given(events).when({ type: 'ChangeRedemptionCodeStatus', status: 2 }).thenThrows(RedemptionNotFoundError);
    }
  });
});
