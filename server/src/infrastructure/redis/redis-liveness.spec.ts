import { EventEmitter } from 'node:events';
import { RedisLivenessWatch } from './redis-liveness';

/** A connection whose PINGs are answered only when the spec says so. */
class FakeConnection extends EventEmitter {
  status = 'ready';
  pings = 0;
  destroyed = 0;
  private answers: Array<() => void> = [];
  readonly stream = { destroy: () => this.destroyed++ };

  ping(): Promise<'PONG'> {
    this.pings++;
    return new Promise((resolve) => this.answers.push(() => resolve('PONG')));
  }

  answerAll(): void {
    for (const answer of this.answers.splice(0)) answer();
  }
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('RedisLivenessWatch', () => {
  function build(timeoutMs = 1_000, tickMs = 60_000 /* the spec ticks by hand */) {
    const connection = new FakeConnection();
    const reports: Array<[string, number]> = [];
    let now = 0;
    const watch = new RedisLivenessWatch(
      connection as never,
      'admission',
      timeoutMs,
      { unresponsive: (source, silentMs) => reports.push([source, silentMs]) },
      () => now,
      tickMs,
    );
    return { connection, reports, watch, advance: (ms: number) => (now += ms) };
  }

  afterEach(() => jest.restoreAllMocks());

  it('keeps one PING out while Redis answers, and never drops the connection', async () => {
    const { connection, reports, watch, advance } = build();
    for (let tick = 0; tick < 20; tick++) {
      watch.check();
      advance(250);
      connection.answerAll();
      await flush();
    }
    expect(connection.pings).toBe(20); // each tick finds the last one answered and sends the next
    expect(connection.destroyed).toBe(0);
    expect(reports).toEqual([]);
    watch.stop();
  });

  it('does not send a second PING while one is out, and drops the socket once it is unanswered for the timeout', async () => {
    const { connection, reports, watch, advance } = build();
    watch.check();
    for (let tick = 0; tick < 3; tick++) {
      advance(300);
      watch.check();
    }
    expect(connection.pings).toBe(1);
    expect(connection.destroyed).toBe(0);
    advance(100); // 1,000 ms since the PING
    watch.check();
    expect(connection.destroyed).toBe(1);
    expect(reports).toEqual([['admission', 1_000]]);
    // ioredis now reconnects; while it is not ready nothing is sent, and a late answer to the old PING is ignored.
    connection.status = 'connect';
    connection.answerAll();
    await flush();
    advance(5_000);
    watch.check();
    expect(connection.pings).toBe(1);
    expect(connection.destroyed).toBe(1);
    // Ready again: probing resumes.
    connection.status = 'ready';
    watch.check();
    expect(connection.pings).toBe(2);
    watch.stop();
  });

  it('gives up a PING when the connection drops on its own, and starts afresh once it is back', async () => {
    const { connection, reports, watch, advance } = build();
    watch.check();
    advance(900);
    connection.status = 'reconnecting';
    watch.check();
    connection.status = 'ready';
    advance(900);
    watch.check(); // a new PING: the old one's 900 ms do not count
    expect(connection.pings).toBe(2);
    advance(900);
    watch.check();
    expect(connection.destroyed).toBe(0);
    expect(reports).toEqual([]);
    watch.stop();
  });

  it('does not take an event loop that stalled past the timeout for a frozen Redis, and still finds a real freeze', async () => {
    const { connection, reports, watch, advance } = build(1_000, 250); // four ticks of 250 ms
    watch.check();
    advance(10_000); // the process got no CPU for 10 s; the PONG waits in the socket
    watch.check();
    expect(connection.destroyed).toBe(0);
    connection.answerAll(); // read once the loop gets to the socket
    await flush();
    watch.check(); // the next PING
    expect(connection.pings).toBe(2);
    for (let tick = 1; tick <= 3; tick++) {
      advance(250);
      watch.check();
      expect(connection.destroyed).toBe(0);
    }
    advance(250);
    watch.check();
    expect(connection.destroyed).toBe(1);
    expect(reports).toEqual([['admission', 1_000]]);
    watch.stop();
  });

  it('stops with the connection, whether it says so by its end event or only by its status', () => {
    const clear = jest.spyOn(global, 'clearInterval');
    const { connection } = build();
    connection.emit('end');
    expect(clear).toHaveBeenCalledTimes(1);
    const quiet = build();
    quiet.connection.status = 'end'; // BullMQ's close sets it; a client disconnected while reconnecting emits no 'end'
    quiet.watch.check();
    expect(clear).toHaveBeenCalledTimes(2);
    expect(quiet.connection.pings).toBe(0);
  });
});
