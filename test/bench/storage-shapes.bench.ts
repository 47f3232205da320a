/**
 * Bytes per relay charge in `events` for each stored shape of QuotaConsumed (docs/ledger.md, "QuotaConsumed as
 * stored"): v1 (the whole object, full metadata, UUID v5 id of a random request id) against v2 and v3 (the codec's
 * quotaConsumedEvent, UUID v7 request id), with one account stream and with 50 written in turn. The table is the
 * migration's own (CreateLedgerEvents1732300000100), in a database of its own that is dropped at the end.
 *
 *   node -r ./test/support/swc-register.js test/bench/storage-shapes.bench.ts [charges=30000]
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { CreateLedgerEvents1732300000100 } from '../../server/src/infrastructure/database/migrations/1732300000100-create-ledger-events';
import { eventMetadata, userActor } from '../../server/src/ledger/event-envelope';
import { uuidV7 } from '../../server/src/ledger/event-ids';
import { type QuotaConsumedData, quotaConsumedEvent, quotaConsumedEventId } from '../../server/src/modules/accounts';

const CHARGES = Number(process.argv[2] ?? 30_000);
const SERVER = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DATABASE = `tollgate_storage_shapes_${process.pid}`;

/** A charge as the benchmark's requests make them (gpt-4o-mini, 12 + 20 tokens, the names `npm run bench` gives its token and channel). */
function charge(requestId: string, userId: number, at: number): QuotaConsumedData {
  return {
    requestId,
    userId,
    username: 'root',
    tokenId: 1,
    tokenName: 'bench-51853989',
    group: 'default',
    modelName: 'gpt-4o-mini',
    upstreamModel: 'gpt-4o-mini',
    channelId: 1,
    channelName: 'bench-fake-upstream',
    channelPath: [1],
    relayMode: 'chat',
    promptTokens: 12,
    completionTokens: 20,
    cachedTokens: 0,
    modelRatio: 0.075,
    completionRatio: 4,
    groupRatio: 1,
    modelPrice: -1,
    quota: 7,
    tokenUnlimited: false,
    isStream: false,
    useTimeSeconds: 0,
    firstTokenMs: 0,
    createdAt: Math.floor(at / 1000),
    usageSource: 'upstream',
    endReason: 'completed',
  };
}

/** [stream, id, data, metadata] of one charge in the given shape. */
function stored(shape: 'v1' | 'v2' | 'v3', userId: number, at: number): [string, string, string, string] {
  if (shape !== 'v1') {
    const { streamId, event } = quotaConsumedEvent(charge(uuidV7(at), userId, at), { userRole: 100, clientIp: '127.0.0.1' }, shape);
    return [streamId, event.id, JSON.stringify(event.data), JSON.stringify(event.metadata)];
  }
  const requestId = randomUUID();
  const metadata = eventMetadata({
    correlationId: requestId,
    reasonCode: 'relay_request',
    actor: userActor(userId, 100),
    clientIp: '127.0.0.1',
  });
  return [
    `account-${userId}`,
    quotaConsumedEventId(`v1:${requestId}`),
    JSON.stringify(charge(requestId, userId, at)),
    JSON.stringify(metadata),
  ];
}

async function main(): Promise<void> {
  const admin = new Client({ connectionString: SERVER });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${DATABASE}`);
  const url = new URL(SERVER);
  url.pathname = `/${DATABASE}`;
  const db = new Client({ connectionString: url.toString() });
  try {
    await db.connect();
    console.log(`${CHARGES.toLocaleString('en-US')} charges per case; bytes per charge after VACUUM`);
    for (const shape of ['v1', 'v2', 'v3'] as const) {
      for (const streams of [1, 50]) {
        await db.query('DROP TABLE IF EXISTS events CASCADE');
        await db.query('DROP FUNCTION IF EXISTS ledger_append(text, text, jsonb)');
        await db.query('DROP FUNCTION IF EXISTS ledger_reject_change()');
        await new CreateLedgerEvents1732300000100().up({ query: (sql: string) => db.query(sql) } as never);
        for (let from = 0; from < CHARGES; from += 1000) {
          const rows = Array.from({ length: Math.min(1000, CHARGES - from) }, (_, k) =>
            stored(shape, 1 + ((from + k) % streams), 1_764_100_000_000 + (from + k) * 3),
          );
          await db.query(
            `INSERT INTO events (position, stream_id, revision, event_id, type, data, metadata)
             SELECT $5 + o, s, ($5 + o - 1) / $6, e::uuid, 'QuotaConsumed', d::jsonb, m::jsonb
               FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS x(s, e, d, m, o)`,
            [rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2]), rows.map((r) => r[3]), from, streams],
          );
        }
        await db.query('VACUUM events');
        const {
          rows: [size],
        } = await db.query(
          `SELECT pg_relation_size('events')::float8 / $1 AS heap, pg_indexes_size('events')::float8 / $1 AS indexes,
                  avg(pg_column_size(data))::float8 AS data, avg(pg_column_size(metadata))::float8 AS metadata,
                  avg(pg_column_size(e.*))::float8 AS row
             FROM events e`,
          [CHARGES],
        );
        const { rows: indexes } = await db.query(
          `SELECT indexrelid::regclass::text AS name, pg_relation_size(indexrelid)::float8 / $1 AS bytes FROM pg_index WHERE indrelid = 'events'::regclass`,
          [CHARGES],
        );
        const n = (value: number) => Math.round(value).toString();
        console.log(
          `${shape}, ${streams} stream(s): data ${n(size.data)}, metadata ${n(size.metadata)}, row ${n(size.row)}; ` +
            `heap ${n(size.heap)} + indexes ${n(size.indexes)} = ${n(size.heap + size.indexes)} ` +
            `(${indexes.map((index: { name: string; bytes: number }) => `${index.name} ${n(index.bytes)}`).join(', ')})`,
        );
      }
    }
  } finally {
    await db.end().catch(() => undefined);
    await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
    await admin.end();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
