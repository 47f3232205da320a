import { join, resolve } from 'node:path';
import { ledgerArchiveDirectory } from './archive-segments';

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

  it('refuses an object-store URL in a configuration built by hand, with the message parseConfig gives', () => {
    for (const archive of ['s3://bucket/prefix', 'GS://bucket', 'az://account/container']) {
      expect(() => ledgerArchiveDirectory({ DATA_DIR: '/data', LEDGER_ARCHIVE_DIR: archive, DATABASE_URL: url })).toThrow(
        `LEDGER_ARCHIVE_DIR must be a local folder: object-store URLs are not supported yet; mount the bucket (s3fs, gcsfuse) and give its folder (got "${archive}")`,
      );
    }
  });
});
