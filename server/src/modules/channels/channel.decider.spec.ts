import { deciderSpec } from '#test/support/decider-spec';
import { decide, evolve, fold, initialChannelState } from './channel.decider';
import type { ChannelEvent } from './channel.events';

const { given } = deciderSpec({ decide, evolve, initialState: initialChannelState });

const autoDisabled: ChannelEvent = {
  type: 'ChannelAutoDisabled',
  data: { reasonCode: 'upstream_unauthorized', message: 'Incorrect API key', evidence: { status: 401 } },
};
const manuallyDisabled: ChannelEvent = { type: 'ChannelDisabled', data: { previousStatus: 1 } };
const decision = { reasonCode: 'test_passed', message: '', evidence: { responseTimeMs: 120 } };

describe('channel decider', () => {
  describe('admin switches', () => {
    it('given an enabled channel, disabling it records ChannelDisabled and enabling it changes nothing', () => {
      given([])
        .when({ type: 'DisableChannel' })
        .then([{ type: 'ChannelDisabled', data: { previousStatus: 1 } }]);
      given([]).when({ type: 'EnableChannel' }).then([]);
    });

    it('given a manually disabled channel, disabling again changes nothing and enabling records ChannelEnabled', () => {
      const disabled = given([manuallyDisabled]);
      expect(disabled.state.status).toBe(2);
      disabled.when({ type: 'DisableChannel' }).then([]);
      disabled.when({ type: 'EnableChannel' }).then([{ type: 'ChannelEnabled', data: { previousStatus: 2 } }]);
    });

    it('given an auto-disabled channel, an admin disable makes it manual so no test revives it', () => {
      const events = given([autoDisabled])
        .when({ type: 'DisableChannel' })
        .then([{ type: 'ChannelDisabled', data: { previousStatus: 3 } }]);
      given([autoDisabled, ...events])
        .when({ type: 'AutoEnableChannel', ...decision })
        .then([]);
    });
  });

  describe('automatic decisions', () => {
    it('auto-disables only an enabled channel, keeping the reason and the evidence', () => {
      const command = { type: 'AutoDisableChannel' as const, ...autoDisabled.data };
      given([]).when(command).then([autoDisabled]);
      given([autoDisabled]).when(command).then([]);
      given([manuallyDisabled]).when(command).then([]);
    });

    it('auto-enables only an auto-disabled channel', () => {
      given([autoDisabled])
        .when({ type: 'AutoEnableChannel', ...decision })
        .then([{ type: 'ChannelAutoEnabled', data: decision }]);
      given([])
        .when({ type: 'AutoEnableChannel', ...decision })
        .then([]);
      expect(fold([autoDisabled, { type: 'ChannelAutoEnabled', data: decision }]).status).toBe(1);
    });
  });

  describe('tests and balances', () => {
    it('records every test and balance without changing the status', () => {
      const disabled = given([autoDisabled]);
      const tested = disabled
        .when({ type: 'RecordChannelTest', ok: false, responseTimeMs: 5300, model: 'gpt-4o-mini', error: 'timeout' })
        .then([{ type: 'ChannelTested', data: { ok: false, responseTimeMs: 5300, model: 'gpt-4o-mini', error: 'timeout' } }]);
      const funded = disabled
        .when({ type: 'RecordChannelBalance', balance: 3.25 })
        .then([{ type: 'ChannelBalanceUpdated', data: { balance: 3.25 } }]);
      expect(given([autoDisabled, ...tested, ...funded]).state).toEqual(disabled.state);
    });

    it('refuses figures that are not numbers', () => {
      given([]).when({ type: 'RecordChannelBalance', balance: Number.NaN }).thenThrows('无效的参数');
      given([]).when({ type: 'RecordChannelTest', ok: true, responseTimeMs: -1, model: '', error: null }).thenThrows('无效的参数');
    });
  });
});
