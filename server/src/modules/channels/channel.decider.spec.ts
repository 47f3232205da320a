import { decide, fold, initialChannelState } from './channel.decider';
import type { ChannelEvent } from './channel.events';

const autoDisabled: ChannelEvent = {
  type: 'ChannelAutoDisabled',
  data: { reasonCode: 'upstream_unauthorized', message: 'Incorrect API key', evidence: { status: 401 } },
};
const decision = { reasonCode: 'test_passed', message: '', evidence: { responseTimeMs: 120 } };

describe('channel decider', () => {
  describe('admin switches', () => {
    it('given an enabled channel, disabling it records ChannelDisabled and enabling it changes nothing', () => {
      expect(decide({ type: 'DisableChannel' }, initialChannelState)).toEqual([{ type: 'ChannelDisabled', data: { previousStatus: 1 } }]);
      expect(decide({ type: 'EnableChannel' }, initialChannelState)).toEqual([]);
    });

    it('given a manually disabled channel, disabling again changes nothing and enabling records ChannelEnabled', () => {
      const state = fold([{ type: 'ChannelDisabled', data: { previousStatus: 1 } }]);
      expect(state.status).toBe(2);
      expect(decide({ type: 'DisableChannel' }, state)).toEqual([]);
      expect(decide({ type: 'EnableChannel' }, state)).toEqual([{ type: 'ChannelEnabled', data: { previousStatus: 2 } }]);
    });

    it('given an auto-disabled channel, an admin disable makes it manual so no test revives it', () => {
      const state = fold([autoDisabled]);
      const events = decide({ type: 'DisableChannel' }, state);
      expect(events).toEqual([{ type: 'ChannelDisabled', data: { previousStatus: 3 } }]);
      expect(decide({ type: 'AutoEnableChannel', ...decision }, fold(events, state))).toEqual([]);
    });
  });

  describe('automatic decisions', () => {
    it('auto-disables only an enabled channel, keeping the reason and the evidence', () => {
      const command = { type: 'AutoDisableChannel' as const, ...autoDisabled.data };
      expect(decide(command, initialChannelState)).toEqual([autoDisabled]);
      expect(decide(command, fold([autoDisabled]))).toEqual([]);
      expect(decide(command, fold([{ type: 'ChannelDisabled', data: { previousStatus: 1 } }]))).toEqual([]);
    });

    it('auto-enables only an auto-disabled channel', () => {
      expect(decide({ type: 'AutoEnableChannel', ...decision }, fold([autoDisabled]))).toEqual([{ type: 'ChannelAutoEnabled', data: decision }]);
      expect(decide({ type: 'AutoEnableChannel', ...decision }, initialChannelState)).toEqual([]);
      expect(fold([autoDisabled, { type: 'ChannelAutoEnabled', data: decision }]).status).toBe(1);
    });
  });

  describe('tests and balances', () => {
    it('records every test and balance without changing the status', () => {
      const state = fold([autoDisabled]);
      const tested = decide({ type: 'RecordChannelTest', ok: false, responseTimeMs: 5300, model: 'gpt-4o-mini', error: 'timeout' }, state);
      expect(tested).toEqual([{ type: 'ChannelTested', data: { ok: false, responseTimeMs: 5300, model: 'gpt-4o-mini', error: 'timeout' } }]);
      const funded = decide({ type: 'RecordChannelBalance', balance: 3.25 }, state);
      expect(funded).toEqual([{ type: 'ChannelBalanceUpdated', data: { balance: 3.25 } }]);
      expect(fold([...tested, ...funded], state)).toEqual(state);
    });

    it('refuses figures that are not numbers', () => {
      expect(() => decide({ type: 'RecordChannelBalance', balance: Number.NaN }, initialChannelState)).toThrow('无效的参数');
      expect(() => decide({ type: 'RecordChannelTest', ok: true, responseTimeMs: -1, model: '', error: null }, initialChannelState)).toThrow(
        '无效的参数',
      );
    });
  });
});
