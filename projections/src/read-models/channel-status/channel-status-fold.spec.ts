import { applyChannelEvent, applyChannelUsage, emptyChannelStatus, otherInfoOf } from './channel-status-fold';

describe('channel status fold', () => {
  it('records automatic decisions with their reason and time, and admin switches without', () => {
    const auto = applyChannelEvent(
      emptyChannelStatus,
      { type: 'ChannelAutoDisabled', data: { reasonCode: 'upstream_unauthorized', message: 'invalid key', evidence: { status: 401 } } },
      1000,
    );
    expect(auto).toMatchObject({ status: 3, statusReason: 'invalid key', statusTime: 1000 });
    expect(otherInfoOf(auto)).toBe('{"status_reason":"invalid key","status_time":1000}');
    const manual = applyChannelEvent(auto, { type: 'ChannelDisabled', data: { previousStatus: 3 } }, 2000);
    expect(manual).toMatchObject({ status: 2, statusReason: 'invalid key', statusTime: 1000 });
    const enabled = applyChannelEvent(manual, { type: 'ChannelEnabled', data: { previousStatus: 2 } }, 3000);
    expect(enabled.status).toBe(1);
  });

  it('keeps the last test and balance with their times, and leaves other_info empty without decisions', () => {
    const tested = applyChannelEvent(
      emptyChannelStatus,
      { type: 'ChannelTested', data: { ok: false, responseTimeMs: 1234, model: 'm', error: 'x' } },
      50,
    );
    const funded = applyChannelEvent(tested, { type: 'ChannelBalanceUpdated', data: { balance: 12.5 } }, 60);
    expect(funded).toMatchObject({ status: 1, responseTime: 1234, testTime: 50, balance: 12.5, balanceUpdatedTime: 60 });
    expect(otherInfoOf(funded)).toBe('');
  });

  it('adds each charge to the used quota', () => {
    expect([10, 0, 5].reduce(applyChannelUsage, emptyChannelStatus).usedQuota).toBe(15);
  });
});
