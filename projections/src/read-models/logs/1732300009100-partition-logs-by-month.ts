import type { MigrationInterface, QueryRunner } from 'typeorm';
import { derivedConsumeContent, derivedConsumeOther } from './consume-log-columns';
import { LAST_MONTH_END } from './log-partitions';

/** A row whose texts are derived, as `down` reads it. */
interface SlimRow {
  id: string;
  created_at: string;
  content: string | null;
  other: string | null;
  prompt_tokens: number;
  completion_tokens: number;
  channel_id: number;
  model_ratio: number | null;
  completion_ratio: number | null;
  group_ratio: number | null;
  model_price: number | null;
  frt: number | null;
  cache_tokens: number | null;
  usage_source: number | null;
  end_reason: number | null;
}

/** The columns of the partitioned `logs`, widest alignment first (8-byte, then 4-byte, bool, then text). */
const COLUMNS =
  'id, created_at, quota, user_id, type, prompt_tokens, completion_tokens, use_time, channel_id, token_id, is_stream, content, username, token_name, model_name, "group", other';

/**
 * `logs` becomes a table partitioned by RANGE on `created_at`, one partition per calendar month (UTC, `logs_pYYYYMM`)
 * plus `logs_default` for times no month covers; the logs projection creates a month's partition before it writes
 * the first row of that month (log-partitions.ts), and a purge drops whole months instead of deleting their rows.
 *
 * Slimmer rows and fewer indexes (measured in docs/logs.md):
 * - a consume row keeps its ratios, price, frt, cached tokens, usage source and end reason as columns, and its
 *   `content` wording and `other` JSON are NULL when those columns give them back exactly (consume-log-columns.ts;
 *   the log API derives them). Rows copied here keep their text (their columns are NULL); a rebuild slims them;
 * - `event_id` is gone: `id` is the event's ledger position, one row per event already, and the primary key
 *   (id, created_at) is what a replay's ON CONFLICT now names (created_at is a function of the event too);
 * - columns in alignment order (no padding between bigint and integer columns);
 * - indexes: the primary key (id, created_at) for the newest-first pages; user_id for a user's own pages (a
 *   (user_id, id) index measured 48 bytes a row against 8, and every page counts all the user's rows anyway);
 *   created_at for time ranges and the stat's last minute; token_id (the public lookup by key); username,
 *   model_name and channel_id for the admin filters. Dropped: the unique event_id, (created_at, id) and
 *   (created_at, type) (one created_at index serves both), (model_name, username) (model_name alone),
 *   token_name and "group" (filters that are used with a user's rows or rarely, see docs/logs.md).
 *
 * Existing rows are copied into the partitions (one per month they cover), then the old table is dropped; ids,
 * times and every column the API reads are unchanged. Indexes are built after the copy.
 */
export class PartitionLogsByMonth1732300009100 implements MigrationInterface {
  name = 'PartitionLogsByMonth1732300009100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE logs RENAME TO logs_unpartitioned');
    await queryRunner.query(`
      CREATE TABLE logs (
        id                 bigint       NOT NULL,
        created_at         bigint       NOT NULL,
        quota              bigint       NOT NULL DEFAULT 0,
        model_ratio        float8       NULL,
        completion_ratio   float8       NULL,
        group_ratio        float8       NULL,
        model_price        float8       NULL,
        frt                float8       NULL,
        user_id            integer      NOT NULL DEFAULT 0,
        type               integer      NOT NULL DEFAULT 0,
        prompt_tokens      integer      NOT NULL DEFAULT 0,
        completion_tokens  integer      NOT NULL DEFAULT 0,
        use_time           integer      NOT NULL DEFAULT 0,
        channel_id         integer      NOT NULL DEFAULT 0,
        token_id           integer      NOT NULL DEFAULT 0,
        cache_tokens       integer      NULL,
        usage_source       smallint     NULL,
        end_reason         smallint     NULL,
        is_stream          boolean      NOT NULL DEFAULT false,
        content            text         NULL,
        username           varchar(64)  NOT NULL DEFAULT '',
        token_name         varchar(128) NOT NULL DEFAULT '',
        model_name         varchar(256) NOT NULL DEFAULT '',
        "group"            varchar(64)  NOT NULL DEFAULT '',
        other              text         NULL
      ) PARTITION BY RANGE (created_at)`);
    await queryRunner.query('CREATE TABLE logs_default PARTITION OF logs DEFAULT');
    // One partition per month the existing rows cover, computed as log-partitions.ts's logMonthOf does.
    await queryRunner.query(`
      DO $$
      DECLARE month timestamp;
      BEGIN
        FOR month IN
          SELECT DISTINCT date_trunc('month', to_timestamp(created_at) AT TIME ZONE 'UTC')
            FROM logs_unpartitioned WHERE created_at >= 0 AND created_at < ${LAST_MONTH_END}
        LOOP
          EXECUTE format('CREATE TABLE %I PARTITION OF logs FOR VALUES FROM (%s) TO (%s)',
            'logs_p' || to_char(month, 'YYYYMM'),
            extract(epoch FROM month AT TIME ZONE 'UTC')::bigint,
            extract(epoch FROM (month + interval '1 month') AT TIME ZONE 'UTC')::bigint);
        END LOOP;
      END $$`);
    await queryRunner.query(`INSERT INTO logs (${COLUMNS}) SELECT ${COLUMNS} FROM logs_unpartitioned`);
    await queryRunner.query('DROP TABLE logs_unpartitioned');
    await queryRunner.query('ALTER TABLE logs ADD CONSTRAINT logs_pkey PRIMARY KEY (id, created_at)');
    await queryRunner.query('CREATE INDEX logs_user_id_idx ON logs (user_id)');
    await queryRunner.query('CREATE INDEX logs_created_at_idx ON logs (created_at)');
    await queryRunner.query('CREATE INDEX logs_token_id_idx ON logs (token_id)');
    await queryRunner.query('CREATE INDEX logs_username_idx ON logs (username)');
    await queryRunner.query('CREATE INDEX logs_model_name_idx ON logs (model_name)');
    await queryRunner.query('CREATE INDEX logs_channel_id_idx ON logs (channel_id)');
  }

  /** Back to one table with `event_id` (recovered from the ledger: the event at the row's position) and the old indexes. */
  async down(queryRunner: QueryRunner): Promise<void> {
    // The texts the new layout left NULL, derived back from the row's columns (as the log API derives them).
    for (let after = -1; ; ) {
      const slim: SlimRow[] = await queryRunner.query(
        `SELECT id, created_at, content, other, prompt_tokens, completion_tokens, channel_id, model_ratio, completion_ratio,
                group_ratio, model_price, frt, cache_tokens, usage_source, end_reason
           FROM logs WHERE (content IS NULL OR other IS NULL) AND id > $1 ORDER BY id LIMIT 1000`,
        [after],
      );
      if (slim.length === 0) break;
      for (const row of slim) {
        const facts = {
          modelRatio: row.model_ratio,
          completionRatio: row.completion_ratio,
          groupRatio: row.group_ratio,
          modelPrice: row.model_price,
          frt: row.frt,
          cacheTokens: row.cache_tokens,
          usageSource: row.usage_source,
          endReason: row.end_reason,
        };
        await queryRunner.query('UPDATE logs SET content = $3, other = $4 WHERE id = $1 AND created_at = $2', [
          row.id,
          row.created_at,
          row.content ?? derivedConsumeContent(facts, row.prompt_tokens, row.completion_tokens) ?? '',
          row.other ?? derivedConsumeOther(facts, row.channel_id) ?? '',
        ]);
      }
      after = Number(slim[slim.length - 1].id);
    }
    await queryRunner.query('ALTER TABLE logs RENAME TO logs_partitioned');
    await queryRunner.query('ALTER TABLE logs_partitioned RENAME CONSTRAINT logs_pkey TO logs_partitioned_pkey');
    await queryRunner.query(`
      CREATE TABLE logs (
        id                 bigint       PRIMARY KEY,
        user_id            integer      NOT NULL DEFAULT 0,
        created_at         bigint       NOT NULL,
        type               integer      NOT NULL DEFAULT 0,
        content            text         NOT NULL DEFAULT '',
        username           varchar(64)  NOT NULL DEFAULT '',
        token_name         varchar(128) NOT NULL DEFAULT '',
        model_name         varchar(256) NOT NULL DEFAULT '',
        quota              bigint       NOT NULL DEFAULT 0,
        prompt_tokens      integer      NOT NULL DEFAULT 0,
        completion_tokens  integer      NOT NULL DEFAULT 0,
        use_time           integer      NOT NULL DEFAULT 0,
        is_stream          boolean      NOT NULL DEFAULT false,
        channel_id         integer      NOT NULL DEFAULT 0,
        token_id           integer      NOT NULL DEFAULT 0,
        "group"            varchar(64)  NOT NULL DEFAULT '',
        other              text         NOT NULL DEFAULT '',
        event_id           uuid         NOT NULL
      )`);
    await queryRunner.query(
      `INSERT INTO logs (${COLUMNS}, event_id) SELECT ${COLUMNS.split(', ')
        .map((column) => `l.${column}`)
        .join(', ')}, e.event_id
         FROM logs_partitioned l JOIN events e ON e.position = l.id`,
    );
    await queryRunner.query('DROP TABLE logs_partitioned');
    await queryRunner.query('ALTER TABLE logs ADD CONSTRAINT logs_event_id_key UNIQUE (event_id)');
    await queryRunner.query('CREATE INDEX logs_user_id_idx ON logs (user_id)');
    await queryRunner.query('CREATE INDEX logs_created_at_id_idx ON logs (created_at, id)');
    await queryRunner.query('CREATE INDEX logs_created_at_type_idx ON logs (created_at, type)');
    await queryRunner.query('CREATE INDEX logs_model_name_username_idx ON logs (model_name, username)');
    await queryRunner.query('CREATE INDEX logs_username_idx ON logs (username)');
    await queryRunner.query('CREATE INDEX logs_token_name_idx ON logs (token_name)');
    await queryRunner.query('CREATE INDEX logs_channel_id_idx ON logs (channel_id)');
    await queryRunner.query('CREATE INDEX logs_token_id_idx ON logs (token_id)');
    await queryRunner.query('CREATE INDEX logs_group_idx ON logs ("group")');
  }
}
