import { WaitingChargeLeases } from './waiting-charge-leases';

describe('WaitingChargeLeases', () => {
  afterEach(() => jest.useRealTimers());

  it('renews nothing for charges that ship at once, and stops its one timer once nothing waits', async () => {
    jest.useFakeTimers();
    const renew = jest.fn().mockResolvedValue(1);
    const leases = new WaitingChargeLeases(renew, 20_000);
    const timersBefore = jest.getTimerCount();
    for (let index = 0; index < 50; index++) {
      leases.add(`req-${index}`, index % 3);
      await jest.advanceTimersByTimeAsync(5);
      leases.remove(`req-${index}`);
    }
    expect(jest.getTimerCount()).toBe(timersBefore + 1);
    await jest.advanceTimersByTimeAsync(30_000);
    expect(renew).not.toHaveBeenCalled();
    expect(jest.getTimerCount()).toBe(timersBefore);
  });

  it('renews a waiting charge within one interval of its handover, then at least every interval, one call per user', async () => {
    jest.useFakeTimers();
    const renew = jest.fn().mockResolvedValue(1);
    const leases = new WaitingChargeLeases(renew, 20_000);
    // The timer ticks every 10 s: a charge added just after a tick is due 10 s later, renewed at the next tick.
    leases.add('a', 1);
    await jest.advanceTimersByTimeAsync(1);
    leases.add('b', 1);
    leases.add('c', 2);
    await jest.advanceTimersByTimeAsync(9_999);
    expect(renew).toHaveBeenCalledTimes(1);
    expect(renew).toHaveBeenCalledWith(1, ['a']);
    // At the next tick `a` is renewed again (every 10 s from then on, well inside a 60 s lease) and `b` and `c` are
    // due: one call per user.
    await jest.advanceTimersByTimeAsync(10_000);
    expect(renew.mock.calls.slice(1)).toEqual([
      [1, ['a', 'b']],
      [2, ['c']],
    ]);
    renew.mockClear();
    await jest.advanceTimersByTimeAsync(10_000);
    expect(renew.mock.calls).toEqual([
      [1, ['a', 'b']],
      [2, ['c']],
    ]);
    leases.remove('a');
    leases.remove('c');
    renew.mockClear();
    await jest.advanceTimersByTimeAsync(10_000);
    expect(renew.mock.calls).toEqual([[1, ['b']]]);
    leases.stop();
    renew.mockClear();
    await jest.advanceTimersByTimeAsync(60_000);
    expect(renew).not.toHaveBeenCalled();
    expect(leases.size).toBe(0);
  });

  it('keeps renewing after failed renewals, synchronous or not', async () => {
    jest.useFakeTimers();
    const renew = jest
      .fn()
      .mockRejectedValueOnce(new Error('redis down'))
      .mockImplementationOnce(() => {
        throw new Error('closed');
      })
      .mockResolvedValue(1);
    const leases = new WaitingChargeLeases(renew, 1_000);
    leases.add('a', 1);
    leases.add('b', 2);
    await jest.advanceTimersByTimeAsync(500);
    expect(renew).toHaveBeenCalledTimes(2);
    await jest.advanceTimersByTimeAsync(500);
    expect(renew).toHaveBeenCalledTimes(4);
    leases.stop();
  });
});
