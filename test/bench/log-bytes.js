#!/usr/bin/env node
'use strict';
/**
 * `node test/bench/log-bytes.js [--rows 200000]` (after `npm run build:server`): bytes per `logs` row, table and each
 * index, for the layout before migration 1732300009100 and after it (monthly partitions, consume columns instead
 * of derivable texts, no event_id, fewer indexes). Two scratch databases are migrated (one stopping before 1732300009100), filled with the same rows
 * shaped like a relay's type 2 rows (50 users, 200 tokens, 12 models, 8 channels, 3 groups, content and `other`
 * as consumeLogRow writes them, one row per ledger position over 90 days), vacuumed, measured and dropped. Figures
 * are byte counts (pg_relation_size), not timings, so a shared machine does not skew them. A tool, not a test.
 */
const { randomBytes } = require('node:crypto');
const { Client } = require('pg');
const { DataSource } = require('typeorm');
const { parseFlags } = require('./lib/flags');

const flags = parseFlags(process.argv.slice(2), { rows: 200000 });
const rows = Number(flags.rows);
const admin = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const { migrations } = require('../../dist/server/src/infrastructure/database/migrations/index.js');

const urlOf = (name) => {
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
};

async function withAdmin(sql) {
  const client = new Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * The fill: type 2 rows as the projection writes them. Before 1732300009100: full `content` and `other` texts and
 * an `event_id`. After: the consume columns (NULL where they hold their fallback), and the texts NULL where they
 * derive back (all rows but one in 20, standing for retried requests, whose `other` keeps the channel path as text).
 */
function fillSql(layout) {
  const ratio = '(0.075 * (1 + g % 12))';
  const frt = 'CASE WHEN g % 3 = 0 THEN (200 + g % 900) ELSE -1000 END';
  // The consume columns as the projection stores them: a column at consumeLogRow's fallback (group ratio 1, price -1,
  // frt -1000 when not streamed, no cached tokens) is NULL (consume-log-columns.ts, storedFacts).
  const frtStored = 'CASE WHEN g % 3 = 0 THEN (200 + g % 900) END';
  const content = `'模型倍率 ' || to_char(${ratio}, 'FM0.00') || '，补全倍率 4.00，分组倍率 1.00'`;
  const other =
    `'{"admin_info":{"use_channel":["' || (1 + g % 8) || '"]},"cache_tokens":0,"completion_ratio":4,"end_reason":"completed","frt":' ||` +
    ` (${frt})::text || ',"group_ratio":1,"model_price":-1,"model_ratio":' || ${ratio}::text || ',"usage_source":"upstream"}'`;
  const before = layout === 'before';
  return `
    INSERT INTO logs (id, user_id, created_at, type, content, username, token_name, model_name, quota, prompt_tokens,
                      completion_tokens, use_time, is_stream, channel_id, token_id, "group", other
                      ${before ? ', event_id' : ', model_ratio, completion_ratio, group_ratio, model_price, frt, cache_tokens, usage_source, end_reason'})
    SELECT g, 1 + g % 50, 1730419200 + (g::bigint * 7776000 / ${rows}), 2,
           ${before ? content : 'NULL'},
           'user' || (1 + g % 50), 'token-' || (g % 200), (ARRAY['gpt-4o-mini','gpt-4o','claude-3-5-sonnet-20241022',
           'gemini-1.5-pro','gpt-3.5-turbo','deepseek-chat','o1-mini','text-embedding-3-small','dall-e-3','gpt-4-turbo',
           'claude-3-haiku-20240307','qwen-max'])[1 + g % 12], 150 + g % 9000, 200 + g % 3000, 50 + g % 900, 1 + g % 9,
           g % 3 = 0, 1 + g % 8, 1 + g % 200, (ARRAY['default','vip','svip'])[1 + g % 3],
           ${before ? other : `CASE WHEN g % 20 = 0 THEN ${other.replace('"use_channel":["', '"use_channel":["9","')} END`}
           ${before ? ', gen_random_uuid()' : `, ${ratio}, 4, NULL, NULL, ${frtStored}, NULL, 0, 0`}
      FROM generate_series(1, ${rows}) g`;
}

async function measure(label, stopBefore) {
  const name = `tg_logbytes_${randomBytes(4).toString('hex')}`;
  await withAdmin(`CREATE DATABASE "${name}"`);
  const source = new DataSource({
    type: 'postgres',
    driver: require('pg'),
    url: urlOf(name),
    migrations: stopBefore ? migrations.filter((m) => !/^PartitionLogsByMonth/.test(m.name)) : migrations,
    migrationsTableName: 'migrations',
    extra: { max: 1 },
  });
  try {
    await source.initialize();
    await source.runMigrations({ transaction: 'each' });
    await source.query(fillSql(stopBefore ? 'before' : 'after'));
    await source.query('VACUUM ANALYZE logs');
    // Every relation of logs: the table (or its partitions) with TOAST, and each index summed over partitions.
    const relations = await source.query(`
      WITH parts AS (
        SELECT c.oid FROM pg_class c WHERE c.relname = 'logs' AND c.relkind = 'r'
        UNION ALL SELECT i.inhrelid FROM pg_inherits i WHERE i.inhparent = 'logs'::regclass
      )
      SELECT 'table (heap + toast)' AS relation, sum(pg_table_size(oid))::bigint AS bytes FROM parts
      UNION ALL
      SELECT coalesce(pi.relname, ci.relname), sum(pg_relation_size(x.indexrelid))::bigint
        FROM parts p JOIN pg_index x ON x.indrelid = p.oid JOIN pg_class ci ON ci.oid = x.indexrelid
        LEFT JOIN pg_inherits ih ON ih.inhrelid = x.indexrelid LEFT JOIN pg_class pi ON pi.oid = ih.inhparent
       GROUP BY 1 ORDER BY 2 DESC`);
    const total = relations.reduce((sum, row) => sum + Number(row.bytes), 0);
    console.log(`\n${label}: ${rows} rows, ${(total / rows).toFixed(1)} bytes/row in all`);
    for (const row of relations) console.log(`  ${row.relation.padEnd(34)} ${(Number(row.bytes) / rows).toFixed(1).padStart(7)} B/row`);
    return total / rows;
  } finally {
    await source.destroy().catch(() => undefined);
    await withAdmin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
}

(async () => {
  const before = await measure('before 1732300009100 (one table, event_id, 11 indexes)', true);
  const after = await measure('after 1732300009100 (monthly partitions, consume columns, 7 indexes)', false);
  console.log(`\n${(((before - after) / before) * 100).toFixed(1)}% smaller`);
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
