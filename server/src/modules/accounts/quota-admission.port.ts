/**
 * What the projections and the tokens module need of quota admission (the relay's per-process quota state in Redis):
 * what a user and a token may still spend, and admission's copy of their balances. The global AdmissionModule binds
 * QUOTA_ADMISSION to its QuotaAdmissionService, so there is still one admission per process.
 */
export interface QuotaAdmission {
  /** What the user (and the token, when given and limited) may still spend now, reservations held counted. */
  available(userId: number, tokenId?: number | null): Promise<{ user: number; token: number | null }>;
  /** Moves admission's base of an account or token balance to `balance`, exact at ledger `position`, if loaded. */
  pushBase(kind: 'account' | 'token', userId: number, id: number, balance: number, position: number): Promise<void>;
  /** Reloads admission's base of an account or token balance from its projection (after an edit). */
  loadBase(kind: 'account' | 'token', userId: number, id: number): Promise<void>;
}

export const QUOTA_ADMISSION = Symbol('QUOTA_ADMISSION');
