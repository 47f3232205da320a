import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import OpenAI from 'openai';
import { ProjectionRegistry } from '#projections/runner/projection-registry';
import { archiveLedgerIn } from '#server/cli/archive-ledger';
import { ArchiveInputError, parseArchiveArguments } from '#server/modules/ledger-archive/ledger-archiver';
import { rebuildProjectionsIn } from '#server/cli/rebuild-projections';
import { type RecordedEvent, WrongExpectedRevisionError } from '#server/ledger/event-store.port';
import { ledgerArchiveDirectory } from '#server/ledger/postgres/archive-segments';
import { accountStream } from '#server/ledger/streams';
import type { EpayFake } from '../fakes/epay/epay-fake';
import { OpenAIUpstreamFake } from '../fakes/upstreams/openai-upstream-fake';
import { createTestApp, type TestApp } from '../support/app';
import { compareTables, snapshotTables, type TableSnapshot } from '../support/compare-tables';
import { createChannel, listen, routable, sdk, userWithToken } from './relay-support';
import { type StatementLine, wholeStatement } from './statement-support';
import { configureEpay, placeAndSubmit } from './topup-support';
import { call, type Caller, dataSource, eventStore, projected, register, rootCaller, setOptions } from './users-support';

jest.setTimeout(240_000);

/** `YYYY-MM` of the month `back` months before now (UTC). */
function monthsAgo(back: number): string {
  const now = new Date();
  const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1));
  return month.toISOString().slice(0, 7);
}

/**
 * Ledger archival (issue 20 §5): a ledger spread over four months (gifts, codes issued and redeemed, top-ups paid
 * through the fake Epay gateway, relay charges, admin edits), the two oldest months archived. The hot table shrinks,
 * segments and manifest are right, every read of the store (whole log, each stream) is what it was, a rebuild from
 * the snapshot and one from the segments both equal the live read models, statements included, commands on archived
 * accounts behave as before, bad input changes nothing, and a run stopped before the delete is finished by a rerun.
 */
describe('ledger archive: snapshot, segments, rebuilds equal live, commands on archived streams', () => {
  let target: TestApp;
  let baseURL: string;
  let root: Caller;
  let epay: EpayFake;
  let dataDir: string;
  const upstream = new OpenAIUpstreamFake();

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'tollgate-archive-'));
    await upstream.start();
    target = await createTestApp({ env: { DATA_DIR: dataDir } });
    baseURL = await listen(target);
    root = await rootCaller(target);
    epay = await configureEpay(target);
    await setOptions(target, { ServerAddress: new URL(baseURL).origin });
  });
  afterAll(async () => {
    await epay?.close();
    await target?.close();
    await upstream.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function ok(caller: Caller, method: 'post' | 'put', path: string, body: unknown): Promise<unknown> {
    const response = await call(target, caller, method, path, body).expect(200);
    expect({ path, body: response.body }).toEqual({ path, body: expect.objectContaining({ success: true }) });
    return response.body.data;
  }
  async function adminEdit(user: Caller, quota: (current: number) => number): Promise<void> {
    const form = (await call(target, root, 'get', `/api/user/${user.id}`).expect(200)).body.data;
    await ok(root, 'put', '/api/user/', { ...form, quota: quota(form.quota) });
  }
  async function chat(client: OpenAI, rounds: number, model: string): Promise<void> {
    for (let round = 0; round < rounds; round++) {
      if (round % 2 === 0) {
        await client.chat.completions.create({ model, messages: [{ role: 'user', content: `hi ${round}` }] });
      } else {
        const stream = await client.chat.completions.create({ model, messages: [{ role: 'user', content: `hi ${round}` }], stream: true });
        for await (const chunk of stream) void chunk;
      }
    }
  }
  const archive = (before: string, extra: { stopBeforeDelete?: boolean } = {}) =>
    archiveLedgerIn(target.app, { before, ...extra }, () => undefined);

  it('archives the old months, and nothing is lost', async () => {
    const db = dataSource(target);
    const store = eventStore(target);
    const tables = target.app
      .get(ProjectionRegistry, { strict: false })
      .all()
      .flatMap((projection) => [...projection.tables]);

    // ---- The ledger, in four phases that become four months. ----
    await createChannel(target, root, { type: 1, name: 'main', baseUrl: upstream.baseUrl, models: ['gpt-3.5-turbo', 'gpt-4o-mini'] });
    const alice = await userWithToken(target, 'ar-alice', 40_000_000);
    const bob = await userWithToken(target, 'ar-bob', 20_000_000, { unlimited_quota: false, remain_quota: 10_000_000 });
    await setOptions(target, { QuotaForNewUser: '1000', QuotaPerUnit: '500' });
    const early = await register(target, 'ar-early');
    const keys = (await ok(root, 'post', '/api/redemption/', { name: 'archive', quota: 2_000_000, count: 4 })) as string[];
    expect(await ok(early, 'post', '/api/user/topup', { key: keys[0] })).toBe(2_000_000);
    await adminEdit(early, (quota) => quota + 4321);
    const clients = [sdk(baseURL, alice.key), sdk(baseURL, bob.key)];
    await routable(target, alice.key, baseURL, 'gpt-4o-mini');
    await chat(clients[0], 4, 'gpt-4o-mini');
    await chat(clients[1], 3, 'gpt-3.5-turbo');
    await projected(target);
    const endOfFirst = await store.headPosition();

    const paid = [await placeAndSubmit(target, alice, 3, 'zfb'), await placeAndSubmit(target, bob, 2, 'wx')];
    expect(await Promise.all(paid.map((tradeNo) => epay.notify(tradeNo)))).toEqual(['success', 'success']);
    expect(await ok(alice, 'post', '/api/user/topup', { key: keys[1] })).toBe(2_000_000);
    await chat(clients[0], 3, 'gpt-3.5-turbo');
    await projected(target);
    const endOfSecond = await store.headPosition();

    await adminEdit(alice, (quota) => quota + 123_456);
    await chat(clients[1], 2, 'gpt-4o-mini');
    await projected(target);
    const endOfThird = await store.headPosition();

    expect(await ok(bob, 'post', '/api/user/topup', { key: keys[2] })).toBe(2_000_000);
    await chat(clients[0], 2, 'gpt-4o-mini');
    await projected(target);
    const head = await store.headPosition();

    // Spread the phases over four months. The ledger refuses UPDATE, so the fixture lifts the trigger for this one
    // statement; then a full rebuild makes the read models agree with the new times: that is "live" from here on.
    await db.query('ALTER TABLE events DISABLE TRIGGER events_append_only');
    await db.query(
      `UPDATE events SET created_at = date_trunc('month', now()) - make_interval(months => CASE
          WHEN position <= $1 THEN 4 WHEN position <= $2 THEN 3 WHEN position <= $3 THEN 2 ELSE 0 END)
          + make_interval(mins => position::int)`,
      [endOfFirst, endOfSecond, endOfThird],
    );
    await db.query('ALTER TABLE events ENABLE TRIGGER events_append_only');
    await rebuildProjectionsIn(target.app, { waitSeconds: 30, fromArchive: true }, () => undefined);
    await projected(target);

    const users: Array<{ id: number }> = await db.query('SELECT id FROM users ORDER BY id');
    const statements = async () => {
      const all = new Map<number, StatementLine[]>();
      for (const { id } of users) all.set(id, await wholeStatement(target, root, `/api/statement/?user_id=${id}`, 7));
      return all;
    };
    const logsPage = async () => (await call(target, root, 'get', '/api/log/?p=0&page_size=100').expect(200)).body.data;
    const live: TableSnapshot = await snapshotTables(db, tables);
    const liveStatements = await statements();
    // The statement of an archived month on its own (the read model keeps its lines; a rebuild writes them again).
    const [oldest] = await db.query(
      `SELECT extract(epoch FROM date_trunc('month', now()) - interval '4 months')::bigint AS start,
              extract(epoch FROM date_trunc('month', now()) - interval '3 months')::bigint - 1 AS "end"`,
    );
    const archivedMonth = () =>
      wholeStatement(target, root, `/api/statement/?user_id=${alice.id}&start_timestamp=${oldest.start}&end_timestamp=${oldest.end}`, 5);
    const liveArchivedMonth = await archivedMonth();
    expect(liveArchivedMonth.map((line) => line.kind)).toEqual(expect.arrayContaining(['gift', 'relay_charge']));
    const liveLogs = await logsPage();
    const liveEvents = await store.readAll();
    const liveStreams = new Map<string, RecordedEvent[]>();
    for (const { id } of users) liveStreams.set(accountStream(id), await store.readStream(accountStream(id)));
    expect(liveEvents).toHaveLength(head);
    expect(live.statement_lines.length).toBeGreaterThan(20);
    expect(live.logs.length).toBeGreaterThan(10);

    const directory = ledgerArchiveDirectory(target.config);
    const unchanged = async () => {
      expect(await store.readAll()).toEqual(liveEvents);
      const [{ segments }] = await db.query('SELECT count(*)::int AS segments FROM ledger_archive_segments');
      expect(segments).toBe(0);
      expect(existsSync(directory) ? readdirSync(directory).filter((file) => file.endsWith('.ndjson.gz')) : []).toEqual([]);
    };

    // ---- Bad input: a clear error, nothing changed. ----
    expect(() => parseArchiveArguments([])).toThrow(/--before YYYY-MM is required/);
    expect(parseArchiveArguments(['--before=2026-01'])).toEqual({ before: '2026-01' });
    for (const [before, message] of [
      ['2026-13', /is not a month: use YYYY-MM/],
      ['last month', /is not a month/],
      ['2026-1', /is not a month/],
      [monthsAgo(-1), /is in the future/],
      [monthsAgo(4), /nothing to archive before .*: the ledger has no event created before/],
    ] as const) {
      await expect(archive(before)).rejects.toThrow(ArchiveInputError);
      await expect(archive(before)).rejects.toThrow(message);
    }
    const [{ snapshots }] = await db.query('SELECT count(*)::int AS snapshots FROM ledger_snapshots');
    expect(snapshots).toBe(0);
    await unchanged();

    // ---- A run stopped after writing and verifying its segments, before removing any row (a crash there). ----
    const before = monthsAgo(2);
    const stopped = await archive(before, { stopBeforeDelete: true });
    expect(stopped.segments.map((segment) => segment.file)).toEqual([
      `events-${monthsAgo(4)}.ndjson.gz`,
      `events-${monthsAgo(3)}.ndjson.gz`,
    ]);
    expect(await store.readAll()).toEqual(liveEvents);
    const [{ rows: stillHot }] = await db.query('SELECT count(*)::int AS rows FROM events');
    expect(stillHot).toBe(head);

    // ---- The rerun finishes it. ----
    const report = await archive(before);
    expect(report.archivedThrough).toBe(endOfSecond);
    expect(report.eventsArchived).toBe(endOfSecond);
    expect(report.segments.map((segment) => [segment.firstPosition, segment.lastPosition, segment.count])).toEqual([
      [1, endOfFirst, endOfFirst],
      [endOfFirst + 1, endOfSecond, endOfSecond - endOfFirst],
    ]);
    // The hot table holds only the newer months; the append-only trigger still refuses an ordinary DELETE.
    const [hot] = await db.query('SELECT count(*)::int AS rows, min(position)::int AS first FROM events');
    expect(hot).toEqual({ rows: head - endOfSecond, first: endOfSecond + 1 });
    await expect(db.query('DELETE FROM events WHERE position = $1', [head])).rejects.toThrow(/append-only/);
    await expect(
      db.transaction(async (manager) => {
        await manager.query("SET LOCAL tollgate.ledger_archive_through = '999999'");
        await manager.query('DELETE FROM events WHERE position = $1', [head]);
      }),
    ).rejects.toThrow(/append-only/);

    // Segments and manifest: sizes, hashes, counts and the events themselves.
    const manifest = JSON.parse(readFileSync(join(directory, 'manifest.json'), 'utf8'));
    expect(manifest.archivedThrough).toBe(endOfSecond);
    expect(manifest.snapshotId).toBe(report.snapshotId);
    expect(manifest.segments).toEqual(report.segments);
    for (const segment of report.segments) {
      const bytes = readFileSync(join(directory, segment.file));
      expect({ bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') }).toEqual({
        bytes: segment.bytes,
        sha256: segment.sha256,
      });
      const lines = gunzipSync(bytes).toString('utf8').trim().split('\n');
      expect(lines.map((line) => JSON.parse(line).position)).toEqual(
        liveEvents.slice(segment.firstPosition - 1, segment.lastPosition).map((event) => event.position),
      );
    }
    expect(readdirSync(directory).filter((file) => file.includes('.tmp-'))).toEqual([]);

    // ---- Every read of the store is what it was: the whole log (paged too) and each stream. ----
    expect(await store.readAll()).toEqual(liveEvents);
    const paged: RecordedEvent[] = [];
    for (
      let page = await store.readAll({ maxCount: 7 });
      page.length;
      page = await store.readAll({ after: paged[paged.length - 1].position, maxCount: 7 })
    ) {
      expect(page.length).toBeLessThanOrEqual(7);
      paged.push(...page);
    }
    expect(paged).toEqual(liveEvents);
    expect(await store.readAll({ after: endOfFirst - 2, maxCount: 3 })).toEqual(liveEvents.slice(endOfFirst - 2, endOfFirst + 1));
    // The rebuild's reader (the table's part by COPY in binary) reads the same, segments included, paged too.
    const readInBulk = (after: number, maxCount: number) => store.readAllInBulk!({ after, maxCount });
    const bulk: RecordedEvent[] = [];
    for (let page = await readInBulk(0, 7); page.length; page = await readInBulk(bulk[bulk.length - 1].position, 7)) bulk.push(...page);
    expect(bulk).toEqual(liveEvents);
    expect(await readInBulk(0, 100_000)).toEqual(liveEvents);
    expect(await readInBulk(endOfFirst - 2, 3)).toEqual(liveEvents.slice(endOfFirst - 2, endOfFirst + 1));
    for (const [stream, events] of liveStreams) expect({ stream, events: await store.readStream(stream) }).toEqual({ stream, events });
    expect(await store.readStream(accountStream(alice.id), { fromRevision: 2, maxCount: 3 })).toEqual(
      liveStreams.get(accountStream(alice.id))!.slice(2, 5),
    );
    expect(await store.headPosition()).toBe(head);

    // The read models are untouched by the archive (statements and logs of the archived months included).
    expect((await compareTables(live, db, tables)).differences).toEqual([]);
    expect(await statements()).toEqual(liveStatements);
    expect(await archivedMonth()).toEqual(liveArchivedMonth);

    // ---- Rebuild from the snapshot: restores it, replays only the hot events. ----
    const fromSnapshot = await rebuildProjectionsIn(target.app, { waitSeconds: 30 }, () => undefined);
    expect(fromSnapshot.snapshot).toEqual(expect.objectContaining({ id: report.snapshotId }));
    expect(fromSnapshot.snapshot!.position).toBeGreaterThanOrEqual(endOfSecond);
    expect(fromSnapshot.eventsReplayed).toBe(head - fromSnapshot.snapshot!.position);
    expect(fromSnapshot.position).toBe(head);
    await projected(target);
    expect((await compareTables(live, db, tables)).differences).toEqual([]);
    expect(await statements()).toEqual(liveStatements);
    expect(await archivedMonth()).toEqual(liveArchivedMonth);
    expect(await logsPage()).toEqual(liveLogs);

    // ---- Rebuild from the archive: every event from position 1, segments first. ----
    const fromArchive = await rebuildProjectionsIn(target.app, { waitSeconds: 30, fromArchive: true }, () => undefined);
    expect(fromArchive.snapshot).toBeNull();
    expect(fromArchive.eventsReplayed).toBe(head);
    await projected(target);
    expect((await compareTables(live, db, tables)).differences).toEqual([]);
    expect(await statements()).toEqual(liveStatements);
    expect(await archivedMonth()).toEqual(liveArchivedMonth);
    expect(await logsPage()).toEqual(liveLogs);

    // ---- Commands on archived streams. ----
    // `early` has every event archived. A used code whose credit is archived: refused as before, and the re-driven
    // credit stays a no-op, alone or in a group commit; the stream still exists for an expected revision.
    const earlyBefore = liveStreams.get(accountStream(early.id))!;
    expect(earlyBefore[earlyBefore.length - 1].position).toBeLessThanOrEqual(endOfFirst);
    const refused = (await call(target, bob, 'post', '/api/user/topup', { key: keys[0] }).expect(200)).body;
    expect(refused).toEqual({ success: false, message: '兑换失败，该兑换码已被使用' });
    const credit = earlyBefore.find((event) => event.type === 'QuotaRedeemed')!;
    const again = { id: credit.id, type: credit.type, data: credit.data, metadata: credit.metadata };
    const original = { nextExpectedRevision: credit.revision, position: credit.position };
    expect(await store.appendToStream(accountStream(early.id), [again])).toEqual(original);
    const batch = await store.appendMany(
      [0, 1, 2, 3].map(() => ({ streamId: accountStream(early.id), events: [again] })),
      { durability: 'async' },
    );
    expect(batch).toEqual(Array(4).fill({ ok: true, result: original }));
    await expect(
      store.appendToStream(accountStream(early.id), [{ ...again, id: '0b5c3f4e-4a55-4c7e-9d4e-3d1b2a0f9e11' }], {
        expectedRevision: 'no_stream',
      }),
    ).rejects.toThrow(WrongExpectedRevisionError);
    expect(await store.headPosition()).toBe(head);

    // An admin edit of `early` continues its revisions and its balance.
    const [{ quota: earlyQuota }] = await db.query('SELECT quota FROM account_balances WHERE user_id = $1', [early.id]);
    await adminEdit(early, (quota) => quota + 1000);
    const earlyAfter = await store.readStream(accountStream(early.id));
    expect(earlyAfter.map((event) => event.revision)).toEqual(earlyAfter.map((_, index) => index));
    expect(earlyAfter.slice(0, -1)).toEqual(earlyBefore);
    expect(earlyAfter[earlyAfter.length - 1].position).toBe(head + 1);
    await projected(target);
    const [{ quota: earlyNow }] = await db.query('SELECT quota FROM account_balances WHERE user_id = $1', [early.id]);
    expect(Number(earlyNow)).toBe(Number(earlyQuota) + 1000);
    // The rebuild from the archive still equals live after the new event.
    const liveNow = await snapshotTables(db, tables);
    await rebuildProjectionsIn(target.app, { waitSeconds: 30, fromArchive: true }, () => undefined);
    await projected(target);
    expect((await compareTables(liveNow, db, tables)).differences).toEqual([]);

    // Archiving the same month again has nothing to do, and says so.
    await expect(archive(before)).rejects.toThrow(/nothing to archive before .*: events up to position \d+ are archived already/);

    // ---- A later run archives the next month on top: three segments, reads and rebuilds unchanged. ----
    const eventsNow = await store.readAll();
    const streamsNow = new Map<string, RecordedEvent[]>();
    for (const { id } of users) streamsNow.set(accountStream(id), await store.readStream(accountStream(id)));
    const second = await archive(monthsAgo(1));
    expect(second.segments.map((segment) => [segment.file, segment.firstPosition, segment.lastPosition])).toEqual([
      [`events-${monthsAgo(2)}.ndjson.gz`, endOfSecond + 1, endOfThird],
    ]);
    expect(JSON.parse(readFileSync(join(directory, 'manifest.json'), 'utf8')).segments).toHaveLength(3);
    const [hotNow] = await db.query('SELECT count(*)::int AS rows, min(position)::int AS first FROM events');
    expect(hotNow).toEqual({ rows: eventsNow.length - endOfThird, first: endOfThird + 1 });
    expect(await store.readAll()).toEqual(eventsNow);
    for (const [stream, events] of streamsNow) expect({ stream, events: await store.readStream(stream) }).toEqual({ stream, events });
    const third = await rebuildProjectionsIn(target.app, { waitSeconds: 30 }, () => undefined);
    expect(third.snapshot).toEqual(expect.objectContaining({ id: second.snapshotId }));
    await projected(target);
    expect((await compareTables(liveNow, db, tables)).differences).toEqual([]);
    expect(await db.query('SELECT count(*)::int AS snapshots FROM ledger_snapshots')).toEqual([{ snapshots: 1 }]);
  });
});
