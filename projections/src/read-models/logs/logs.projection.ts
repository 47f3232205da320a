import type { EntityManager } from 'typeorm';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { AccountEventType } from '#server/modules/accounts/account.events';
import { LogsEventType } from '#server/modules/logs/logs.events';
import { QUOTA_CONSUMED } from '#server/modules/accounts/index';
import { applyInRuns, decodeEvent } from '../../runner/batch-folds';
import type { BulkFold } from '../../runner/bulk-fold';
import type { Projection } from '../../runner/projection';
import { queryPrepared } from '../../runner/prepared-query';
import { ReadModelProjection } from '../../runner/read-model-projection.decorator';
import { ensureLogPartitions } from './log-partitions';
import { LogsBulkFold } from './logs-bulk-fold';
import {
  accountRowOf,
  applyPurge,
  consumeRowOf,
  consumeRowValues,
  FACT_COLUMNS,
  isConsumeRow,
  purgeOf,
  type StoredConsumeRow,
} from './logs-rows';

/**
 * For an insert whose $1 is the event's position and $3 its created_at: skip a row that a purge later in the ledger
 * already deleted. The runner applies each event once, so this only matters to a hand-run replay, which then
 * cannot bring purged rows back.
 */
const NOT_PURGED_LATER = 'WHERE NOT EXISTS (SELECT 1 FROM log_purges p WHERE p.position > $1::bigint AND p.target_timestamp > $3::bigint)';

/**
 * `logs` (and `log_purges`): the rows of the log screen. Account events become type 3 (admin) and type 4 (system)
 * rows, the relay's QuotaConsumed a type 2 (consume) row; top-ups (type 1) join as their events do. A LogsPurged (an
 * admin's) or LogsRetentionApplied (the LogRetentionDays job's) deletes the rows older than its timestamp, dropping
 * whole month partitions and deleting only the boundary month's rows, and records how many it deleted. Every row's
 * `id` is its event's ledger position; times, names and wording come from the event, so a rebuild writes identical
 * rows. `logs` is partitioned by month of created_at: a row's month partition is created before the row is written
 * (log-partitions.ts).
 */
@ReadModelProjection()
export class LogsProjection implements Projection {
  readonly name = 'logs';
  readonly tables = ['logs', 'log_purges'];
  readonly handles = [
    ...Object.values(AccountEventType),
    QUOTA_CONSUMED,
    LogsEventType.LogsPurged,
    LogsEventType.LogsRetentionApplied,
    LogsEventType.ChannelTestLogged,
  ];
  /** The log screen's filters and sorts: no fold reads them (a purge drops months, or deletes in its boundary month's partition). */
  readonly deferredIndexes = [
    'logs_user_id_idx',
    'logs_created_at_idx',
    'logs_token_id_idx',
    'logs_username_idx',
    'logs_model_name_idx',
    'logs_channel_id_idx',
  ];

  async apply(event: RecordedEvent, manager: EntityManager): Promise<void> {
    if (event.type === LogsEventType.LogsPurged || event.type === LogsEventType.LogsRetentionApplied) {
      const purge = purgeOf(event);
      if (purge) await applyPurge(event, purge, manager);
      return;
    }
    if (isConsumeRow(event)) {
      const row = consumeRowOf(event);
      if (row) await this.insertRow(event, row, manager);
      return;
    }
    const account = accountRowOf(event);
    if (!account) return;
    await ensureLogPartitions(manager, [account.createdAt]);
    await manager.query(
      `INSERT INTO logs (id, user_id, created_at, type, content, username, other)
       SELECT $1, $2, $3, $4, $5, $6, '' ${NOT_PURGED_LATER}
       ON CONFLICT (id, created_at) DO NOTHING`,
      [event.position, account.userId, account.createdAt, account.line.type, account.line.content, account.username],
    );
  }

  /** A rebuild from empty tables: the rows made in memory and written with COPY, purges in their place (logs-bulk-fold.ts). */
  bulkFold(): BulkFold {
    return new LogsBulkFold();
  }

  /**
   * A batch: each run of consecutive consume rows (relay charges and channel tests) in ONE multi-row insert; purges
   * and the rows of account events through `apply` in their place, so a purge deletes exactly the rows before it.
   */
  async applyBatch(events: readonly RecordedEvent[], manager: EntityManager): Promise<void> {
    await applyInRuns(this, events, manager, isConsumeRow, (run) => this.insertConsumeRows(run, manager));
  }

  /**
   * A run of consume rows as ONE insert of arrays (`unnest`), so its bind parameters stay 25 whatever the batch
   * size (one VALUES tuple per row would need 25 per row: 500 rows are 12,500, and the protocol's limit is 65,535).
   * The same row values, purge guard and ON CONFLICT as the per-event insert; an event handed over twice keeps its
   * first occurrence, as two inserts one after the other would.
   */
  private async insertConsumeRows(run: readonly RecordedEvent[], manager: EntityManager): Promise<void> {
    const rows: Array<{ event: RecordedEvent; row: StoredConsumeRow }> = [];
    const seen = new Set<string>();
    for (const event of run) {
      const row = decodeEvent(event, consumeRowOf);
      if (!row || seen.has(event.id)) continue;
      seen.add(event.id);
      rows.push({ event, row });
    }
    if (rows.length === 0) return;
    await ensureLogPartitions(
      manager,
      rows.map(({ row }) => row.createdAt),
    );
    const values = <V>(value: (item: { event: RecordedEvent; row: StoredConsumeRow }) => V) => rows.map(value);
    await queryPrepared(
      manager,
      `INSERT INTO logs (id, user_id, created_at, type, content, username, token_name, model_name, quota, prompt_tokens,
         completion_tokens, use_time, is_stream, channel_id, token_id, "group", other, ${FACT_COLUMNS})
       SELECT r.* FROM unnest($1::bigint[], $2::integer[], $3::bigint[], $4::integer[], $5::text[], $6::text[], $7::text[],
                              $8::text[], $9::bigint[], $10::integer[], $11::integer[], $12::integer[], $13::boolean[],
                              $14::integer[], $15::integer[], $16::text[], $17::text[], $18::float8[], $19::float8[],
                              $20::float8[], $21::float8[], $22::float8[], $23::integer[], $24::smallint[], $25::smallint[])
         AS r(id, user_id, created_at, type, content, username, token_name, model_name, quota, prompt_tokens,
              completion_tokens, use_time, is_stream, channel_id, token_id, "group", other, ${FACT_COLUMNS})
        WHERE NOT EXISTS (SELECT 1 FROM log_purges p WHERE p.position > r.id AND p.target_timestamp > r.created_at)
       ON CONFLICT (id, created_at) DO NOTHING`,
      [
        values(({ event }) => event.position),
        values(({ row }) => row.userId),
        values(({ row }) => row.createdAt),
        values(({ row }) => row.type),
        values(({ row }) => row.content),
        values(({ row }) => row.username),
        values(({ row }) => row.tokenName),
        values(({ row }) => row.modelName),
        values(({ row }) => row.quota),
        values(({ row }) => row.promptTokens),
        values(({ row }) => row.completionTokens),
        values(({ row }) => row.useTime),
        values(({ row }) => row.isStream),
        values(({ row }) => row.channelId),
        values(({ row }) => row.tokenId),
        values(({ row }) => row.group),
        values(({ row }) => row.other),
        values(({ row }) => row.facts.modelRatio),
        values(({ row }) => row.facts.completionRatio),
        values(({ row }) => row.facts.groupRatio),
        values(({ row }) => row.facts.modelPrice),
        values(({ row }) => row.facts.frt),
        values(({ row }) => row.facts.cacheTokens),
        values(({ row }) => row.facts.usageSource),
        values(({ row }) => row.facts.endReason),
      ],
    );
  }

  /** One row of the consume kind (a charge, or a channel test's), unless a later purge already covers its time. */
  private async insertRow(event: RecordedEvent, row: StoredConsumeRow, manager: EntityManager): Promise<void> {
    await ensureLogPartitions(manager, [row.createdAt]);
    await manager.query(
      `INSERT INTO logs (id, user_id, created_at, type, content, username, token_name, model_name, quota, prompt_tokens,
         completion_tokens, use_time, is_stream, channel_id, token_id, "group", other, ${FACT_COLUMNS})
       SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25
       ${NOT_PURGED_LATER}
       ON CONFLICT (id, created_at) DO NOTHING`,
      consumeRowValues(event.position, row),
    );
  }
}
