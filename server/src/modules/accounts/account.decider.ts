import { AffiliateTransferBelowMinimumError, InsufficientAffiliateQuotaError, InvalidAmountError } from './account.errors';
import type { AccountEvent, QuotaGrantKind } from './account.events';
import type { AccountState } from './account.state';
import { formatLogQuota, type QuotaDisplay } from './quota-display';

export type AccountCommand =
  | { type: 'GrantQuota'; amount: number; kind: QuotaGrantKind }
  | { type: 'RewardInviter'; amount: number; inviteeId: number }
  | { type: 'TransferAffiliateQuota'; amount: number; minimum: number; display: QuotaDisplay }
  | { type: 'AdjustQuotaByAdmin'; after: number; adminId: number };

function assertAmount(amount: number): void {
  if (!Number.isSafeInteger(amount)) throw new InvalidAmountError(amount);
}

/** Pure: what happens to an account when `command` meets `state`. Throws a DomainError to refuse. */
export function decide(command: AccountCommand, state: AccountState): AccountEvent[] {
  switch (command.type) {
    case 'GrantQuota':
      assertAmount(command.amount);
      // Only a positive option grants (and logs) anything: 0 means "no gift", as in new-api.
      return command.amount > 0 ? [{ type: 'QuotaGranted', data: { amount: command.amount, kind: command.kind } }] : [];
    case 'RewardInviter':
      assertAmount(command.amount);
      // aff_count moves only with a positive reward, as in new-api.
      return command.amount > 0 ? [{ type: 'InviterRewarded', data: { amount: command.amount, inviteeId: command.inviteeId } }] : [];
    case 'TransferAffiliateQuota':
      assertAmount(command.amount);
      if (command.amount < command.minimum) {
        throw new AffiliateTransferBelowMinimumError(command.minimum, formatLogQuota(command.minimum, command.display));
      }
      if (state.affQuota < command.amount) throw new InsufficientAffiliateQuotaError(state.affQuota, command.amount);
      return [{ type: 'AffiliateQuotaTransferred', data: { amount: command.amount } }];
    case 'AdjustQuotaByAdmin':
      assertAmount(command.after);
      return command.after === state.quota
        ? []
        : [{ type: 'QuotaAdjustedByAdmin', data: { before: state.quota, after: command.after, adminId: command.adminId } }];
  }
}

// The fold lives in account.state.ts (the projections fold with it too); re-exported for the command handlers.
export { type AccountState, applyQuotaConsumed, evolve, fold, initialAccountState } from './account.state';
