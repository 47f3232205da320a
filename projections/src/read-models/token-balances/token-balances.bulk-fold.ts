import type { RecordedEvent } from '#server/ledger/event-store.port';
import { streamCategory, streamKey } from '#server/ledger/streams';
import { AccountEventType, QUOTA_CONSUMED, type QuotaRefunded } from '#server/modules/accounts/index';
import { toAccountEvent } from '#server/modules/accounts/account-event-codec';
import { quotaConsumedRecord } from '#server/modules/accounts/quota-consumed-event-codec';
import { TokenEventType } from '#server/modules/tokens/token.events';
import { tokenConsumptionOf, toTokenEvent } from '#server/modules/tokens/token-event-codec';
import type { BulkFold, BulkRows } from '../../runner/bulk-fold';
import { applyAllotment, applyConsumption, applyRefund, emptyTokenBalance, refundedTokenId, type TokenBalance } from './token-balance';

/** One token's row while the rebuild folds: its balance and the ledger position of the last event folded in. */
interface Folded {
  balance: TokenBalance;
  position: number;
}

const COLUMNS = ['token_id', 'user_id', 'remain_quota', 'used_quota', 'accessed_time', 'position'] as const;

/**
 * `token_balances` folded in memory for a rebuild from empty tables (bulk-fold.ts), with the rules of
 * token-balance.ts that TokenBalancesProjection's `apply` uses: TokenQuotaAllotted on `token-{id}` through
 * applyAllotment, a QuotaConsumed carrying a token through applyConsumption (unlimited tokens: used only), a task's
 * QuotaRefunded through applyRefund (a charge or a refund without a token: no row); one row per token at `finish`.
 */
export class TokenBalancesBulkFold implements BulkFold {
  private readonly tokens = new Map<number, Folded>();

  add(event: RecordedEvent): void {
    const category = streamCategory(event.streamId);
    if (event.type === QUOTA_CONSUMED) {
      if (category !== 'account') return;
      const consumption = tokenConsumptionOf(quotaConsumedRecord(event));
      if (consumption === null) return; // no token (the playground)
      const at = Math.floor(event.createdAt.getTime() / 1000);
      const folded = this.folded(consumption.tokenId, event);
      if (folded) folded.balance = applyConsumption(folded.balance, streamKey(event.streamId), consumption, at);
    } else if (event.type === TokenEventType.TokenQuotaAllotted) {
      if (category !== 'token') return;
      const allotment = toTokenEvent(event).data;
      const folded = this.folded(streamKey(event.streamId), event);
      if (folded) folded.balance = applyAllotment(folded.balance, allotment);
    } else if (event.type === AccountEventType.QuotaRefunded) {
      if (category !== 'account') return;
      const refund = (toAccountEvent(event) as QuotaRefunded).data;
      const tokenId = refundedTokenId(refund);
      if (tokenId === null) return; // no token (the playground), as for its charge
      const folded = this.folded(tokenId, event);
      if (folded) folded.balance = applyRefund(folded.balance, streamKey(event.streamId), refund);
    }
  }

  /** Nothing is final before the end: a balance changes until the last event. */
  drain(): BulkRows[] {
    return [];
  }

  finish(): BulkRows[] {
    const rows: unknown[][] = [];
    for (const [tokenId, { balance, position }] of this.tokens) {
      rows.push([tokenId, balance.userId, balance.remainQuota, balance.usedQuota, balance.accessedTime, position]);
    }
    this.tokens.clear();
    return [{ table: 'token_balances', columns: COLUMNS, rows }];
  }

  /**
   * The token's row, its position moved to `event`'s (a missing one starts from emptyTokenBalance), or null when the
   * row already holds a later event: apply's guards (`row.position >= event.position` skips; the charge's
   * `WHERE t.position < $6`). A rebuild hands each event over once, in order, so the guard never skips there.
   */
  private folded(tokenId: number, event: RecordedEvent): Folded | null {
    const folded = this.tokens.get(tokenId);
    if (folded === undefined) {
      const created = { balance: emptyTokenBalance, position: event.position };
      this.tokens.set(tokenId, created);
      return created;
    }
    if (folded.position >= event.position) return null;
    folded.position = event.position;
    return folded;
  }
}
