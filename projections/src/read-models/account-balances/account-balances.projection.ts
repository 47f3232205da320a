import { Inject } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { streamCategory, streamKey } from '#server/ledger/streams';
import { type AccountState, evolve, initialAccountState } from '#server/modules/accounts/account.state';
import { AccountEventType } from '#server/modules/accounts/account.events';
import { toAccountEvent } from '#server/modules/accounts/account-event-codec';
import { QUOTA_ADMISSION, QUOTA_CONSUMED, type QuotaAdmission } from '#server/modules/accounts/index';
import { advancingPerKey, applyInRuns, decodeEvent } from '../../runner/batch-folds';
import type { BulkFold } from '../../runner/bulk-fold';
import type { Projection } from '../../runner/projection';
import { queryPrepared, queryPreparedOn } from '../../runner/prepared-query';
import { ReadModelProjection } from '../../runner/read-model-projection.decorator';
import { AccountBalancesBulkFold } from './account-balances.bulk-fold';
import { applyQuotaConsumed, chargedQuota } from './quota-consumed-fold';
import { quotaConsumedRecord } from '#server/modules/accounts/quota-consumed-event-codec';

interface BalanceRow {
  quota: string;
  used_quota: string;
  request_count: string;
  aff_count: number;
  aff_quota: string;
  aff_history_quota: string;
  revision: string;
}

/** One charge of a batch, decoded. */
interface Charge {
  userId: number;
  revision: number;
  quota: number;
}

const isCharge = (event: RecordedEvent) => event.type === QUOTA_CONSUMED;

/**
 * `account_balances`: each account stream folded with the same `evolve` the command side decides with, so the
 * console shows exactly the balances the ledger enforces, plus the relay's QuotaConsumed (quota −, used_quota +,
 * request_count +1).
 */
@ReadModelProjection()
export class AccountBalancesProjection implements Projection {
  readonly name = 'account-balances';
  readonly tables = ['account_balances'];
  readonly handles = [...Object.values(AccountEventType), QUOTA_CONSUMED];

  constructor(
    @Inject(QUOTA_ADMISSION) private readonly admission: QuotaAdmission,
    private readonly dataSource: DataSource,
  ) {}

  /**
   * After a commit, the relay's admission (Redis) learns the new balances of the accounts the batch touched, exact
   * at `position`: top-ups and admin edits become spendable at once, and settled charges up to `position` are
   * dropped from the admission ledger. Only bases admission already loaded are moved.
   */
  async afterCommit(events: readonly RecordedEvent[], position: number): Promise<void> {
    const handled = new Set<string>(this.handles);
    const userIds = [
      ...new Set(
        events
          .filter((event) => handled.has(event.type) && streamCategory(event.streamId) === 'account')
          .map((event) => streamKey(event.streamId)),
      ),
    ];
    if (userIds.length === 0) return;
    const rows = await queryPreparedOn<{ user_id: number; quota: string }>(
      this.dataSource,
      'SELECT user_id, quota FROM account_balances WHERE user_id = ANY($1)',
      [userIds],
    );
    await Promise.all(rows.map((row) => this.admission.pushBase('account', row.user_id, row.user_id, Number(row.quota), position)));
  }

  /** A rebuild from empty tables folds the accounts in memory (account-balances.bulk-fold.ts). */
  bulkFold(): BulkFold {
    return new AccountBalancesBulkFold();
  }

  /**
   * A batch: each run of consecutive charges folded by ONE statement (the relay appends one per request, so under
   * load a batch is almost all charges), every other account event through `apply` in its place in the order.
   */
  async applyBatch(events: readonly RecordedEvent[], manager: EntityManager): Promise<void> {
    await applyInRuns(this, events, manager, isCharge, (run) => this.applyCharges(run, manager));
  }

  async apply(event: RecordedEvent, manager: EntityManager): Promise<void> {
    if (streamCategory(event.streamId) !== 'account') return;
    const userId = streamKey(event.streamId);
    if (event.type === QUOTA_CONSUMED) {
      await this.applyCharge(userId, event, manager);
      return;
    }
    const rows: BalanceRow[] = await manager.query(
      'SELECT quota, used_quota, request_count, aff_count, aff_quota, aff_history_quota, revision FROM account_balances WHERE user_id = $1',
      [userId],
    );
    const row = rows[0];
    // The runner applies each event once; this guard only keeps a hand-run replay from counting twice.
    if (row && Number(row.revision) >= event.revision) return;
    const state: AccountState = row
      ? {
          quota: Number(row.quota),
          usedQuota: Number(row.used_quota),
          requestCount: Number(row.request_count),
          affCount: row.aff_count,
          affQuota: Number(row.aff_quota),
          affHistoryQuota: Number(row.aff_history_quota),
        }
      : initialAccountState;
    const next = evolve(state, toAccountEvent(event));
    await manager.query(
      `INSERT INTO account_balances (user_id, quota, used_quota, request_count, aff_count, aff_quota, aff_history_quota, revision)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (user_id) DO UPDATE SET quota = $2, used_quota = $3, request_count = $4, aff_count = $5,
         aff_quota = $6, aff_history_quota = $7, revision = $8`,
      [userId, next.quota, next.usedQuota, next.requestCount, next.affCount, next.affQuota, next.affHistoryQuota, event.revision],
    );
  }

  /**
   * The relay's charge (one per relayed request, the projection's hot event) in ONE statement instead of a read and
   * a write: the same fold as applyQuotaConsumed (quota −, used_quota +, request_count +1; a missing row starts
   * from initialAccountState), guarded by the revision like the general path. account.state's evolve decides
   * console commands and does not fold QuotaConsumed.
   */
  private async applyCharge(userId: number, event: RecordedEvent, manager: EntityManager): Promise<void> {
    const quota = chargedQuota(quotaConsumedRecord(event));
    const first = applyQuotaConsumed(initialAccountState, quota);
    await manager.query(
      `INSERT INTO account_balances AS b (user_id, quota, used_quota, request_count, aff_count, aff_quota, aff_history_quota, revision)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (user_id) DO UPDATE SET quota = b.quota - $9::bigint, used_quota = b.used_quota + $9::bigint,
         request_count = b.request_count + 1, revision = $8
       WHERE b.revision < $8`,
      [
        userId,
        first.quota,
        first.usedQuota,
        first.requestCount,
        first.affCount,
        first.affQuota,
        first.affHistoryQuota,
        event.revision,
        quota,
      ],
    );
  }

  /**
   * A run of charges in ONE statement, equal to applyCharge event by event: per user, the charges whose revision
   * beats the stored one (see advancingPerKey) are summed and counted; an existing row gets quota − sum,
   * used_quota + sum, request_count + count and the largest revision, a missing one starts from
   * initialAccountState. An UPDATE of the rows present plus an INSERT of the missing ones (data-modifying CTEs of one
   * statement) rather than INSERT … ON CONFLICT, whose update could only see the sums through EXCLUDED's row values;
   * the projector is the table's one writer, so no row appears between the read and the insert.
   */
  private async applyCharges(run: readonly RecordedEvent[], manager: EntityManager): Promise<void> {
    const charges: Charge[] = [];
    for (const event of run) {
      if (streamCategory(event.streamId) !== 'account') continue;
      charges.push({
        userId: streamKey(event.streamId),
        revision: event.revision,
        quota: decodeEvent(event, (e) => chargedQuota(quotaConsumedRecord(e))),
      });
    }
    const folded = advancingPerKey(
      charges,
      (charge) => charge.userId,
      (charge) => charge.revision,
    );
    if (folded.length === 0) return;
    const initial = initialAccountState;
    await queryPrepared(
      manager,
      `WITH charge AS (
         SELECT * FROM unnest($1::integer[], $2::bigint[], $3::bigint[]) AS c(user_id, revision, quota)
       ), folded AS (
         SELECT c.user_id, b.user_id IS NOT NULL AS present, sum(c.quota)::bigint AS quota, count(*)::bigint AS requests,
                max(c.revision) AS revision
           FROM charge c LEFT JOIN account_balances b ON b.user_id = c.user_id
          WHERE b.user_id IS NULL OR c.revision > b.revision
          GROUP BY c.user_id, b.user_id
       ), updated AS (
         UPDATE account_balances b SET quota = b.quota - f.quota, used_quota = b.used_quota + f.quota,
                request_count = b.request_count + f.requests, revision = f.revision
           FROM folded f WHERE f.present AND b.user_id = f.user_id
       )
       INSERT INTO account_balances (user_id, quota, used_quota, request_count, aff_count, aff_quota, aff_history_quota, revision)
       SELECT f.user_id, $4::bigint - f.quota, $5::bigint + f.quota, $6::bigint + f.requests, $7::integer, $8::bigint, $9::bigint,
              f.revision
         FROM folded f WHERE NOT f.present`,
      [
        folded.map((charge) => charge.userId),
        folded.map((charge) => charge.revision),
        folded.map((charge) => charge.quota),
        initial.quota,
        initial.usedQuota,
        initial.requestCount,
        initial.affCount,
        initial.affQuota,
        initial.affHistoryQuota,
      ],
    );
  }
}
