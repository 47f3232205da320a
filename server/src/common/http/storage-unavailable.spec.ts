import Redis from 'ioredis';
import { Client } from 'pg';
import { QueryFailedError } from 'typeorm';
import { isStorageUnavailable } from './storage-unavailable';

/** Real errors from the real drivers, so the classification follows what they actually throw. */
describe('isStorageUnavailable', () => {
  it('is true for a Postgres server that refuses the connection', async () => {
    const client = new Client({ connectionString: 'postgres://postgres@127.0.0.1:1/none', connectionTimeoutMillis: 2000 });
    const error = await client.connect().then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).not.toBeNull();
    expect(isStorageUnavailable(error)).toBe(true);
  });

  it('is true for a Redis server that is away (the command is refused, not queued)', async () => {
    const redis = new Redis({ port: 1, lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
    const error = await redis.get('x').then(
      () => null,
      (caught: unknown) => caught,
    );
    redis.disconnect();
    expect(error).not.toBeNull();
    expect(isStorageUnavailable(error)).toBe(true);
  });

  it('is true for the connection SQLSTATEs wrapped by TypeORM, false for a statement error', () => {
    const wrap = (code: string, message = 'x') => new QueryFailedError('SELECT 1', [], Object.assign(new Error(message), { code }));
    expect(isStorageUnavailable(wrap('08006'))).toBe(true);
    expect(isStorageUnavailable(wrap('57P01', 'terminating connection due to administrator command'))).toBe(true);
    expect(isStorageUnavailable(wrap('53300'))).toBe(true);
    expect(isStorageUnavailable(wrap('23505', 'duplicate key value violates unique constraint'))).toBe(false);
    expect(isStorageUnavailable(wrap('42P01', 'relation "x" does not exist'))).toBe(false);
  });

  it('is false for ordinary bugs and non-errors', () => {
    expect(isStorageUnavailable(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBe(false);
    expect(isStorageUnavailable(null)).toBe(false);
    expect(isStorageUnavailable('ECONNREFUSED')).toBe(false);
  });
});
