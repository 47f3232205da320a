import Redis from 'ioredis';
import { type PrivateRedis, startPrivateRedis } from '#test/support/private-services';
import { whileReachable } from './redis-reachable';
import { RedisLivenessWatch } from './redis-liveness';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A real redis-server stopped with SIGSTOP: its sockets stay open and nothing is answered. */
describe('RedisLivenessWatch against a frozen redis-server', () => {
  let redis: PrivateRedis;
  const clients: Redis[] = [];

  beforeAll(async () => {
    redis = await startPrivateRedis();
  });
  afterEach(() => {
    redis.thaw();
    for (const client of clients.splice(0)) client.disconnect();
  });
  afterAll(async () => {
    await redis?.destroy();
  });

  function connect(options: { enableReadyCheck: boolean; subscriber?: boolean }) {
    const client = new Redis(redis.url, {
      maxRetriesPerRequest: null,
      enableReadyCheck: options.enableReadyCheck,
      retryStrategy: () => 50,
    });
    client.on('error', () => undefined);
    clients.push(client);
    const reports: number[] = [];
    const watch = new RedisLivenessWatch(client, 'spec', 400, { unresponsive: (_source, silentMs) => reports.push(silentMs) });
    return { client, reports, watch };
  }

  it('takes a frozen Redis for a dropped connection, so that the waits bounded by the status end', async () => {
    const { client, reports } = connect({ enableReadyCheck: true });
    await client.ping();
    redis.freeze();
    const started = Date.now();
    const get = client.get('liveness-spec');
    // Before the watch, the status stayed 'ready' and this waited as long as Redis was frozen.
    const reached = await whileReachable(client, get, 300);
    const took = Date.now() - started;
    expect(reached).toBe(false);
    expect(took).toBeGreaterThanOrEqual(400);
    expect(took).toBeLessThan(1_500); // 400 ms of silence, a tick of 100 ms, then the 300 ms of whileReachable
    expect(reports).toHaveLength(1);
    // Reconnected, but the ready check is not answered either: the connection stays down, however long.
    await sleep(1_000);
    expect(client.status).not.toBe('ready');
    expect(reports).toHaveLength(1);
    // Thawed: ready again, and the command that waited is answered (resent by ioredis).
    redis.thaw();
    await expect(get).resolves.toBeNull();
    expect(client.status).toBe('ready');
    await expect(client.ping()).resolves.toBe('PONG');
  });

  it('watches a subscriber connection too (no ready check: it reconnects and is dropped again until Redis answers)', async () => {
    const { client, reports } = connect({ enableReadyCheck: false });
    const messages: string[] = [];
    client.on('message', (_channel, message) => messages.push(message));
    await client.subscribe('liveness-spec');
    await sleep(600); // PINGs in subscriber mode are answered
    expect(reports).toEqual([]);
    redis.freeze();
    await sleep(1_500);
    expect(reports.length).toBeGreaterThanOrEqual(1);
    redis.thaw();
    // Back: subscribed again by ioredis, and no further drop.
    const publisher = new Redis(redis.url);
    clients.push(publisher);
    for (let i = 0; i < 50 && messages.length === 0; i++) {
      await publisher.publish('liveness-spec', 'back');
      await sleep(50);
    }
    expect(messages[0]).toBe('back');
    const drops = reports.length;
    await sleep(800);
    expect(reports.length).toBe(drops);
  });
});
