import type { AppendOutcome, AppendRequest, EventStore } from '#server/ledger/event-store.port';
import type { TestApp } from '../support/app';
import { eventsOfType, IMAGINE_QUOTA, midjourneyFixture, mj, tokenBalance } from './midjourney-support';
import { MUSIC_QUOTA, suno, sunoFixture } from './suno-support';
import { balanceRow, eventStore, projected } from './users-support';

jest.setTimeout(60_000);

type AppendMany = EventStore['appendMany'];

/**
 * Replaces the store's appendMany for the appends that carry a task's first event (`prefix` stream), `times` times,
 * with `fault`; everything else (and those appends after that) goes to the real store.
 */
function injectTaskAppendFault(
  target: TestApp,
  prefix: string,
  times: number,
  fault: (real: AppendMany, requests: AppendRequest[]) => Promise<AppendOutcome[]>,
): { restore(): void; injected(): number } {
  const store = eventStore(target);
  const real = store.appendMany.bind(store);
  let injected = 0;
  const spy = jest.spyOn(store, 'appendMany').mockImplementation(async (requests, options) => {
    if (injected < times && requests.some((request) => request.streamId.startsWith(prefix))) {
      injected++;
      return fault(real, requests);
    }
    return real(requests, options);
  });
  return { restore: () => spy.mockRestore(), injected: () => injected };
}

/** The task's append refused by the store itself (a wrong expected revision) in the same call as its charge. */
const refuseTaskAppend =
  (prefix: string) =>
  (real: AppendMany, requests: AppendRequest[]): Promise<AppendOutcome[]> =>
    real(requests.map((request) => (request.streamId.startsWith(prefix) ? { ...request, expectedRevision: 7 } : request)));

async function chargesOf(target: TestApp, requestId: string) {
  return (await eventsOfType(target, 'QuotaConsumed')).filter((event) => event.data.requestId === requestId);
}

async function refundsOf(target: TestApp, taskId: string) {
  return (await eventsOfType(target, 'QuotaRefunded')).filter((event) => event.data.taskId === taskId);
}

async function taskStreamOf(target: TestApp, stream: string) {
  return eventStore(target).readStream(stream);
}

/**
 * A charged task submit appends its charge and the task's first event in one appendMany (one Postgres transaction):
 * whatever fails, the user ends with their balance unchanged or charged exactly once with a task, never charged
 * without one.
 */
describe('midjourney: the charge and the task are written together', () => {
  const context = midjourneyFixture();

  it('refunds the charge at once (task_write_failed) when the task append alone is refused, and leaves no task', async () => {
    const { alice, target } = context;
    await projected(target);
    const before = await balanceRow(target, alice.id);
    const tokenBefore = await tokenBalance(target, alice.tokenId);
    const fault = injectTaskAppendFault(target, 'mjtask-', 1, refuseTaskAppend('mjtask-'));
    const answer = await mj(context, 'POST', '/mj/submit/imagine', alice.key, { prompt: 'a refused record' }).finally(() =>
      fault.restore(),
    );
    expect(fault.injected()).toBe(1);
    expect(answer.status).toBe(500);
    expect(answer.body).toMatchObject({ code: 4, description: 'insert_midjourney_task_failed' });

    await projected(target);
    expect(await chargesOf(target, answer.requestId)).toHaveLength(1);
    const refunds = await refundsOf(target, answer.requestId);
    expect(refunds).toHaveLength(1);
    expect(refunds[0].data).toMatchObject({ amount: IMAGINE_QUOTA, reason: 'task_write_failed', platform: 'midjourney' });
    expect(await taskStreamOf(target, `mjtask-${answer.requestId}`)).toEqual([]);
    const [refundEvent] = await eventStore(target)
      .readStream(`account-${alice.id}`)
      .then((events) => events.filter((event) => event.type === 'QuotaRefunded' && event.data.taskId === answer.requestId));
    expect(refundEvent.metadata.reasonCode).toBe('task_write_failed');
    expect(await balanceRow(target, alice.id)).toMatchObject({ quota: before!.quota, used_quota: before!.used_quota });
    expect(await tokenBalance(target, alice.tokenId)).toEqual(tokenBefore);
  });

  it('retries that refund when its own append fails once: refunded exactly once', async () => {
    const { alice, target } = context;
    await projected(target);
    const before = await balanceRow(target, alice.id);
    const store = eventStore(target);
    const realAppend = store.appendToStream.bind(store);
    let refusedRefunds = 0;
    const refundFault = jest.spyOn(store, 'appendToStream').mockImplementation((streamId, events, options) => {
      if (refusedRefunds === 0 && events.some((event) => event.type === 'QuotaRefunded')) {
        refusedRefunds++;
        return Promise.reject(new Error('connection reset'));
      }
      return realAppend(streamId, events, options);
    });
    const fault = injectTaskAppendFault(target, 'mjtask-', 1, refuseTaskAppend('mjtask-'));
    const answer = await mj(context, 'POST', '/mj/submit/imagine', alice.key, { prompt: 'a refund that retries' }).finally(() => {
      fault.restore();
      refundFault.mockRestore();
    });
    expect(refusedRefunds).toBe(1);
    expect(answer.body).toMatchObject({ description: 'insert_midjourney_task_failed' });
    await projected(target);
    expect(await refundsOf(target, answer.requestId)).toHaveLength(1);
    expect(await balanceRow(target, alice.id)).toMatchObject({ quota: before!.quota, used_quota: before!.used_quota });
  });

  it('charges nothing and records nothing when the store fails every attempt (nothing committed)', async () => {
    const { alice, target } = context;
    await projected(target);
    const before = await balanceRow(target, alice.id);
    const fault = injectTaskAppendFault(target, 'mjtask-', 3, () => Promise.reject(new Error('connection terminated')));
    const answer = await mj(context, 'POST', '/mj/submit/imagine', alice.key, { prompt: 'a store outage' }).finally(() => fault.restore());
    expect(fault.injected()).toBe(3);
    expect(answer.status).toBe(500);
    expect(answer.body).toMatchObject({ code: 4, description: 'insert_midjourney_task_failed' });

    await projected(target);
    expect(await chargesOf(target, answer.requestId)).toEqual([]);
    expect(await taskStreamOf(target, `mjtask-${answer.requestId}`)).toEqual([]);
    expect(await balanceRow(target, alice.id)).toMatchObject({ quota: before!.quota, used_quota: before!.used_quota });
    // The reservation went back: the next submit is admitted and charged exactly its price.
    const next = await mj(context, 'POST', '/mj/submit/imagine', alice.key, { prompt: 'after the outage' });
    expect(next.status).toBe(200);
    await projected(target);
    expect(await balanceRow(target, alice.id)).toMatchObject({ quota: before!.quota - IMAGINE_QUOTA });
  });

  it('charges exactly once, with its task, when the store committed and the answer was lost (a crash after the commit)', async () => {
    const { alice, target } = context;
    await projected(target);
    const before = await balanceRow(target, alice.id);
    const fault = injectTaskAppendFault(target, 'mjtask-', 1, async (real, requests) => {
      await real(requests);
      throw new Error('connection lost after commit');
    });
    const answer = await mj(context, 'POST', '/mj/submit/imagine', alice.key, { prompt: 'a lost answer' }).finally(() => fault.restore());
    expect(fault.injected()).toBe(1);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ code: 1 });

    await projected(target);
    expect(await chargesOf(target, answer.requestId)).toHaveLength(1);
    expect(await taskStreamOf(target, `mjtask-${answer.requestId}`)).toHaveLength(1);
    const fetched = await mj(context, 'GET', `/mj/task/${answer.body.result}/fetch`, alice.key);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toMatchObject({ id: answer.body.result, action: 'IMAGINE' });
    expect(await balanceRow(target, alice.id)).toMatchObject({ quota: before!.quota - IMAGINE_QUOTA });
    expect(await refundsOf(target, answer.requestId)).toEqual([]);
  });

  it('a crash between the charge and the task cannot happen: both are in one appendMany call', async () => {
    const { alice, target } = context;
    const calls: AppendRequest[][] = [];
    const store = eventStore(target);
    const real = store.appendMany.bind(store);
    const spy = jest.spyOn(store, 'appendMany').mockImplementation((requests, options) => {
      calls.push(requests);
      return real(requests, options);
    });
    const answer = await mj(context, 'POST', '/mj/submit/imagine', alice.key, { prompt: 'one call' }).finally(() => spy.mockRestore());
    expect(answer.status).toBe(200);
    const together = calls.filter((requests) => requests.some((request) => request.streamId === `mjtask-${answer.requestId}`));
    expect(together).toHaveLength(1);
    expect(together[0].map((request) => request.streamId)).toEqual([`mjtask-${answer.requestId}`, `account-${alice.id}`]);
    expect(together[0][1].events.map((event) => event.type)).toEqual(['QuotaConsumed']);
  });
});

describe('suno: the charge and the task are written together', () => {
  const context = sunoFixture();

  it('refunds the charge at once (task_write_failed) when the task append alone is refused, and leaves no task', async () => {
    const { alice, target } = context;
    await projected(target);
    const before = await balanceRow(target, alice.id);
    const tokenBefore = await tokenBalance(target, alice.tokenId);
    const fault = injectTaskAppendFault(target, 'sunotask-', 1, refuseTaskAppend('sunotask-'));
    const answer = await suno(context, 'POST', '/suno/submit/music', alice.key, { prompt: 'a refused record' }).finally(() =>
      fault.restore(),
    );
    expect(fault.injected()).toBe(1);
    expect(answer.status).toBe(500);
    expect(answer.body).toMatchObject({ code: 'insert_task_failed' });

    await projected(target);
    expect(await chargesOf(target, answer.requestId)).toHaveLength(1);
    const refunds = await refundsOf(target, answer.requestId);
    expect(refunds).toHaveLength(1);
    expect(refunds[0].data).toMatchObject({ amount: MUSIC_QUOTA, reason: 'task_write_failed', platform: 'suno' });
    expect(await taskStreamOf(target, `sunotask-${answer.requestId}`)).toEqual([]);
    expect(await balanceRow(target, alice.id)).toMatchObject({ quota: before!.quota, used_quota: before!.used_quota });
    expect(await tokenBalance(target, alice.tokenId)).toEqual(tokenBefore);
  });
});
