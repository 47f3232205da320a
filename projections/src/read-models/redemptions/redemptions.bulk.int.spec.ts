import { redemptionStream } from '#server/ledger/streams';
import { decide, evolve, initialRedemptionState } from '#server/modules/redemptions/redemption.decider';
import { RedemptionStatus } from '#server/modules/redemptions/redemption.events';
import { toNewRedemptionEvent } from '#server/modules/redemptions/redemption-event-codec';
import { describeBulkEquivalence } from '../../../test/bulk-equivalence';
import { decidedStream } from '../../../test/decided-stream';
import { BASE_TIME, LedgerBuilder } from '../../../test/mixed-ledger';
import { RedemptionsProjection } from './redemptions.projection';

const projection = new RedemptionsProjection();
const aggregate = { decide, evolve, initial: initialRedemptionState, encode: toNewRedemptionEvent };

describeBulkEquivalence(projection, ['redemptions'], (context) => {
  it('given codes issued, edited, disabled, enabled, redeemed and deleted, then both give the same rows, the deletion at its event time', async () => {
    const b = new LedgerBuilder('codes');
    const code = (id: number) => decidedStream(b, redemptionStream(id), aggregate);
    const issue = (id: number) => ({
      type: 'IssueRedemptionCode' as const,
      id,
      key: `k${id}`.padEnd(32, 'x'),
      name: `promo ${id}`,
      quota: 1000 * id,
      creatorId: 1,
      createdTime: BASE_TIME,
    });
    const [one, two, three] = [code(1), code(2), code(3)];
    const events = [
      ...one(issue(1)),
      ...two(issue(2)),
      ...one({ type: 'EditRedemptionCode', name: 'renamed', quota: 5 }),
      ...three(issue(3)),
      ...two({ type: 'ChangeRedemptionCodeStatus', status: RedemptionStatus.Disabled }),
      ...one({ type: 'RedeemRedemptionCode', userId: 7, username: 'u7', redeemedTime: BASE_TIME + 60 }),
      ...two({ type: 'ChangeRedemptionCodeStatus', status: RedemptionStatus.Unused }),
      ...three({ type: 'DeleteRedemptionCode' }),
      ...two({ type: 'EditRedemptionCode', name: 'last', quota: 9 }),
    ];
    expect(new Set(events.map((event) => event.type)).size).toBe(6);
    await context.expectSameRows(events);
    const rows = await context.bulk.query(
      'SELECT id, user_id, status, name, quota::int, used_user_id, deleted_at, revision FROM redemptions ORDER BY id',
    );
    const deletion = events.find((event) => event.type === 'RedemptionCodeDeleted')!;
    expect(rows).toEqual([
      { id: 1, user_id: 1, status: RedemptionStatus.Used, name: 'renamed', quota: 5, used_user_id: 7, deleted_at: null, revision: 2 },
      { id: 2, user_id: 1, status: RedemptionStatus.Unused, name: 'last', quota: 9, used_user_id: 0, deleted_at: null, revision: 3 },
      {
        id: 3,
        user_id: 1,
        status: RedemptionStatus.Unused,
        name: 'promo 3',
        quota: 3000,
        used_user_id: 0,
        deleted_at: deletion.createdAt,
        revision: 1,
      },
    ]);
  });
});
