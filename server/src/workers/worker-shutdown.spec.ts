import type { Worker } from 'bullmq';
import { closeWorker, workerConnectionsReady } from './worker-shutdown';

/** A client that is ready and answers PING (`answers` false: ready, but frozen). */
function client(status = 'ready', answers = true) {
  return { status, ping: () => (answers ? Promise.resolve('PONG') : new Promise<string>(() => undefined)) };
}

/** A BullMQ worker as the shutdown sees it: its two connections' clients and their status, and close(force). */
function fakeWorker(clients: Array<Promise<{ status: string; ping(): Promise<string> }>>) {
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
    const { worker } = fakeWorker([Promise.resolve(client()), Promise.resolve(client())]);
    let ready: boolean | undefined;
    const left = await pendingTimersOf(async () => (ready = await workerConnectionsReady(worker, 1_500)));
    expect(ready).toBe(true);
    expect(left).toBe(0);
  });

  it('given a connection that comes back within the wait, then it is ready; one that never does, then not, by the deadline', async () => {
    const blocking = client('reconnecting');
    setTimeout(() => (blocking.status = 'ready'), 80);
    const { worker: back } = fakeWorker([Promise.resolve(client()), Promise.resolve(blocking)]);
    expect(await workerConnectionsReady(back, 1_000)).toBe(true);

    const { worker: gone } = fakeWorker([Promise.resolve(client()), Promise.resolve(client('reconnecting'))]);
    const started = Date.now();
    expect(await workerConnectionsReady(gone, 120)).toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);

    const { worker: never } = fakeWorker([new Promise(() => undefined), Promise.resolve(client())]);
    expect(await workerConnectionsReady(never, 60)).toBe(false);
  });

  it('closes a worker whose connections are ready gracefully, and forces one whose are not', async () => {
    const ready = fakeWorker([Promise.resolve(client()), Promise.resolve(client())]);
    expect(await closeWorker(ready.worker, 200)).toBe('graceful');
    expect(ready.closed).toEqual([false]);
    const stuck = fakeWorker([Promise.resolve(client()), Promise.resolve(client('reconnecting'))]);
    expect(await closeWorker(stuck.worker, 60)).toBe('forced');
    expect(stuck.closed).toEqual([true]);
  });

  it('forces a worker whose connections say ready but whose Redis answers no PING (frozen), by the deadline', async () => {
    // Before, its graceful close waited for commands that ioredis resends after a reconnect, as long as Redis was frozen.
    const frozen = fakeWorker([Promise.resolve(client('ready', false)), Promise.resolve(client())]);
    const started = Date.now();
    let how: string | undefined;
    const left = await pendingTimersOf(async () => (how = await closeWorker(frozen.worker, 150)));
    expect(how).toBe('forced');
    expect(frozen.closed).toEqual([true]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(left).toBe(0);
  });
});
