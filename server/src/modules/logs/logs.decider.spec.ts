import { statelessDeciderSpec } from '#test/support/decider-spec';
import { decide } from './logs.decider';
import { TargetTimestampRequiredError } from './logs.errors';
import { toLogsPurged } from './logs.events';

const { given } = statelessDeciderSpec(decide);

describe('logs decider', () => {
  it('purges the rows older than the timestamp, recording who asked', () => {
    given([])
      .when({ type: 'PurgeLogs', targetTimestamp: 1_732_400_000, adminId: 3 })
      .then([{ type: 'LogsPurged', data: { before: 1_732_400_000, adminId: 3 } }]);
  });

  it('refuses a missing (0) timestamp with the new-api message', () => {
    given([])
      .when({ type: 'PurgeLogs', targetTimestamp: 0, adminId: 3 })
      .thenThrows(TargetTimestampRequiredError, 'target timestamp is required');
  });

  it('records nothing for a negative timestamp (no row is that old)', () => {
    given([]).when({ type: 'PurgeLogs', targetTimestamp: -5, adminId: 3 }).then([]);
  });

  it('reads a stored purge back, refusing one without a usable timestamp', () => {
    expect(toLogsPurged({ before: 10, adminId: 1 })).toEqual({ before: 10, adminId: 1 });
    expect(toLogsPurged({ before: 10 })).toEqual({ before: 10, adminId: 0 });
    expect(() => toLogsPurged({ before: '10' })).toThrow(/before/);
  });
});
