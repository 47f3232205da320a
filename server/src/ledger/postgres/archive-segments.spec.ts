import { join, resolve } from 'node:path';
import { LocalArchiveStore } from '../archive/archive-store';
import { S3ArchiveStore } from '../archive/s3-archive-store';
import { ledgerArchiveDirectory, ledgerArchiveStore } from './archive-segments';

describe('ledgerArchiveDirectory: where an installation keeps its archive', () => {
  const url = 'postgres://postgres@127.0.0.1:5432/tollgate_prod';

  it('is <LEDGER_ARCHIVE_DIR>/<database>, default DATA_DIR/archive; a mounted bucket is a folder like any other', () => {
    expect(ledgerArchiveDirectory({ DATA_DIR: '/var/lib/tollgate', DATABASE_URL: url })).toBe('/var/lib/tollgate/archive/tollgate_prod');
    expect(ledgerArchiveDirectory({ DATA_DIR: '/data', LEDGER_ARCHIVE_DIR: '/mnt/s3-bucket/ledger', DATABASE_URL: url })).toBe(
      '/mnt/s3-bucket/ledger/tollgate_prod',
    );
    expect(ledgerArchiveDirectory({ DATA_DIR: 'data', LEDGER_ARCHIVE_DIR: '  ', DATABASE_URL: 'postgres://h/we%20ird%2Fname' })).toBe(
      join(resolve('data'), 'archive', 'we_ird_name'),
    );
    expect(ledgerArchiveDirectory({ DATA_DIR: '/data', DATABASE_URL: 'not a url' })).toBe('/data/archive/tollgate');
  });

  it('refuses any URL but s3:// in a configuration built by hand, with the message parseConfig gives', () => {
    for (const archive of ['GS://bucket', 'az://account/container', 'file:///mnt/archive', 's3://']) {
      expect(() => ledgerArchiveDirectory({ DATA_DIR: '/data', LEDGER_ARCHIVE_DIR: archive, DATABASE_URL: url })).toThrow(
        `LEDGER_ARCHIVE_DIR must be a local folder or an s3://bucket[/prefix] URL (for another object store, mount the bucket and give its folder) (got "${archive}")`,
      );
    }
  });

  it('is s3://bucket[/prefix]/<database> for an s3:// root, and its store is the S3 one', () => {
    expect(ledgerArchiveDirectory({ DATA_DIR: '/data', LEDGER_ARCHIVE_DIR: 's3://ledger-bucket', DATABASE_URL: url })).toBe(
      's3://ledger-bucket/tollgate_prod',
    );
    expect(ledgerArchiveDirectory({ DATA_DIR: '/data', LEDGER_ARCHIVE_DIR: 's3://ledger-bucket//a/b/', DATABASE_URL: url })).toBe(
      's3://ledger-bucket/a/b/tollgate_prod',
    );
    const store = ledgerArchiveStore({ DATA_DIR: '/data', LEDGER_ARCHIVE_DIR: 's3://ledger-bucket/a', DATABASE_URL: url });
    expect(store).toBeInstanceOf(S3ArchiveStore);
    expect(store.location).toBe('s3://ledger-bucket/a/tollgate_prod');
    expect(store.stagingPath('events-2026-01.ndjson.gz')).toBe(
      `/data/archive-staging/tollgate_prod/events-2026-01.ndjson.gz.tmp-${process.pid}`,
    );
    const folder = ledgerArchiveStore({ DATA_DIR: '/data', DATABASE_URL: url });
    expect(folder).toBeInstanceOf(LocalArchiveStore);
    expect(folder.location).toBe('/data/archive/tollgate_prod');
  });
});
