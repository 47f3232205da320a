import type { Worker } from 'bullmq';
import { closeWorker, workerConnectionsReady } from './worker-shutdown';

/** A BullMQ worker as the shutdown sees it: its two connections' clients and their status, and close(force). */
function fakeWorker(clients: Array<Promise<{ status: string }>>) {
  const closed: boolean[] = [];
  const worker = {
    closing: undefined,
    getBackend: () => ({ connection: { client: clients[0] }, blockingConnection: { client: clients[1] } }),
    close: async (force: boolean) => {
      closed.push(force);
    },
  };
  return { worker: worker as unknown as Worker, closed };
}

/** Timers made during `work` that neither fired nor were cleared by its end (they would keep the process alive). */
async function pendingTimersOf(work: () => Promise<unknown>): Promise<number> {
  const pending = new Set<unknown>();
  const set = jest.spyOn(global, 'setTimeout');
  const clear = jest.spyOn(global, 'clearTimeout');
  set.mockImplementation(((callback: () => void, ms?: number) => {
    const timer = jest.requireActual<typeof import('node:timers')>('node:timers').setTimeout(() => {
      pending.delete(timer);
      callback();
    }, ms);
    pending.add(timer);
    return timer;
  }) as typeof setTimeout);
  clear.mockImplementation(((timer: NodeJS.Timeout) => {
    pending.delete(timer);
    jest.requireActual<typeof import('node:timers')>('node:timers').clearTimeout(timer);
  }) as typeof clearTimeout);
  try {
    await work();
  } finally {
    set.mockRestore();
    clear.mockRestore();
  }
  return pending.size;
}

describe('worker shutdown', () => {
  it('given both connections ready, then they are ready at once and no timer is left behind', async () => {
    const { worker } = fakeWorker([Promise.resolve({ status: 'ready' }), Promise.resolve({ status: 'ready' })]);
    let ready: boolean | undefined;
    const left = await pendingTimersOf(async () => (ready = await workerConnectionsReady(worker, 1_500)));
    expect(ready).toBe(true);
    expect(left).toBe(0);
  });

  it('given a connection that comes back within the wait, then it is ready; one that never does, then not, by the deadline', async () => {
    const blocking = { status: 'reconnecting' };
    setTimeout(() => (blocking.status = 'ready'), 80);
    const { worker: back } = fakeWorker([Promise.resolve({ status: 'ready' }), Promise.resolve(blocking)]);
    expect(await workerConnectionsReady(back, 1_000)).toBe(true);

    const { worker: gone } = fakeWorker([Promise.resolve({ status: 'ready' }), Promise.resolve({ status: 'reconnecting' })]);
    const started = Date.now();
    expect(await workerConnectionsReady(gone, 120)).toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);

    const { worker: never } = fakeWorker([new Promise(() => undefined), Promise.resolve({ status: 'ready' })]);
    expect(await workerConnectionsReady(never, 60)).toBe(false);
  });

  it('closes a worker whose connections are ready gracefully, and forces one whose are not', async () => {
    const ready = fakeWorker([Promise.resolve({ status: 'ready' }), Promise.resolve({ status: 'ready' })]);
    expect(await closeWorker(ready.worker, 200)).toBe('graceful');
    expect(ready.closed).toEqual([false]);
    const stuck = fakeWorker([Promise.resolve({ status: 'ready' }), Promise.resolve({ status: 'reconnecting' })]);
    expect(await closeWorker(stuck.worker, 60)).toBe('forced');
    expect(stuck.closed).toEqual([true]);
  });
});
