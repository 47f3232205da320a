import { LeaseRenewer } from './lease-renewer';

describe('LeaseRenewer', () => {
  afterEach(() => jest.useRealTimers());

  it('renews every held lease with one shared timer, only while something is held', async () => {
    jest.useFakeTimers();
    const renew = jest.fn().mockResolvedValue(true);
    const renewer = new LeaseRenewer(renew, 20_000);
    const timersBefore = jest.getTimerCount();
    for (let index = 0; index < 100; index++) renewer.hold(`req-${index}`, index % 3);
    expect(jest.getTimerCount()).toBe(timersBefore + 1);
    await jest.advanceTimersByTimeAsync(19_999);
    expect(renew).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1);
    expect(renew).toHaveBeenCalledTimes(100);
    expect(renew).toHaveBeenCalledWith('req-4', 1);
    for (let index = 0; index < 99; index++) renewer.release(`req-${index}`);
    await jest.advanceTimersByTimeAsync(20_000);
    expect(renew).toHaveBeenCalledTimes(101);
    expect(renew).toHaveBeenLastCalledWith('req-99', 0);
    renewer.release('req-99');
    expect(renewer.size).toBe(0);
    expect(jest.getTimerCount()).toBe(timersBefore);
  });

  it('keeps renewing the others when one renewal fails, synchronously or not', () => {
    const renew = jest
      .fn()
      .mockRejectedValueOnce(new Error('redis down'))
      .mockImplementationOnce(() => {
        throw new Error('closed');
      })
      .mockResolvedValue(true);
    const renewer = new LeaseRenewer(renew, 1000);
    renewer.hold('a', 1);
    renewer.hold('b', 1);
    renewer.hold('c', 1);
    expect(() => renewer.tick()).not.toThrow();
    expect(renew).toHaveBeenCalledTimes(3);
    renewer.release('a');
    renewer.release('b');
    renewer.release('c');
  });
});
