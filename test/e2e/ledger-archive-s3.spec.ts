import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { ProjectionRegistry } from '#projections/runner/projection-registry';
import { archiveLedgerIn } from '#server/cli/archive-ledger';
import { rebuildProjectionsIn } from '#server/cli/rebuild-projections';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { S3ArchiveStore } from '#server/ledger/archive/s3-archive-store';
import { ledgerArchiveStore } from '#server/ledger/postgres/archive-segments';
import { accountStream } from '#server/ledger/streams';
import { ArchiveUnsoundError, verifyArchive } from '#server/modules/ledger-archive/archive-verifier';
import { archiveLedger } from '#server/modules/ledger-archive/ledger-archiver';
import { S3Fake } from '../fakes/s3-fake';
import { OpenAIUpstreamFake } from '../fakes/upstreams/openai-upstream-fake';
import { createTestApp, type TestApp } from '../support/app';
import { compareTables, snapshotTables } from '../support/compare-tables';
import { createChannel, listen, routable, sdk, userWithToken } from './relay-support';
import { wholeStatement } from './statement-support';
import { call, type Caller, dataSource, eventStore, projected, rootCaller, setOptions } from './users-support';

jest.setTimeout(180_000);

/** `YYYY-MM` of the month `back` months before now (UTC). */
function monthsAgo(back: number): string {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1)).toISOString().slice(0, 7);
}

/**
 * Ledger archival into an object store (issue 20 §5, "or an object store URL"): LEDGER_ARCHIVE_DIR=s3://bucket/prefix
 * against a fake S3-compatible server (test/fakes/s3-fake.ts, path-style, SigV4 credentials checked). The archive
 * writes its segments and manifest as objects and nothing under DATA_DIR; every read of the store, a rebuild from
 * the archive and the statements equal what they were; --verify reads the objects and names a damaged one.
 */
describe('ledger archive in an S3 bucket', () => {
  const bucket = 'tollgate-archive';
  const s3 = new S3Fake([bucket]);
  const upstream = new OpenAIUpstreamFake();
  let target: TestApp;
  let baseURL: string;
  let root: Caller;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'tollgate-archive-s3-'));
    await Promise.all([s3.start(), upstream.start()]);
    target = await createTestApp({
      env: {
        DATA_DIR: dataDir,
        LEDGER_ARCHIVE_DIR: `s3://${bucket}/ledger`,
        LEDGER_ARCHIVE_S3_ENDPOINT: s3.endpoint,
        LEDGER_ARCHIVE_S3_ACCESS_KEY_ID: s3.accessKeyId,
        LEDGER_ARCHIVE_S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
      },
    });
    baseURL = await listen(target);
    root = await rootCaller(target);
    await setOptions(target, { ServerAddress: new URL(baseURL).origin });
  });
  afterAll(async () => {
    await target?.close();
    await Promise.all([upstream.close(), s3.close()]);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('archives into the bucket, and every read, rebuild and statement is what it was', async () => {
    const db = dataSource(target);
    const store = eventStore(target);
    const tables = target.app
      .get(ProjectionRegistry, { strict: false })
      .all()
      .flatMap((projection) => [...projection.tables]);

    // ---- A ledger over two months: gifts, charges (plain and streamed), an admin edit. ----
    await createChannel(target, root, { type: 1, name: 'main', baseUrl: upstream.baseUrl, models: ['gpt-4o-mini'] });
    const alice = await userWithToken(target, 's3-alice', 30_000_000);
    const bob = await userWithToken(target, 's3-bob', 10_000_000);
    await routable(target, alice.key, baseURL, 'gpt-4o-mini');
    const chat = async (key: string, stream: boolean) => {
      const client = sdk(baseURL, key);
      if (!stream)
        return void (await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }));
      const answer = await client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
      });
      for await (const chunk of answer) void chunk;
    };
    for (const [key, stream] of [
      [alice.key, false],
      [alice.key, true],
      [bob.key, false],
    ] as const)
      await chat(key, stream);
    await projected(target);
    const endOfOld = await store.headPosition();
    const form = (await call(target, root, 'get', `/api/user/${bob.id}`).expect(200)).body.data;
    await call(target, root, 'put', '/api/user/', { ...form, quota: form.quota + 777 }).expect(200);
    await chat(alice.key, false);
    await projected(target);
    const head = await store.headPosition();

    // The first part three months back (the fixture lifts the append-only trigger for this one statement), and a
    // rebuild so the read models agree with the new times: "live" from here on.
    await db.query('ALTER TABLE events DISABLE TRIGGER events_append_only');
    await db.query(
      `UPDATE events SET created_at = date_trunc('month', now()) - make_interval(months => CASE WHEN position <= $1 THEN 3 ELSE 0 END)
          + make_interval(mins => position::int)`,
      [endOfOld],
    );
    await db.query('ALTER TABLE events ENABLE TRIGGER events_append_only');
    await rebuildProjectionsIn(target.app, { waitSeconds: 30, fromArchive: true }, () => undefined);
    await projected(target);
    const live = await snapshotTables(db, tables);
    const statements = async () =>
      Promise.all([alice, bob].map((user) => wholeStatement(target, root, `/api/statement/?user_id=${user.id}`, 5)));
    const liveStatements = await statements();
    const liveEvents: RecordedEvent[] = await store.readAll();
    const liveStreams = await Promise.all([alice, bob].map((user) => store.readStream(accountStream(user.id))));
    expect(liveEvents).toHaveLength(head);

    // ---- A bucket that does not exist: the run fails before its snapshot, and nothing changes. ----
    const missing = new S3ArchiveStore({
      bucket: 'no-such-bucket',
      prefix: 'ledger',
      stagingDir: join(dataDir, 'archive-staging'),
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      accessKeyId: s3.accessKeyId,
      secretAccessKey: s3.secretAccessKey,
    });
    const projections = target.app.get(ProjectionRegistry, { strict: false }).all();
    await expect(archiveLedger({ dataSource: db, projections, directory: missing }, { before: monthsAgo(2) })).rejects.toThrow(
      'ledger archive: bucket no-such-bucket of s3://no-such-bucket/ledger does not exist',
    );
    missing.close();
    const [{ snapshots }] = await db.query('SELECT count(*)::int AS snapshots FROM ledger_snapshots');
    expect(snapshots).toBe(0);
    expect(await store.readAll()).toEqual(liveEvents);

    // ---- The archive run: objects in the bucket, nothing on the local disk but an empty staging folder. ----
    const report = await archiveLedgerIn(target.app, { before: monthsAgo(2) }, () => undefined);
    const database = new URL(target.config.DATABASE_URL).pathname.slice(1);
    expect(report.directory).toBe(`s3://${bucket}/ledger/${database}`);
    expect(report.archivedThrough).toBe(endOfOld);
    const segment = `events-${monthsAgo(3)}.ndjson.gz`;
    expect(report.segments.map((written) => written.file)).toEqual([segment]);
    expect(s3.keys(bucket)).toEqual([`ledger/${database}/${segment}`, `ledger/${database}/manifest.json`]);
    const object = s3.objects.get(`${bucket}/ledger/${database}/${segment}`)!.body;
    expect({ bytes: object.length, sha256: createHash('sha256').update(object).digest('hex') }).toEqual({
      bytes: report.segments[0].bytes,
      sha256: report.segments[0].sha256,
    });
    expect(
      gunzipSync(object)
        .toString('utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).position),
    ).toEqual(liveEvents.slice(0, endOfOld).map((event) => event.position));
    const manifest = JSON.parse(s3.objects.get(`${bucket}/ledger/${database}/manifest.json`)!.body.toString('utf8'));
    expect(manifest.segments).toEqual(report.segments);
    expect(existsSync(join(dataDir, 'archive'))).toBe(false);
    expect(readdirSync(join(dataDir, 'archive-staging', database))).toEqual([]);
    const [{ rows }] = await db.query('SELECT count(*)::int AS rows FROM events');
    expect(rows).toBe(head - endOfOld);

    // ---- Every read is what it was: the whole log, the rebuild's reader, each stream. ----
    expect(await store.readAll()).toEqual(liveEvents);
    expect(await store.readAllInBulk!({ after: 0, maxCount: 100_000 })).toEqual(liveEvents);
    expect(await Promise.all([alice, bob].map((user) => store.readStream(accountStream(user.id))))).toEqual(liveStreams);

    // ---- A rebuild from the archive (segments read from the bucket) equals live, statements included. ----
    const rebuilt = await rebuildProjectionsIn(target.app, { waitSeconds: 30, fromArchive: true }, () => undefined);
    expect(rebuilt.eventsReplayed).toBe(head);
    await projected(target);
    expect((await compareTables(live, db, tables)).differences).toEqual([]);
    expect(await statements()).toEqual(liveStatements);

    // ---- --verify reads the objects: sound, then a flipped byte is named. ----
    const archive = ledgerArchiveStore(target.config);
    try {
      expect(await verifyArchive(db, archive)).toMatchObject({ segments: 1, archivedThrough: endOfOld, contents: true });
      object[Math.floor(object.length / 2)] ^= 0xff;
      await expect(verifyArchive(db, archive)).rejects.toThrow(ArchiveUnsoundError);
      await expect(verifyArchive(db, archive)).rejects.toThrow(`segment ${segment} (positions 1-${endOfOld}): checksum mismatch`);
    } finally {
      archive.close();
    }
  });
});
