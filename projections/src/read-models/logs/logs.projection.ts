import type { EntityManager } from 'typeorm';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { streamCategory, streamKey } from '#server/ledger/streams';
import { AccountEventType } from '#server/modules/accounts/account.events';
import { logAnnotationOf, toAccountEvent } from '#server/modules/accounts/account-event-codec';
import { LOGS_STREAM, LogsEventType, toLogsPurged } from '#server/modules/logs/logs.events';
import { QUOTA_CONSUMED, type QuotaConsumedData } from '#server/modules/accounts/index';
import { applyInRuns, decodeEvent } from '../../runner/batch-folds';
import type { Projection } from '../../runner/projection';
import { queryPrepared } from '../../runner/prepared-query';
import { ReadModelProjection } from '../../runner/read-model-projection.decorator';
import { accountLogLine } from './account-log-lines';
import { channelTestLogRow } from './channel-test-log-row';
import { type ConsumeLogRow, consumeLogRow } from './consume-log-row';

const unixSeconds = (date: Date) => Math.floor(date.getTime() / 1000);

/**
 * For an insert whose $1 is the event's position and $3 its created_at: skip a row that a purge later in the ledger
 * already deleted. The runner applies each event once, so this only matters to a hand-run replay, which then
 * cannot bring purged rows back.
 */
const NOT_PURGED_LATER = 'WHERE NOT EXISTS (SELECT 1 FROM log_purges p WHERE p.position > $1::bigint AND p.target_timestamp > $3::bigint)';

/** The consume-shaped rows (relay charges, channel tests): inserted set-based when they come in a run. */
const isConsumeRow = (event: RecordedEvent) => event.type === QUOTA_CONSUMED || event.type === LogsEventType.ChannelTestLogged;

/**
 * `logs` (and `log_purges`): the rows of the log screen. Account events become type 3 (admin) and type 4 (system)
 * rows, the relay's QuotaConsumed a type 2 (consume) row; top-ups (type 1) join as their events do. A LogsPurged
 * deletes the rows older than its timestamp and records how many it deleted. Every row's `id` is its event's ledger
 * position; times, names and wording come from the event, so a rebuild writes identical rows.
 */
@ReadModelProjection()
export class LogsProjection implements Projection {
  readonly name = 'logs';
  readonly tables = ['logs', 'log_purges'];
  readonly handles = [...Object.values(AccountEventType), QUOTA_CONSUMED, LogsEventType.LogsPurged, LogsEventType.ChannelTestLogged];
  /** The log screen's filters and sorts: no fold reads them (a purge's delete scans when they are gone). */
  readonly deferredIndexes = [
    'logs_user_id_idx',
    'logs_created_at_type_idx',
    'logs_created_at_id_idx',
    'logs_model_name_username_idx',
    'logs_username_idx',
    'logs_token_name_idx',
    'logs_channel_id_idx',
    'logs_token_id_idx',
    'logs_group_idx',
  ];

  async apply(event: RecordedEvent, manager: EntityManager): Promise<void> {
    const category = streamCategory(event.streamId);
    if (event.type === LogsEventType.LogsPurged) {
      if (event.streamId === LOGS_STREAM) await this.purge(event, manager);
      return;
    }
    if (event.type === LogsEventType.ChannelTestLogged) {
      if (event.streamId === LOGS_STREAM) await this.channelTest(event, manager);
      return;
    }
    if (category !== 'account') return;
    const userId = streamKey(event.streamId);
    if (event.type === QUOTA_CONSUMED) {
      await this.consume(event, userId, manager);
      return;
    }
    const annotation = logAnnotationOf(event);
    const line = accountLogLine(toAccountEvent(event), annotation.quotaDisplay);
    if (!line) return;
    await manager.query(
      `INSERT INTO logs (id, user_id, created_at, type, content, username, other, event_id)
       SELECT $1, $2, $3, $4, $5, $6, '', $7 ${NOT_PURGED_LATER}
       ON CONFLICT (event_id) DO NOTHING`,
      [event.position, userId, unixSeconds(event.createdAt), line.type, line.content, annotation.username, event.id],
    );
  }

  /**
   * A batch: each run of consecutive consume rows (relay charges and channel tests) in ONE multi-row insert; purges
   * and the rows of account events through `apply` in their place, so a purge deletes exactly the rows before it.
   */
  async applyBatch(events: readonly RecordedEvent[], manager: EntityManager): Promise<void> {
    await applyInRuns(this, events, manager, isConsumeRow, (run) => this.insertConsumeRows(run, manager));
  }

  /**
   * The consume row `apply` would write for a relay charge or a channel test (same checks, same order), or null
   * when it writes none.
   */
  private consumeRowOf(event: RecordedEvent): ConsumeLogRow | null {
    if (event.type === LogsEventType.ChannelTestLogged) {
      return event.streamId === LOGS_STREAM ? channelTestLogRow(event.data, event.createdAt) : null;
    }
    if (event.type !== QUOTA_CONSUMED || streamCategory(event.streamId) !== 'account') return null;
    // LogConsumeEnabled was off when the request settled (recorded in the event, so a rebuild skips it too).
    if ((event.data as Partial<QuotaConsumedData>).logConsume === false) return null;
    return consumeLogRow(streamKey(event.streamId), event.data as Partial<QuotaConsumedData>, event.createdAt);
  }

  /**
   * A run of consume rows as ONE insert of arrays (`unnest`), so its bind parameters stay 18 whatever the batch
   * size (one VALUES tuple per row would need 18 per row: 500 rows are 9,000, and the protocol's limit is 65,535).
   * The same row values, purge guard and ON CONFLICT as the per-event insert; an event handed over twice keeps its
   * first occurrence, as two inserts one after the other would.
   */
  private async insertConsumeRows(run: readonly RecordedEvent[], manager: EntityManager): Promise<void> {
    const rows: Array<{ event: RecordedEvent; row: ConsumeLogRow }> = [];
    const seen = new Set<string>();
    for (const event of run) {
      const row = decodeEvent(event, (e) => this.consumeRowOf(e));
      if (!row || seen.has(event.id)) continue;
      seen.add(event.id);
      rows.push({ event, row });
    }
    if (rows.length === 0) return;
    const values = <V>(value: (item: { event: RecordedEvent; row: ConsumeLogRow }) => V) => rows.map(value);
    await queryPrepared(
      manager,
      `INSERT INTO logs (id, user_id, created_at, type, content, username, token_name, model_name, quota, prompt_tokens,
         completion_tokens, use_time, is_stream, channel_id, token_id, "group", other, event_id)
       SELECT r.* FROM unnest($1::bigint[], $2::integer[], $3::bigint[], $4::integer[], $5::text[], $6::text[], $7::text[],
                              $8::text[], $9::bigint[], $10::integer[], $11::integer[], $12::integer[], $13::boolean[],
                              $14::integer[], $15::integer[], $16::text[], $17::text[], $18::uuid[])
         AS r(id, user_id, created_at, type, content, username, token_name, model_name, quota, prompt_tokens,
              completion_tokens, use_time, is_stream, channel_id, token_id, "group", other, event_id)
        WHERE NOT EXISTS (SELECT 1 FROM log_purges p WHERE p.position > r.id AND p.target_timestamp > r.created_at)
       ON CONFLICT (event_id) DO NOTHING`,
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
        values(({ event }) => event.id),
      ],
    );
  }

  private async consume(event: RecordedEvent, userId: number, manager: EntityManager): Promise<void> {
    // LogConsumeEnabled was off when the request settled (recorded in the event, so a rebuild skips it too).
    if ((event.data as Partial<QuotaConsumedData>).logConsume === false) return;
    const row = consumeLogRow(userId, event.data as Partial<QuotaConsumedData>, event.createdAt);
    await this.insertRow(event, row, manager);
  }

  /** The consume row of a channel test (user 1, "模型测试", not charged): a row, and nothing else. */
  private async channelTest(event: RecordedEvent, manager: EntityManager): Promise<void> {
    const row = channelTestLogRow(event.data, event.createdAt);
    await this.insertRow(event, row, manager);
  }

  /** One row of the consume kind (a charge, or a channel test's), unless a later purge already covers its time. */
  private async insertRow(event: RecordedEvent, row: ConsumeLogRow, manager: EntityManager): Promise<void> {
    await manager.query(
      `INSERT INTO logs (id, user_id, created_at, type, content, username, token_name, model_name, quota, prompt_tokens,
         completion_tokens, use_time, is_stream, channel_id, token_id, "group", other, event_id)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18 ${NOT_PURGED_LATER}
       ON CONFLICT (event_id) DO NOTHING`,
      [
        event.position,
        row.userId,
        row.createdAt,
        row.type,
        row.content,
        row.username,
        row.tokenName,
        row.modelName,
        row.quota,
        row.promptTokens,
        row.completionTokens,
        row.useTime,
        row.isStream,
        row.channelId,
        row.tokenId,
        row.group,
        row.other,
        event.id,
      ],
    );
  }

  private async purge(event: RecordedEvent, manager: EntityManager): Promise<void> {
    const purge = toLogsPurged(event.data);
    const done: unknown[] = await manager.query('SELECT 1 FROM log_purges WHERE event_id = $1', [event.id]);
    // The runner applies each event once; this guard only keeps a hand-run replay from recording twice.
    if (done.length) return;
    const deleted: Array<{ count: string }> = await manager.query(
      'WITH gone AS (DELETE FROM logs WHERE created_at < $1 RETURNING 1) SELECT count(*) AS count FROM gone',
      [purge.before],
    );
    await manager.query(
      'INSERT INTO log_purges (event_id, position, target_timestamp, deleted, admin_id, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
      [event.id, event.position, purge.before, Number(deleted[0]?.count ?? 0), purge.adminId, unixSeconds(event.createdAt)],
    );
  }
}
