import { Inject } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { streamCategory, streamKey } from '#server/ledger/streams';
import { AccountEventType, QUOTA_ADMISSION, QUOTA_CONSUMED, type QuotaAdmission, type QuotaRefunded } from '#server/modules/accounts/index';
import { toAccountEvent } from '#server/modules/accounts/account-event-codec';
import { TokenEventType } from '#server/modules/tokens/token.events';
import { tokenConsumptionOf, toTokenEvent } from '#server/modules/tokens/token-event-codec';
import type { TokenConsumption } from '#server/modules/tokens/token.events';
import { advancingPerKey, applyInRuns, decodeEvent } from '../../runner/batch-folds';
import type { BulkFold } from '../../runner/bulk-fold';
import type { Projection } from '../../runner/projection';
import { queryPrepared, queryPreparedOn } from '../../runner/prepared-query';
import { ReadModelProjection } from '../../runner/read-model-projection.decorator';
import { TokenBalancesBulkFold } from './token-balances.bulk-fold';
import { applyAllotment, applyConsumption, applyRefund, emptyTokenBalance, refundedTokenId, type TokenBalance } from './token-balance';
import { quotaConsumedRecord } from '#server/modules/accounts/quota-consumed-event-codec';

/** A task refund's data, checked by the account codec. */
function refundOf(event: RecordedEvent): QuotaRefunded['data'] {
  return (toAccountEvent(event) as QuotaRefunded).data;
}

interface BalanceRow {
  user_id: number;
  remain_quota: string;
  used_quota: string;
  accessed_time: string;
  position: string;
}

/** One token charge of a batch, decoded. */
interface Charge {
  tokenId: number;
  userId: number;
  /** What comes off remain_quota: the charge, or 0 for a token unlimited when the request was admitted. */
  spent: number;
  quota: number;
  at: number;
  position: number;
}

const isCharge = (event: RecordedEvent) => event.type === QUOTA_CONSUMED;

/**
 * `token_balances`: TokenQuotaAllotted on `token-{id}` sets a token's remaining quota; QuotaConsumed on
 * `account-{userId}` with a `tokenId` charges it. Both are applied in global ledger order, so an allotment and the
 * charges around it fold the same way live and on rebuild.
 */
@ReadModelProjection()
export class TokenBalancesProjection implements Projection {
  readonly name = 'token-balances';
  readonly tables = ['token_balances'];
  readonly handles = [TokenEventType.TokenQuotaAllotted, QUOTA_CONSUMED, AccountEventType.QuotaRefunded];

  constructor(
    @Inject(QUOTA_ADMISSION) private readonly admission: QuotaAdmission,
    private readonly dataSource: DataSource,
  ) {}

  /** After a commit, admission's token bases (Redis) move to the balances now projected, exact at `position`. */
  async afterCommit(events: readonly RecordedEvent[], position: number): Promise<void> {
    const tokenIds = new Set<number>();
    for (const event of events) {
      const category = streamCategory(event.streamId);
      if (event.type === TokenEventType.TokenQuotaAllotted && category === 'token') tokenIds.add(streamKey(event.streamId));
      else if (event.type === QUOTA_CONSUMED && category === 'account') {
        const consumption = tokenConsumptionOf(quotaConsumedRecord(event));
        if (consumption) tokenIds.add(consumption.tokenId);
      } else if (event.type === AccountEventType.QuotaRefunded && category === 'account') {
        const tokenId = refundedTokenId(refundOf(event));
        if (tokenId !== null) tokenIds.add(tokenId);
      }
    }
    if (tokenIds.size === 0) return;
    const rows = await queryPreparedOn<{ token_id: number; user_id: number; remain_quota: string }>(
      this.dataSource,
      'SELECT token_id, user_id, remain_quota FROM token_balances WHERE token_id = ANY($1) AND user_id > 0',
      [[...tokenIds]],
    );
    await Promise.all(rows.map((row) => this.admission.pushBase('token', row.user_id, row.token_id, Number(row.remain_quota), position)));
  }

  /** A rebuild from empty tables folds the tokens in memory (token-balances.bulk-fold.ts). */
  bulkFold(): BulkFold {
    return new TokenBalancesBulkFold();
  }

  /** A batch: each run of consecutive charges in ONE statement, allotments through `apply` in their place. */
  async applyBatch(events: readonly RecordedEvent[], manager: EntityManager): Promise<void> {
    await applyInRuns(this, events, manager, isCharge, (run) => this.applyCharges(run, manager));
  }

  async apply(event: RecordedEvent, manager: EntityManager): Promise<void> {
    const category = streamCategory(event.streamId);
    if (event.type === TokenEventType.TokenQuotaAllotted && category === 'token') {
      const tokenId = streamKey(event.streamId);
      const allotment = toTokenEvent(event).data;
      await this.update(manager, tokenId, event, (balance) => applyAllotment(balance, allotment));
    } else if (event.type === QUOTA_CONSUMED && category === 'account') {
      const consumption = tokenConsumptionOf(quotaConsumedRecord(event));
      if (!consumption) return;
      const at = Math.floor(event.createdAt.getTime() / 1000);
      await this.applyCharge(manager, consumption.tokenId, streamKey(event.streamId), consumption, at, event.position);
    } else if (event.type === AccountEventType.QuotaRefunded && category === 'account') {
      const refund = refundOf(event);
      const tokenId = refundedTokenId(refund);
      if (tokenId === null) return; // no token (the playground): as its charge, no row
      await this.update(manager, tokenId, event, (balance) => applyRefund(balance, streamKey(event.streamId), refund));
    }
  }

  /**
   * A charge (the projection's hot event) in ONE statement instead of a read and a write: the same fold as
   * applyConsumption (remain_quota − unless unlimited, used_quota +, accessed_time = the later one, user_id kept
   * once set), a missing row starting from emptyTokenBalance, guarded by the position like the general path.
   */
  private async applyCharge(
    manager: EntityManager,
    tokenId: number,
    userId: number,
    consumption: TokenConsumption,
    at: number,
    position: number,
  ) {
    const first = applyConsumption(emptyTokenBalance, userId, consumption, at);
    await manager.query(
      `INSERT INTO token_balances AS t (token_id, user_id, remain_quota, used_quota, accessed_time, position)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (token_id) DO UPDATE SET
         user_id = CASE WHEN t.user_id = 0 THEN $2 ELSE t.user_id END,
         remain_quota = t.remain_quota - $7::bigint,
         used_quota = t.used_quota + $8::bigint,
         accessed_time = GREATEST(t.accessed_time, $5),
         position = $6
       WHERE t.position < $6`,
      [
        tokenId,
        first.userId,
        first.remainQuota,
        first.usedQuota,
        first.accessedTime,
        position,
        consumption.unlimited ? 0 : consumption.quota,
        consumption.quota,
      ],
    );
  }

  /**
   * A run of charges in ONE statement, equal to applyCharge event by event: per token, the charges whose position
   * beats the stored one (see advancingPerKey) are folded as applyConsumption folds them: remain_quota − what was
   * spent (nothing for unlimited), used_quota + the charges, accessed_time = the latest, user_id = the row's if set,
   * else the first non-zero one of the charges in ledger order; a missing row starts from emptyTokenBalance.
   * (UPDATE of the rows present + INSERT of the missing ones in one statement, as AccountBalancesProjection does.)
   */
  private async applyCharges(run: readonly RecordedEvent[], manager: EntityManager): Promise<void> {
    const charges: Charge[] = [];
    for (const event of run) {
      if (streamCategory(event.streamId) !== 'account') continue;
      const consumption = decodeEvent(event, (e) => tokenConsumptionOf(quotaConsumedRecord(e)));
      if (!consumption) continue;
      charges.push({
        tokenId: consumption.tokenId,
        userId: streamKey(event.streamId),
        spent: consumption.unlimited ? 0 : consumption.quota,
        quota: consumption.quota,
        at: Math.floor(event.createdAt.getTime() / 1000),
        position: event.position,
      });
    }
    const folded = advancingPerKey(
      charges,
      (charge) => charge.tokenId,
      (charge) => charge.position,
    );
    if (folded.length === 0) return;
    const empty = emptyTokenBalance;
    await queryPrepared(
      manager,
      `WITH charge AS (
         SELECT * FROM unnest($1::integer[], $2::integer[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[])
           AS c(token_id, user_id, spent, quota, at, position)
       ), folded AS (
         SELECT c.token_id, t.token_id IS NOT NULL AS present,
                COALESCE((array_agg(c.user_id ORDER BY c.position) FILTER (WHERE c.user_id <> 0))[1], 0) AS user_id,
                sum(c.spent)::bigint AS spent, sum(c.quota)::bigint AS quota, max(c.at) AS at, max(c.position) AS position
           FROM charge c LEFT JOIN token_balances t ON t.token_id = c.token_id
          WHERE t.token_id IS NULL OR c.position > t.position
          GROUP BY c.token_id, t.token_id
       ), updated AS (
         UPDATE token_balances t SET user_id = CASE WHEN t.user_id = 0 THEN f.user_id ELSE t.user_id END,
                remain_quota = t.remain_quota - f.spent, used_quota = t.used_quota + f.quota,
                accessed_time = GREATEST(t.accessed_time, f.at), position = f.position
           FROM folded f WHERE f.present AND t.token_id = f.token_id
       )
       INSERT INTO token_balances (token_id, user_id, remain_quota, used_quota, accessed_time, position)
       SELECT f.token_id, CASE WHEN $7::integer = 0 THEN f.user_id ELSE $7::integer END, $8::bigint - f.spent,
              $9::bigint + f.quota, GREATEST($10::bigint, f.at), f.position
         FROM folded f WHERE NOT f.present`,
      [
        folded.map((charge) => charge.tokenId),
        folded.map((charge) => charge.userId),
        folded.map((charge) => charge.spent),
        folded.map((charge) => charge.quota),
        folded.map((charge) => charge.at),
        folded.map((charge) => charge.position),
        empty.userId,
        empty.remainQuota,
        empty.usedQuota,
        empty.accessedTime,
      ],
    );
  }

  private async update(manager: EntityManager, tokenId: number, event: RecordedEvent, change: (balance: TokenBalance) => TokenBalance) {
    const rows: BalanceRow[] = await manager.query(
      'SELECT user_id, remain_quota, used_quota, accessed_time, position FROM token_balances WHERE token_id = $1',
      [tokenId],
    );
    const row = rows[0];
    // The runner applies each event once; this guard only keeps a hand-run replay from counting twice.
    if (row && Number(row.position) >= event.position) return;
    const balance: TokenBalance = row
      ? {
          userId: row.user_id,
          remainQuota: Number(row.remain_quota),
          usedQuota: Number(row.used_quota),
          accessedTime: Number(row.accessed_time),
        }
      : emptyTokenBalance;
    const next = change(balance);
    await manager.query(
      `INSERT INTO token_balances (token_id, user_id, remain_quota, used_quota, accessed_time, position)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (token_id) DO UPDATE SET user_id = $2, remain_quota = $3, used_quota = $4, accessed_time = $5, position = $6`,
      [tokenId, next.userId, next.remainQuota, next.usedQuota, next.accessedTime, event.position],
    );
  }
}
