import type { EntityManager } from 'typeorm';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { streamCategory, streamKey } from '#server/ledger/streams';
import { AccountEventType } from '#server/modules/accounts/account.events';
import { QUOTA_CONSUMED } from '#server/modules/accounts/quota-consumed.event';
import { advancingPerKey, applyInRuns, decodeEvent } from '../../runner/batch-folds';
import type { Projection } from '../../runner/projection';
import { queryPrepared } from '../../runner/prepared-query';
import { ReadModelProjection } from '../../runner/read-model-projection.decorator';
import type { BulkFold } from '../../runner/bulk-fold';
import {
  CHARGE_STATEMENT_KIND,
  chargeFacts,
  STATEMENT_COLUMNS,
  type StatementLine,
  statementLine,
  statementLineValues,
} from './statement-line';
import { StatementBulkFold } from './statement-bulk-fold';
import { quotaConsumedRecord } from '#server/modules/accounts/quota-consumed-event-codec';

const COLUMNS = STATEMENT_COLUMNS.join(', ');
const PLACEHOLDERS = STATEMENT_COLUMNS.map((_, index) => `$${index + 1}`).join(', ');
const REF = STATEMENT_COLUMNS.indexOf('ref');

/** A line's values as query parameters: statementLineValues with its `ref` (when it has one) as JSON text. */
function lineParameters(line: StatementLine): unknown[] {
  const values = statementLineValues(line);
  if (values[REF] !== null) values[REF] = JSON.stringify(values[REF]);
  return values;
}

const isCharge = (event: RecordedEvent) => event.type === QUOTA_CONSUMED;

/** A charge of a run, decoded, before its balance is known. */
interface Charge {
  line: StatementLine;
  quota: number;
}

/**
 * `statement_lines`: one line per event of an `account-{userId}` stream that the account fold knows (the account
 * events and the relay's QuotaConsumed), with the signed change of quota and the running balance after it, in
 * ledger order. Each line's balance minus its delta is the balance of the user's previous line, and the newest
 * line's balance is the account-balances quota (both use account.state's fold).
 */
@ReadModelProjection()
export class StatementProjection implements Projection {
  readonly name = 'statement';
  readonly tables = ['statement_lines'];
  readonly handles = [...Object.values(AccountEventType), QUOTA_CONSUMED];
  /** The statement's filter by kind; the folds read the last line per user through statement_lines_user, which stays. */
  readonly deferredIndexes = ['statement_lines_user_kind'];

  /** A rebuild from empty tables: the running balances in memory, the lines written with COPY (statement-bulk-fold.ts). */
  bulkFold(): BulkFold {
    return new StatementBulkFold();
  }

  /** Runs of charges (nearly every event under load) in ONE statement each; every other event through `apply`. */
  async applyBatch(events: readonly RecordedEvent[], manager: EntityManager): Promise<void> {
    await applyInRuns(this, events, manager, isCharge, (run) => this.applyCharges(run, manager));
  }

  async apply(event: RecordedEvent, manager: EntityManager): Promise<void> {
    if (streamCategory(event.streamId) !== 'account') return;
    const userId = streamKey(event.streamId);
    const rows: Array<{ balance: string; revision: string }> = await manager.query(
      'SELECT balance, revision FROM statement_lines WHERE user_id = $1 ORDER BY position DESC LIMIT 1',
      [userId],
    );
    const last = rows[0];
    // The runner applies each event once; this guard only keeps a hand-run replay from adding a line twice.
    if (last && Number(last.revision) >= event.revision) return;
    const line = statementLine(event, userId, last ? Number(last.balance) : 0);
    await manager.query(`INSERT INTO statement_lines (${COLUMNS}) VALUES (${PLACEHOLDERS})`, lineParameters(line));
  }

  /**
   * A run of charges in one statement, equal to `apply` charge by charge: per user, the charges whose revision beats
   * every earlier one (advancingPerKey) and the user's last line are kept; each line's balance is the last line's
   * balance minus the running sum of the charges up to it (a window over the user's charges in position order).
   */
  private async applyCharges(run: readonly RecordedEvent[], manager: EntityManager): Promise<void> {
    const charges: Charge[] = [];
    for (const event of run) {
      if (streamCategory(event.streamId) !== 'account') continue;
      const facts = decodeEvent(event, (e) => chargeFacts(quotaConsumedRecord(e)));
      // The balance is filled in by the statement; the line's other columns are the same as apply's.
      charges.push({ line: statementLine(event, streamKey(event.streamId), 0), quota: facts.quota });
    }
    const kept = advancingPerKey(
      charges,
      (charge) => charge.line.userId,
      (charge) => charge.line.revision,
    );
    if (kept.length === 0) return;
    // Each column of the lines' parameters (compact charge columns; a ref only for a malformed charge).
    const rows = kept.map((charge) => lineParameters(charge.line));
    const column = (name: (typeof STATEMENT_COLUMNS)[number]) => {
      const index = STATEMENT_COLUMNS.indexOf(name);
      return rows.map((row) => row[index]);
    };
    await queryPrepared(
      manager,
      `WITH charge AS (
         SELECT * FROM unnest($1::bigint[], $2::integer[], $3::bigint[], $4::bigint[], $5::bigint[], $6::text[], $7::integer[],
                              $8::integer[], $9::text[], $10::text[], $11::text[], $12::integer[], $13::text[], $14::text[],
                              $15::smallint[], $16::smallint[], $17::uuid[])
           AS c(position, user_id, revision, created_at, quota, actor_type, actor_id, actor_role, reason, request_id, ref,
                token_id, token_name, model, usage_source, end_reason, request_uuid)
       ), last AS (
         SELECT u.user_id, l.balance, l.revision
           FROM (SELECT DISTINCT user_id FROM charge) u
           LEFT JOIN LATERAL (
             SELECT s.balance, s.revision FROM statement_lines s WHERE s.user_id = u.user_id ORDER BY s.position DESC LIMIT 1
           ) l ON true
       )
       INSERT INTO statement_lines (${COLUMNS})
       SELECT c.position, c.user_id, c.revision, c.created_at, $18::text, -c.quota,
              coalesce(last.balance, 0) - sum(c.quota) OVER (PARTITION BY c.user_id ORDER BY c.position),
              c.actor_type, c.actor_id, c.actor_role, c.reason, c.request_id, c.ref::jsonb,
              c.token_id, c.token_name, c.model, c.usage_source, c.end_reason, c.request_uuid
         FROM charge c JOIN last ON last.user_id = c.user_id
        WHERE last.revision IS NULL OR c.revision > last.revision`,
      [
        column('position'),
        column('user_id'),
        column('revision'),
        column('created_at'),
        kept.map((charge) => charge.quota),
        column('actor_type'),
        column('actor_id'),
        column('actor_role'),
        column('reason'),
        column('request_id'),
        column('ref'),
        column('token_id'),
        column('token_name'),
        column('model'),
        column('usage_source'),
        column('end_reason'),
        column('request_uuid'),
        CHARGE_STATEMENT_KIND.kind,
      ],
    );
  }
}
