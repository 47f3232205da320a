import { quotaConsumedFixture } from '#test/support/quota-consumed-fixture';
import { InMemoryEventStore } from '../../ledger/in-memory/in-memory-event-store';
import { EventEmitter } from 'node:events';
import type { QuotaAdmissionService } from '../admission/quota-admission.service';
import { RedisReadiness } from '../admission/redis-readiness';
import { RelaySettlementService } from './relay-settlement.service';

/**
 * drain() (shutdown, and the specs' "shipped") resolves only once admission has the settle of every charge in the
 * ledger, not when the settle has merely been sent: at shutdown the reservations then go at once instead of at the
 * lease sweep. Built by hand: no journal, so settle() appends before it resolves and the admission settle follows.
 */
describe('RelaySettlementService.drain', () => {
  function build() {
    const answers: Array<{ resolve: () => void; reject: (error: Error) => void; charges: unknown[] }> = [];
    // Admission's connection, up unless a spec says otherwise.
    const connection = Object.assign(new EventEmitter(), { status: 'ready' });
    const readiness = new RedisReadiness(connection, 5_000);
    const admission = {
      whileRedisReachable: (work: Promise<unknown>, downMs?: number) => readiness.whileReachable(work, downMs),
      leaseMs: 60_000,
      settleMany: jest.fn(
        (_userId: number, _tokenId: number | null, charges: unknown[]) =>
          new Promise<void>((resolve, reject) => answers.push({ resolve, reject, charges })),
      ),
      renewMany: jest.fn(async () => 0),
    };
    const store = new InMemoryEventStore();
    const settlement = new RelaySettlementService(store, admission as unknown as QuotaAdmissionService, null);
    const settle = (requestId: string) =>
      settlement.settle({ data: quotaConsumedFixture(requestId, 7), userRole: 1, clientIp: '127.0.0.1', reservedTokenId: null });
    return { settlement, admission, answers, store, settle, connection };
  }

  it('waits for the admission settle of the charges it shipped', async () => {
    const { settlement, answers, store, settle } = build();
    await Promise.all([settle('r1'), settle('r2')]);
    expect(await store.headPosition()).toBe(2);
    await Promise.resolve();
    expect(answers).toHaveLength(1); // one script for the user's two charges
    expect(answers[0].charges).toHaveLength(2);

    let drained = false;
    const drain = settlement.drain(5_000).then(() => (drained = true));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(drained).toBe(false);
    answers[0].resolve();
    await drain;
    expect(drained).toBe(true);
  });

  it('resolves after a failed settle as after a good one (the lease sweep retires those reservations)', async () => {
    const { settlement, answers, settle } = build();
    await settle('r1');
    await Promise.resolve();
    const drain = settlement.drain(5_000);
    answers[0].reject(new Error('redis down (test)'));
    await expect(drain).resolves.toBeUndefined();
  });

  it('gives up at its deadline when admission never answers', async () => {
    const { settlement, answers, settle } = build();
    await settle('r1');
    await Promise.resolve();
    expect(answers).toHaveLength(1);
    const started = Date.now();
    await settlement.drain(80);
    expect(Date.now() - started).toBeGreaterThanOrEqual(70);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("with admission's Redis away, waits for it at most the given time, not up to its deadline", async () => {
    const { settlement, answers, settle, connection, store } = build();
    await settle('r1');
    await Promise.resolve();
    expect(answers).toHaveLength(1); // sent: it waits in ioredis's queue for a Redis that is gone
    connection.status = 'reconnecting';
    connection.emit('close');
    const started = Date.now();
    await settlement.drain(10_000, 100);
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await store.headPosition()).toBe(1); // the charge itself is in the ledger
  });

  it('goes on waiting for the settle while Redis comes back within the wait', async () => {
    const { settlement, answers, settle, connection } = build();
    await settle('r1');
    await Promise.resolve();
    connection.status = 'reconnecting';
    connection.emit('close');
    let drained = false;
    const drain = settlement.drain(10_000, 150).then(() => (drained = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    connection.status = 'ready';
    connection.emit('ready');
    await new Promise((resolve) => setTimeout(resolve, 200)); // past the wait for Redis: it is back
    expect(drained).toBe(false);
    answers[0].resolve();
    await drain;
    expect(drained).toBe(true);
  });
});
