import Redis from 'ioredis';
import { ProjectionWaiter } from '#projections/runner/projection-waiter';
import { RedisKeys } from '#server/infrastructure/redis/redis-keys';
import { quotaConsumedEventId, RelaySettlementService } from '#server/relay/settlement/relay-settlement.service';
import type { TestApp } from '../support/app';
import type { PrivateRedis } from '../support/private-services';
import { type PrivateRedisApp, startPrivateRedisApp } from './private-redis-app';
import { admission, routable, userWithToken } from './relay-support';
import { balanceRow, call, dataSource, eventStore, rootCaller } from './users-support';

jest.setTimeout(120_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * An api + projector process while admission's Redis is away. Before: the projector's push of each new balance to
 * Redis (after every batch that moved a balance) waited for Redis for as long as it was gone, so every read model
 * (balances, logs, the dashboard) stood still through an outage; and a shutdown waited 10 s for the settles of charges
 * already in the ledger, then forever for the quota blocks' give-back and the projector. Now the projector goes on
 * (the push is kept and sent when Redis is back) and the process closes within seconds, every answered charge in the
 * ledger. The app runs on a private redis-server, saved before each kill so it comes back with its data.
 */
describe('api and projector while Redis is away', () => {
  let app: PrivateRedisApp;
  let redis: PrivateRedis;
  let target: TestApp;
  let closed = false;
  let user: Awaited<ReturnType<typeof userWithToken>>;

  const chat = () => app.chat(user.key);
  /** Three requests admitted from the process's quota block (no Redis needed); their request ids. */
  const chatsFromBlock = async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const answer = await chat();
      expect(answer.status).toBe(200);
      await answer.text();
      ids.push(answer.headers.get('x-oneapi-request-id')!);
    }
    return ids;
  };
  const chargesInLedger = async (requestIds: string[]) =>
    Number(
      (
        await dataSource(target).query(`SELECT count(*) AS n FROM events WHERE type = 'QuotaConsumed' AND event_id = ANY($1::uuid[])`, [
          requestIds.map(quotaConsumedEventId),
        ])
      )[0].n,
    );
  /** Kills redis-server after a SAVE: it comes back with what it held. */
  const outage = async () => {
    const client = new Redis(redis.url);
    await client.save();
    client.disconnect();
    await redis.kill();
  };

  beforeAll(async () => {
    app = await startPrivateRedisApp({ RELAY_ADMISSION_REDIS_WAIT_MS: '1500' });
    ({ redis, target } = app);
    user = await userWithToken(target, 'outage', 100_000_000, { unlimited_quota: false, remain_quota: 50_000_000 });
    await routable(target, user.key, `${app.origin}/v1`, 'gpt-3.5-turbo');
  });
  afterAll(async () => {
    if (!closed) {
      await redis?.start();
      await target?.close();
    } else await target.database.drop();
    await app?.release();
  });

  it('projects through the outage, pushes the balance once Redis is back, and closes within seconds with Redis gone', async () => {
    // BullMQ printed a stack trace through console.error for every failed reconnect of every queue (QueueErrors).
    const consoleErrors = jest.spyOn(console, 'error');
    for (let i = 0; i < 5; i++) expect((await chat()).status).toBe(200);
    for (let i = 0; i < 100 && !admission(target).quotaBlocks.some((block) => block.userId === user.id); i++) await sleep(20);
    expect(admission(target).quotaBlocks.some((block) => block.userId === user.id)).toBe(true);
    const waiter = target.app.get(ProjectionWaiter);
    await waiter.waitFor(await eventStore(target).headPosition());

    // Outage: the block admits, the charges go to the ledger, and the projector folds them without Redis.
    await outage();
    const duringOutage = await chatsFromBlock();
    // In the ledger (the journal ships them within a linger); their settles in Redis are not waited for.
    await target.app.get(RelaySettlementService).drain(5_000, 100);
    const head = await eventStore(target).headPosition();
    const started = Date.now();
    await waiter.waitFor(head, 5_000);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await chargesInLedger(duringOutage)).toBe(3);
    expect(admission(target).deferredBasePushes).toBeGreaterThan(0);
    // A console write that changes a token answers too: it used to wait for Redis to drop the token's shared copy.
    const root = await rootCaller(target);
    const tokenWrite = Date.now();
    const created = await call(target, root, 'post', '/api/token/', { name: 'outage-token', remain_quota: 100, expired_time: -1 });
    expect(created.body).toEqual({ success: true, message: '' });
    expect(Date.now() - tokenWrite).toBeLessThan(3_000);

    // Back: the kept push goes out, and admission's base is the projected balance at the projected position.
    await redis.start();
    for (let i = 0; i < 250 && admission(target).deferredBasePushes > 0; i++) await sleep(20);
    expect(admission(target).deferredBasePushes).toBe(0);
    const keys = target.app.get(RedisKeys);
    const client = new Redis(redis.url);
    try {
      // The base is the projected balance, at a position at or past the outage's last charge.
      let base: Record<string, string> = {};
      for (let i = 0; i < 100; i++) {
        base = await client.hgetall(keys.key(`{u:${user.id}}`) + ':acct');
        if (Number(base.pos) >= head) break;
        await sleep(20);
      }
      expect(Number(base.pos)).toBeGreaterThanOrEqual(head);
      expect(Number(base.base)).toBe((await balanceRow(target, user.id))!.quota);
    } finally {
      client.disconnect();
    }

    // Gone again, then the shutdown: within seconds, with every answered charge in the ledger.
    for (let i = 0; i < 100 && !admission(target).quotaBlocks.some((block) => block.userId === user.id); i++) await sleep(20);
    await outage();
    const beforeClose = await chatsFromBlock();
    const closing = Date.now();
    closed = true;
    await target.app.close(); // what SIGTERM runs (main.ts), without dropping the test's database
    const took = Date.now() - closing;
    process.stdout.write(`close with Redis away: ${took} ms\n`);
    expect(took).toBeLessThan(8_000);
    expect(consoleErrors.mock.calls.filter((call) => /ECONNREFUSED/.test(String(call[0])))).toEqual([]);
    consoleErrors.mockRestore();
    // The app's pool is closed: read the ledger through a pool of the test's own.
    const { Client } = await import('pg');
    const pg = new Client({ connectionString: target.database.url });
    await pg.connect();
    try {
      const rows = await pg.query(`SELECT count(*) AS n FROM events WHERE type = 'QuotaConsumed' AND event_id = ANY($1::uuid[])`, [
        beforeClose.map(quotaConsumedEventId),
      ]);
      expect(Number(rows.rows[0].n)).toBe(3);
    } finally {
      await pg.end();
    }
  });
});
