import type { Queue } from 'bullmq';
import type { ChannelOutcome, ChannelOutcomeJob } from './channel-outcome';
import { ChannelOutcomeReporter } from './channel-outcome-reporter';

const ok = (channelId: number, status = 200): ChannelOutcome => ({
  channelId,
  ok: true,
  status,
  errorCode: null,
  message: '',
  source: 'relay',
});
const failure = (channelId: number, status = 502): ChannelOutcome => ({
  channelId,
  ok: false,
  status,
  errorCode: null,
  message: 'Bad gateway',
  source: 'relay',
});

function reporterWithQueue(add: jest.Mock = jest.fn().mockResolvedValue({})) {
  const queue = { add } as unknown as Queue<ChannelOutcomeJob>;
  return { reporter: new ChannelOutcomeReporter(queue), add, jobs: () => add.mock.calls.map(([, data]) => data as ChannelOutcomeJob) };
}

describe('ChannelOutcomeReporter', () => {
  afterEach(() => jest.useRealTimers());

  it('counts relay successes in process and sends one job per channel per flush, never one per request', async () => {
    jest.useFakeTimers();
    const { reporter, add, jobs } = reporterWithQueue();
    for (let index = 0; index < 500; index++) reporter.report(ok(1));
    for (let index = 0; index < 3; index++) reporter.report(ok(2, 201));
    expect(add).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1000);
    expect(jobs()).toEqual([
      { channelId: 1, ok: true, status: 200, errorCode: null, message: '', source: 'relay', count: 500 },
      { channelId: 2, ok: true, status: 201, errorCode: null, message: '', source: 'relay', count: 3 },
    ]);
    await jest.advanceTimersByTimeAsync(5000);
    expect(add).toHaveBeenCalledTimes(2);
  });

  it('queues a failure at once, carrying the successes of its channel not sent yet', async () => {
    const { reporter, jobs } = reporterWithQueue();
    for (let index = 0; index < 40; index++) reporter.report(ok(7));
    reporter.report(ok(8));
    reporter.report(failure(7));
    expect(jobs()).toEqual([
      { channelId: 7, ok: false, status: 502, errorCode: null, message: 'Bad gateway', source: 'relay', precedingSuccesses: 40 },
    ]);
    reporter.report(failure(7));
    expect(jobs()[1]).not.toHaveProperty('precedingSuccesses');
    await reporter.flush();
    expect(jobs()[2]).toMatchObject({ channelId: 8, ok: true, count: 1 });
    expect(jobs()).toHaveLength(3);
  });

  it("carries the upstream error's type beside its code (the decider matches both), and no type key when none", () => {
    const { reporter, jobs } = reporterWithQueue();
    reporter.report({ ...failure(7), status: 400, errorCode: 'key_revoked', errorType: 'authentication_error' });
    reporter.report(failure(7));
    expect(jobs()[0]).toMatchObject({ errorCode: 'key_revoked', errorType: 'authentication_error' });
    expect(jobs()[1]).not.toHaveProperty('errorType');
  });

  it('queues test outcomes at once, successes included (a test may re-enable a channel)', () => {
    const { reporter, jobs } = reporterWithQueue();
    reporter.report({ ...ok(3), source: 'test' });
    expect(jobs()).toEqual([{ channelId: 3, ok: true, status: 200, errorCode: null, message: '', source: 'test' }]);
  });

  it('sends what is pending before the application shuts down', async () => {
    const { reporter, jobs } = reporterWithQueue();
    reporter.report(ok(4));
    reporter.report(ok(4));
    await reporter.beforeApplicationShutdown();
    expect(jobs()).toEqual([{ channelId: 4, ok: true, status: 200, errorCode: null, message: '', source: 'relay', count: 2 }]);
  });

  it('never throws when the queue refuses, synchronously or not', async () => {
    const rejecting = reporterWithQueue(jest.fn().mockRejectedValue(new Error('redis down')));
    expect(() => rejecting.reporter.report(failure(5))).not.toThrow();
    rejecting.reporter.report(ok(5));
    await expect(rejecting.reporter.flush()).resolves.toBeUndefined();
    const throwing = reporterWithQueue(
      jest.fn(() => {
        throw new Error('closed');
      }),
    );
    expect(() => throwing.reporter.report(failure(6))).not.toThrow();
    expect(throwing.add).toHaveBeenCalledTimes(1);
  });
});
