import type { RecordedEvent } from '#server/ledger/event-store.port';
import { streamCategory, streamKey } from '#server/ledger/streams';
import { type AccountState, evolve, initialAccountState } from '#server/modules/accounts/account.state';
import { toAccountEvent } from '#server/modules/accounts/account-event-codec';
import { QUOTA_CONSUMED } from '#server/modules/accounts/quota-consumed.event';
import { quotaConsumedRecord } from '#server/modules/accounts/quota-consumed-event-codec';
import type { BulkFold, BulkRows } from '../../runner/bulk-fold';
import { applyQuotaConsumed, chargedQuota } from './quota-consumed-fold';

/** One account's row while the rebuild folds: its state and the revision of the last event folded in. */
interface Folded {
  /** Never initialAccountState itself: evolve and applyQuotaConsumed return a new object, which the fold then owns. */
  state: AccountState;
  revision: number;
}

const COLUMNS = ['user_id', 'quota', 'used_quota', 'request_count', 'aff_count', 'aff_quota', 'aff_history_quota', 'revision'] as const;

/**
 * `account_balances` folded in memory for a rebuild from empty tables (bulk-fold.ts): per account, the account
 * events through account.state's `evolve` and the relay's charges through applyQuotaConsumed, the two folds
 * AccountBalancesProjection's `apply` and `applyBatch` use; one row per account at `finish`.
 */
export class AccountBalancesBulkFold implements BulkFold {
  private readonly accounts = new Map<number, Folded>();

  add(event: RecordedEvent): void {
    if (streamCategory(event.streamId) !== 'account') return;
    const userId = streamKey(event.streamId);
    const folded = this.accounts.get(userId);
    // Mirrors apply's guard (`row.revision >= event.revision` skips; the charge's `WHERE b.revision < $8`): a rebuild
    // hands each event over once, in order, so it never skips there; it keeps the fold equal to apply regardless.
    if (folded !== undefined && folded.revision >= event.revision) return;
    if (folded !== undefined && event.type === QUOTA_CONSUMED) {
      // The charge, nearly every event: applyQuotaConsumed's three fields changed in the state this fold owns (a
      // copy made by the first event of the account), instead of a new object per charge.
      const quota = chargedQuota(quotaConsumedRecord(event));
      const state = folded.state;
      state.quota -= quota;
      state.usedQuota += quota;
      state.requestCount += 1;
      folded.revision = event.revision;
      return;
    }
    const state = folded?.state ?? initialAccountState;
    const next =
      event.type === QUOTA_CONSUMED
        ? applyQuotaConsumed(state, chargedQuota(quotaConsumedRecord(event)))
        : evolve(state, toAccountEvent(event));
    if (folded === undefined) this.accounts.set(userId, { state: next, revision: event.revision });
    else {
      folded.state = next;
      folded.revision = event.revision;
    }
  }

  /** Nothing is final before the end: a balance changes until the last event. */
  drain(): BulkRows[] {
    return [];
  }

  finish(): BulkRows[] {
    const rows: unknown[][] = [];
    for (const [userId, { state, revision }] of this.accounts) {
      rows.push([
        userId,
        state.quota,
        state.usedQuota,
        state.requestCount,
        state.affCount,
        state.affQuota,
        state.affHistoryQuota,
        revision,
      ]);
    }
    this.accounts.clear();
    return [{ table: 'account_balances', columns: COLUMNS, rows }];
  }
}
