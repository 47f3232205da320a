import { quotaConsumedEndReason, quotaConsumedUsageSource } from './quota-consumed-event-codec';
import { CHARGE_END_REASONS, USAGE_SOURCES } from './quota-consumed.event';

describe('QuotaConsumed codec: usage source and end reason', () => {
  it('reads every recorded value back as written', () => {
    for (const source of USAGE_SOURCES) expect(quotaConsumedUsageSource({ usageSource: source })).toBe(source);
    for (const reason of CHARGE_END_REASONS) expect(quotaConsumedEndReason({ endReason: reason })).toBe(reason);
    expect(CHARGE_END_REASONS).toEqual(['completed', 'client_gone', 'upstream_error', 'timeout', 'cut_stream']);
  });

  it('reads an event written before the fields existed as unknown, whatever its counts suggest', () => {
    const old = { requestId: 'r1', quota: 19, promptTokens: 12, completionTokens: 7, content: '模型倍率 0.25' };
    expect(quotaConsumedUsageSource(old)).toBeUndefined();
    expect(quotaConsumedEndReason(old)).toBeUndefined();
  });

  it('reads a value it does not know (another spelling, another type) as unknown rather than failing', () => {
    for (const odd of ['Upstream', 'local', '', 1, null, true, ['upstream'], { source: 'upstream' }]) {
      expect(quotaConsumedUsageSource({ usageSource: odd })).toBeUndefined();
      expect(quotaConsumedEndReason({ endReason: odd })).toBeUndefined();
    }
  });
});
