import { quotaConsumedFixture } from '#test/support/quota-consumed-fixture';
import { deterministicEventId } from '../../ledger/event-ids';
import {
  type AppendOptions,
  type AppendRequest,
  EventStoreUnavailableError,
  type NewEvent,
  WrongExpectedRevisionError,
} from '../../ledger/event-store.port';
import { InMemoryEventStore } from '../../ledger/in-memory/in-memory-event-store';
import { accountStream } from '../../ledger/streams';
import type { QuotaAdmissionService } from '../admission/quota-admission.service';
import { quotaConsumedEventId, RelaySettlementService } from './relay-settlement.service';

const USER = 7;

/**
 * A store without a multi-stream transaction (as EventStoreDB): the in-memory one, whose appends can be made to fail.
 * `failNext(n, error, { commit })`: the n-th append from now throws `error`, after writing its events when `commit`
 * (an answer lost on the way back: the outcome is unknown to the caller).
 */
class FlakyStore extends InMemoryEventStore {
  private readonly failures = new Map<number, { error: Error; commit: boolean }>();
  private appends = 0;
  readonly appended: string[] = [];

  failNext(nth: number, error: Error, options: { commit?: boolean } = {}): void {
    this.failures.set(this.appends + nth, { error, commit: options.commit ?? false });
  }

  override async appendToStream(streamId: string, events: NewEvent[], options?: AppendOptions) {
    this.appends++;
    this.appended.push(streamId);
    const failure = this.failures.get(this.appends);
    if (!failure) return super.appendToStream(streamId, events, options);
    if (failure.commit) await super.appendToStream(streamId, events, options);
    throw failure.error;
  }
}

/** Postgres's shape: appendMany is one transaction. */
class AtomicStore extends FlakyStore {
  override readonly atomicAppendMany = true;
  readonly batches: string[][] = [];

  override appendMany(requests: AppendRequest[]) {
    this.batches.push(requests.map((request) => request.streamId));
    return super.appendMany(requests);
  }
}

function taskAppend(taskId: string): AppendRequest {
  return {
    streamId: `mj-task-${taskId}`,
    events: [
      {
        id: deterministicEventId('task-submit', taskId),
        type: 'MidjourneyTaskSubmitted',
        data: { taskId },
        metadata: {
          correlationId: taskId,
          causationId: null,
          actor: { type: 'system' },
          clientIp: null,
          reasonCode: 'mj_submit',
          schemaVersion: 1,
        },
      },
    ],
    expectedRevision: 'no_stream',
  };
}

function settlementOn(store: InMemoryEventStore) {
  const admission = {
    leaseMs: 60_000,
    settleMany: jest.fn(async () => undefined),
    renewMany: jest.fn(async () => 0),
    whileRedisReachable: (work: Promise<unknown>) => work.then(() => true),
  };
  const settlement = new RelaySettlementService(store, admission as unknown as QuotaAdmissionService, null);
  const settle = (requestId: string, taskId: string) =>
    settlement.settleWith({ data: quotaConsumedFixture(requestId, USER), userRole: 1, clientIp: '127.0.0.1', reservedTokenId: null }, [
      taskAppend(taskId),
    ]);
  return { settlement, settle };
}

async function chargeInLedger(store: InMemoryEventStore, requestId: string): Promise<boolean> {
  const events = await store.readStream(accountStream(USER));
  return events.some((event) => event.id === quotaConsumedEventId(requestId));
}

async function taskInLedger(store: InMemoryEventStore, taskId: string): Promise<boolean> {
  return (await store.readStream(`mj-task-${taskId}`)).length > 0;
}

describe('RelaySettlementService.settleWith on a store without a multi-stream transaction', () => {
  it('appends the charge first and the task once the charge is in', async () => {
    const store = new FlakyStore();
    const { settlement, settle } = settlementOn(store);
    const settled = await settle('req-1', 'task-1');
    expect(store.appended).toEqual([accountStream(USER), 'mj-task-task-1']);
    expect(settled.companions).toEqual([{ ok: true, result: expect.objectContaining({ nextExpectedRevision: 0 }) }]);
    expect(await chargeInLedger(store, 'req-1')).toBe(true);
    expect(await taskInLedger(store, 'task-1')).toBe(true);
    await settlement.drain(1_000);
  });

  it('the charge refused: throws and writes no task (never a task that was not paid for)', async () => {
    const store = new FlakyStore();
    const { settlement, settle } = settlementOn(store);
    store.failNext(1, new EventStoreUnavailableError('ledger down (test)'));
    await expect(settle('req-2', 'task-2')).rejects.toThrow('ledger down (test)');
    expect(await chargeInLedger(store, 'req-2')).toBe(false);
    expect(await taskInLedger(store, 'task-2')).toBe(false);

    // The caller's retry with the same ids writes both, once.
    await settle('req-2', 'task-2');
    expect((await store.readStream(accountStream(USER))).map((event) => event.id)).toEqual([quotaConsumedEventId('req-2')]);
    expect(await taskInLedger(store, 'task-2')).toBe(true);
    await settlement.drain(1_000);
  });

  it('the second append (the task) refused: the charge is in the ledger, so the task_write_failed refund gives back a real charge', async () => {
    const store = new FlakyStore();
    const { settlement, settle } = settlementOn(store);
    store.failNext(2, new WrongExpectedRevisionError('mj-task-task-3', 'no_stream', 0));
    const settled = await settle('req-3', 'task-3');
    expect(settled.companions[0]).toEqual({ ok: false, error: expect.any(WrongExpectedRevisionError) });
    expect(await chargeInLedger(store, 'req-3')).toBe(true);
    expect(await taskInLedger(store, 'task-3')).toBe(false);
    await settlement.drain(1_000);
  });

  it('the task append answered nothing but committed: retried with its ids, found in, reported ok (no refund of a task that exists)', async () => {
    const store = new FlakyStore();
    const { settlement, settle } = settlementOn(store);
    store.failNext(2, new EventStoreUnavailableError('answer lost (test)'), { commit: true });
    const settled = await settle('req-4', 'task-4');
    expect(settled.companions[0].ok).toBe(true);
    expect(await taskInLedger(store, 'task-4')).toBe(true);
    expect((await store.readStream('mj-task-task-4')).length).toBe(1);
    await settlement.drain(1_000);
  });

  it('the task store unreachable on every try: reported not recorded, with the charge in the ledger', async () => {
    const store = new FlakyStore();
    const { settlement, settle } = settlementOn(store);
    for (let nth = 2; nth <= 4; nth++) store.failNext(nth, new EventStoreUnavailableError('ledger down (test)'));
    const settled = await settle('req-5', 'task-5');
    expect(settled.companions[0]).toEqual({ ok: false, error: expect.any(EventStoreUnavailableError) });
    expect(store.appended.filter((stream) => stream === 'mj-task-task-5')).toHaveLength(3);
    expect(await chargeInLedger(store, 'req-5')).toBe(true);
    expect(await taskInLedger(store, 'task-5')).toBe(false);
    await settlement.drain(1_000);
  });
});

describe('RelaySettlementService.settleWith on a store whose appendMany is one transaction', () => {
  it('sends the task and the charge in one appendMany', async () => {
    const store = new AtomicStore();
    const { settlement, settle } = settlementOn(store);
    const settled = await settle('req-6', 'task-6');
    expect(store.batches).toEqual([['mj-task-task-6', accountStream(USER)]]);
    expect(settled.companions[0].ok).toBe(true);
    expect(await chargeInLedger(store, 'req-6')).toBe(true);
    await settlement.drain(1_000);
  });
});
