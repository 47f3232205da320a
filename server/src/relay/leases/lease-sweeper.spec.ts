import type { QuotaAdmissionService } from '../admission/quota-admission.service';
import { LeaseSweeper, SWEEP_STOP_WAIT_MS } from './lease-sweeper';

function admissionDouble(sweep: (now: number) => Promise<number>) {
  const calls: number[] = [];
  const admission = { sweepExpired: (now: number) => (calls.push(now), sweep(now)) } as unknown as QuotaAdmissionService;
  return { admission, calls };
}

describe('LeaseSweeper', () => {
  it('sweeps on its interval only when enabled (the worker role)', async () => {
    const enabled = admissionDouble(async () => 2);
    const sweeper = new LeaseSweeper(enabled.admission, true, 10);
    sweeper.onApplicationBootstrap();
    // Two sweeps on a 10 ms interval; waited for rather than timed, so a loaded machine (parallel suites) cannot fail it.
    const deadline = Date.now() + 5_000;
    while (enabled.calls.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    await sweeper.onModuleDestroy();
    expect(enabled.calls.length).toBeGreaterThanOrEqual(2);
    const afterStop = enabled.calls.length;
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(enabled.calls).toHaveLength(afterStop);

    const disabled = admissionDouble(async () => 0);
    const idle = new LeaseSweeper(disabled.admission, false, 10);
    idle.onApplicationBootstrap();
    await new Promise((resolve) => setTimeout(resolve, 40));
    await idle.onModuleDestroy();
    expect(disabled.calls).toHaveLength(0);
  });

  it('never runs two sweeps at once and survives a failing sweep', async () => {
    let finish!: (value: number) => void;
    const slow = admissionDouble(() => new Promise<number>((resolve) => (finish = resolve)));
    const sweeper = new LeaseSweeper(slow.admission, false);
    const first = sweeper.sweep(1);
    const second = sweeper.sweep(2);
    finish(3);
    expect(await first).toBe(3);
    expect(await second).toBe(3);
    expect(slow.calls).toEqual([1]);

    const failing = new LeaseSweeper(admissionDouble(async () => Promise.reject(new Error('redis down'))).admission, false);
    expect(await failing.sweep()).toBe(0);
  });

  it('stops without a sweep that hangs (Redis away: its commands wait for the reconnect)', async () => {
    let finish!: (value: number) => void;
    const stuck = admissionDouble(() => new Promise<number>((resolve) => (finish = resolve)));
    const sweeper = new LeaseSweeper(stuck.admission, false);
    void sweeper.sweep(1);
    const started = Date.now();
    await sweeper.onModuleDestroy();
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(SWEEP_STOP_WAIT_MS - 20);
    expect(waited).toBeLessThan(SWEEP_STOP_WAIT_MS + 1_000);
    finish(0);

    // A sweep that ends in time is waited for, not cut short.
    let done = false;
    const quick = new LeaseSweeper(
      admissionDouble(() => new Promise<number>((resolve) => setTimeout(() => ((done = true), resolve(1)), 50))).admission,
      false,
    );
    void quick.sweep(2);
    await quick.onModuleDestroy();
    expect(done).toBe(true);
  });
});
