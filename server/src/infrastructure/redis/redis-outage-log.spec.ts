import { EventEmitter } from 'node:events';
import { isRedisConnectionError, RedisOutageLog } from './redis-outage-log';

function refused(): Error {
  return Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });
}

describe('RedisOutageLog', () => {
  function build() {
    const lines: Array<[string, string]> = [];
    let now = 1_000;
    const logger = {
      warn: (message: string) => lines.push(['warn', message]),
      log: (message: string) => lines.push(['log', message]),
      error: (message: string) => lines.push(['error', message]),
    };
    const outage = new RedisOutageLog(logger, () => now);
    return { lines, outage, advance: (ms: number) => (now += ms) };
  }

  it('says once that Redis is unreachable, however many connections fail how often, and once that it is back', () => {
    const { lines, outage, advance } = build();
    const connections = [new EventEmitter(), new EventEmitter(), new EventEmitter()];
    connections.forEach((connection, index) => outage.watch(connection, `c${index}`));
    for (let attempt = 0; attempt < 50; attempt++) for (const connection of connections) connection.emit('error', refused());
    expect(outage.down).toBe(true);
    advance(3_200);
    connections[1].emit('ready');
    connections[0].emit('ready');
    expect(lines).toEqual([
      [
        'warn',
        'Redis unreachable (c0: connect ECONNREFUSED 127.0.0.1:6379); reconnecting. Its connection errors are counted, not logged, until it is back',
      ],
      ['log', 'Redis reachable again after 3.2 s (150 connection errors meanwhile)'],
    ]);
    expect(outage.down).toBe(false);
    // The next outage is said again.
    connections[2].emit('error', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));
    expect(lines).toHaveLength(3);
    expect(lines[2][1]).toMatch(/^Redis unreachable \(c2: read ECONNRESET\)/);
  });

  it('logs every error that is not about the connection, and a ready without an outage says nothing', () => {
    const { lines, outage } = build();
    const connection = new EventEmitter();
    outage.watch(connection, 'queue mail');
    connection.emit('ready');
    connection.emit('error', new Error('ERR Error running script: attempt to compare nil with number'));
    connection.emit('error', new Error('ERR Error running script: attempt to compare nil with number'));
    expect(lines).toEqual([
      ['error', 'queue mail: ERR Error running script: attempt to compare nil with number'],
      ['error', 'queue mail: ERR Error running script: attempt to compare nil with number'],
    ]);
    expect(outage.down).toBe(false);
  });

  it('tells connection errors by code or message', () => {
    expect(isRedisConnectionError(refused())).toBe(true);
    expect(isRedisConnectionError(new Error('Connection is closed.'))).toBe(true);
    expect(isRedisConnectionError(new Error('NOSCRIPT No matching script'))).toBe(false);
    expect(isRedisConnectionError('ECONNREFUSED')).toBe(false);
  });
});
