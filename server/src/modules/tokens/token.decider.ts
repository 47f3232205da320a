import type { TokenEvent, TokenQuota } from './token.events';

/** What the token stream itself says: the last allotment (consumption is folded by the projection). */
export interface TokenQuotaState {
  allotted: boolean;
  remainQuota: number;
  unlimited: boolean;
}

export const initialTokenQuotaState: TokenQuotaState = Object.freeze({ allotted: false, remainQuota: 0, unlimited: false });

export type TokenCommand = {
  type: 'AllotTokenQuota';
  userId: number;
  remainQuota: number;
  unlimited: boolean;
  /**
   * The balance the user saw when editing (token_balances: the last allotment minus what was consumed since).
   * null on creation. An edit that leaves both figures as they are is not an allotment.
   */
  current: TokenQuota | null;
};

/** A programming error: the ledger only takes safe-integer amounts (the input layer refuses the rest). */
export class InvalidTokenQuotaError extends Error {
  readonly code = 'invalid_token_quota';
  constructor(value: unknown) {
    super(`Invalid token quota ${String(value)}: amounts are safe integers`);
  }
}

/** Pure: the events a command produces on a token stream. */
export function decide(command: TokenCommand, state: TokenQuotaState): TokenEvent[] {
  const allotment = { userId: command.userId, remainQuota: command.remainQuota, unlimited: command.unlimited };
  const before = command.current ?? (state.allotted ? { remainQuota: state.remainQuota, unlimited: state.unlimited } : null);
  if (before && before.remainQuota === command.remainQuota && before.unlimited === command.unlimited) return [];
  // Checked only for a real allotment: an overdrawn token (negative balance) can still be renamed untouched.
  if (!Number.isSafeInteger(command.remainQuota)) throw new InvalidTokenQuotaError(command.remainQuota);
  if (!before) return [{ type: 'TokenQuotaAllotted', data: { ...allotment, before: null } }];
  return [{ type: 'TokenQuotaAllotted', data: { ...allotment, before: { remainQuota: before.remainQuota, unlimited: before.unlimited } } }];
}

/** Pure: the stream state after `event`. */
export function evolve(state: TokenQuotaState, event: TokenEvent): TokenQuotaState {
  switch (event.type) {
    case 'TokenQuotaAllotted':
      return { allotted: true, remainQuota: event.data.remainQuota, unlimited: event.data.unlimited };
  }
}

export function fold(events: readonly TokenEvent[], state: TokenQuotaState = initialTokenQuotaState): TokenQuotaState {
  return events.reduce(evolve, state);
}
