import type { EntityManager } from 'typeorm';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { QUOTA_CONSUMED } from '#server/modules/accounts/index';
import { advancingPerKey, applyInRuns, decodeEvent } from '../../runner/batch-folds';
import type { Projection } from '../../runner/projection';
import { queryPrepared } from '../../runner/prepared-query';
import { ReadModelProjection } from '../../runner/read-model-projection.decorator';
import type { BulkFold } from '../../runner/bulk-fold';
import { type QuotaDataCharge, quotaDataChargeOfEvent, quotaDataKey } from './quota-data';
import { QuotaDataBulkFold } from './quota-data-bulk-fold';

const isCharge = (event: RecordedEvent) => event.type === QUOTA_CONSUMED;

/**
 * `quota_data`, the data dashboard: every QuotaConsumed on `account-{userId}` adds one to `count`, its quota to
 * `quota` and its prompt + completion tokens to `token_used` of its (user, name, model, hour) row, at once
 * (new-api flushed every DataExportInterval minutes and forgot token_used on rows that existed). A row's `id` is
 * the position of its first charge and `position` that of its last, the guard against a hand-run replay.
 */
@ReadModelProjection()
export class QuotaDataProjection implements Projection {
  readonly name = 'quota-data';
  readonly tables = ['quota_data'];
  readonly handles = [QUOTA_CONSUMED];
  /** The dashboard's time and user filters; the folds find a row by its unique key (quota_data_row), which stays. */
  readonly deferredIndexes = ['quota_data_created_at', 'quota_data_username_created_at'];

  async apply(event: RecordedEvent, manager: EntityManager): Promise<void> {
    const charge = quotaDataChargeOfEvent(event);
    if (!charge) return;
    await manager.query(
      `INSERT INTO quota_data AS q (id, user_id, username, model_name, created_at, count, quota, token_used, position)
       VALUES ($1, $2, $3, $4, $5, 1, $6, $7, $1)
       ON CONFLICT (user_id, username, model_name, created_at) DO UPDATE SET
         count = q.count + 1, quota = q.quota + $6::bigint, token_used = q.token_used + $7::bigint, position = $1
       WHERE q.position < $1`,
      [event.position, charge.userId, charge.username, charge.modelName, charge.hour, charge.quota, charge.tokenUsed],
    );
  }

  /** A rebuild from empty tables, folded in memory (quota-data-bulk-fold.ts). */
  bulkFold(): BulkFold {
    return new QuotaDataBulkFold((events, manager) => this.applyBatch(events, manager));
  }

  /** A batch: its charges in ONE statement, folded per row. */
  async applyBatch(events: readonly RecordedEvent[], manager: EntityManager): Promise<void> {
    await applyInRuns(this, events, manager, isCharge, (run) => this.applyCharges(run, manager));
  }

  /**
   * A run of charges as `apply` folds them one by one: per row, the charges whose position beats every earlier one
   * (advancingPerKey) and the stored one are summed; a new row takes the position of its first charge as its id.
   */
  private async applyCharges(run: readonly RecordedEvent[], manager: EntityManager): Promise<void> {
    const charges: Array<{ charge: QuotaDataCharge; key: string; position: number }> = [];
    for (const event of run) {
      const charge = decodeEvent(event, quotaDataChargeOfEvent);
      if (charge) charges.push({ charge, key: quotaDataKey(charge), position: event.position });
    }
    const kept = advancingPerKey(
      charges,
      (item) => item.key,
      (item) => item.position,
    );
    if (kept.length === 0) return;
    const values = <V>(value: (item: (typeof kept)[number]) => V) => kept.map(value);
    await queryPrepared(
      manager,
      `WITH charge AS (
         SELECT * FROM unnest($1::bigint[], $2::integer[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::bigint[])
           AS c(position, user_id, username, model_name, created_at, quota, token_used)
       ), folded AS (
         SELECT c.user_id, c.username, c.model_name, c.created_at, min(c.position) AS first, max(c.position) AS last,
                count(*)::integer AS n, sum(c.quota)::bigint AS quota, sum(c.token_used)::bigint AS token_used
           FROM charge c
           LEFT JOIN quota_data q
             ON q.user_id = c.user_id AND q.username = c.username AND q.model_name = c.model_name AND q.created_at = c.created_at
          WHERE q.id IS NULL OR c.position > q.position
          GROUP BY c.user_id, c.username, c.model_name, c.created_at
       )
       INSERT INTO quota_data AS q (id, user_id, username, model_name, created_at, count, quota, token_used, position)
       SELECT first, user_id, username, model_name, created_at, n, quota, token_used, last FROM folded ORDER BY first
       ON CONFLICT (user_id, username, model_name, created_at) DO UPDATE SET
         count = q.count + EXCLUDED.count, quota = q.quota + EXCLUDED.quota,
         token_used = q.token_used + EXCLUDED.token_used, position = EXCLUDED.position`,
      [
        values((item) => item.position),
        values((item) => item.charge.userId),
        values((item) => item.charge.username),
        values((item) => item.charge.modelName),
        values((item) => item.charge.hour),
        values((item) => item.charge.quota),
        values((item) => item.charge.tokenUsed),
      ],
    );
  }
}
