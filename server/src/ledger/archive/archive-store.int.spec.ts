import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { S3Fake } from '#test/fakes/s3-fake';
import { type ArchiveStore, LocalArchiveStore } from './archive-store';
import { type S3ArchiveOptions, S3ArchiveStore } from './s3-archive-store';

async function bytesOf(stream: Promise<Readable>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const s3Store = (s3: S3Fake, scratch: string, options: Partial<S3ArchiveOptions> = {}) =>
  new S3ArchiveStore({
    bucket: 'ledger',
    prefix: 'tollgate/db',
    stagingDir: join(scratch, 'staging'),
    endpoint: s3.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
    ...options,
  });

/** Binary bytes (a gzip segment is not text): every byte value, twice, and more than one network chunk. */
const SEGMENT = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, index) => index)), Buffer.alloc(300_000, 0x8b)]);

describe.each(['folder', 's3'] as const)('ArchiveStore (%s): the archive files, stored whole', (kind) => {
  let scratch: string;
  let s3: S3Fake;
  let store: ArchiveStore;

  beforeAll(async () => {
    s3 = await new S3Fake(['ledger']).start();
  });
  afterAll(() => s3.close());
  beforeEach(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'tollgate-archive-store-'));
    store = kind === 'folder' ? new LocalArchiveStore(join(scratch, 'archive', 'db')) : s3Store(s3, scratch);
    await store.prepare();
  });
  afterEach(() => {
    store.close();
    s3.objects.clear();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('stores a staged file and a text under their names, reads them back byte for byte, and leaves no staged file', async () => {
    const staged = store.stagingPath('events-2026-01.ndjson.gz');
    writeFileSync(staged, SEGMENT);
    await store.putFile('events-2026-01.ndjson.gz', staged);
    expect(existsSync(staged)).toBe(false);
    await store.putText('manifest.json', '{"format":1,"segments":[]}\n');

    expect((await store.read('events-2026-01.ndjson.gz'))!.equals(SEGMENT)).toBe(true);
    expect((await bytesOf(store.openRead('events-2026-01.ndjson.gz'))).equals(SEGMENT)).toBe(true);
    expect(await store.size('events-2026-01.ndjson.gz')).toBe(SEGMENT.length);
    expect((await store.read('manifest.json'))!.toString('utf8')).toBe('{"format":1,"segments":[]}\n');
    if (kind === 's3') {
      expect(store.location).toBe('s3://ledger/tollgate/db');
      expect(s3.keys('ledger')).toEqual(['tollgate/db/events-2026-01.ndjson.gz', 'tollgate/db/manifest.json']);
    }
  });

  it('replaces a file whole when it is stored again (a rerun after a crash writes the same name)', async () => {
    await store.putText('manifest.json', 'first');
    await store.putText('manifest.json', 'second, longer');
    expect((await store.read('manifest.json'))!.toString('utf8')).toBe('second, longer');
    expect(await store.size('manifest.json')).toBe('second, longer'.length);
  });

  it('says a missing file is missing: null from read and size, ENOENT from a stream', async () => {
    expect(await store.read('events-1999-01.ndjson.gz')).toBeNull();
    expect(await store.size('events-1999-01.ndjson.gz')).toBeNull();
    await expect(bytesOf(store.openRead('events-1999-01.ndjson.gz'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  if (kind === 's3') {
    it('drops at prepare what a run that died left staged (an S3 archive stages its uploads locally)', async () => {
      const stale = join(scratch, 'staging', 'events-2026-01.ndjson.gz.tmp-99999');
      writeFileSync(stale, SEGMENT);
      writeFileSync(join(scratch, 'staging', 'notes.txt'), 'not ours');
      await store.prepare();
      expect(existsSync(stale)).toBe(false);
      expect(existsSync(join(scratch, 'staging', 'notes.txt'))).toBe(true);
    });

    it('fails a refused upload, stores nothing and keeps no staged file; a transient error is retried', async () => {
      const staged = store.stagingPath('events-2026-02.ndjson.gz');
      writeFileSync(staged, SEGMENT);
      s3.failNext('PUT', 403, 'AccessDenied');
      await expect(store.putFile('events-2026-02.ndjson.gz', staged)).rejects.toMatchObject({ name: 'AccessDenied' });
      expect(existsSync(staged)).toBe(false);
      expect(await store.read('events-2026-02.ndjson.gz')).toBeNull();

      // Transient: a segment's upload (a stream the SDK cannot rewind) is retried by the store, a text by the SDK.
      s3.failNext('PUT', 503, 'SlowDown', 2);
      writeFileSync(staged, SEGMENT);
      await store.putFile('events-2026-02.ndjson.gz', staged);
      expect((await store.read('events-2026-02.ndjson.gz'))!.equals(SEGMENT)).toBe(true);
      expect(existsSync(staged)).toBe(false);
      s3.failNext('PUT', 500, 'InternalError');
      await store.putText('manifest.json', 'after an InternalError');
      expect((await store.read('manifest.json'))!.toString('utf8')).toBe('after an InternalError');
    });

    it('sends the access key it was given, and fails on an error that is not a missing object', async () => {
      const wrong = s3Store(s3, scratch, { prefix: '', accessKeyId: 'someone-else', secretAccessKey: 'x' });
      await expect(wrong.size('manifest.json')).rejects.toBeDefined();
      await expect(wrong.read('manifest.json')).rejects.toMatchObject({ name: 'InvalidAccessKeyId' });
      const noBucket = s3Store(s3, scratch, { bucket: 'missing', prefix: '' });
      await expect(noBucket.putText('manifest.json', '{}')).rejects.toMatchObject({ name: 'NoSuchBucket' });
      await expect(noBucket.prepare()).rejects.toThrow('ledger archive: bucket missing of s3://missing does not exist');
      await expect(wrong.prepare()).rejects.toThrow('ledger archive: bucket ledger of s3://ledger refuses these credentials');
      wrong.close();
      noBucket.close();
    });
  }
});
