/** The shapes quota admission takes and answers (QuotaAdmissionService). */

export interface ReservationRequest {
  requestId: string;
  userId: number;
  /** null: no token limit applies (unlimited token, playground). */
  tokenId: number | null;
  amount: number;
  /** How long the reservation survives if this process dies without settling or releasing it. */
  leaseMs: number;
}

/** Which reservation admitted a request: its own in Redis, or a share of this process's quota block. */
export interface AdmittedBy {
  id: string;
  kind: 'request' | 'block';
  /** What was reserved for the request (its own reservation, or its hold in the block): see boundCharge. */
  amount: number;
}

export type ReservationResult =
  | { ok: true; userAvailable: number; tokenAvailable: number | null; reservation: AdmittedBy }
  | { ok: false; reason: 'user' | 'token'; userAvailable: number; tokenAvailable: number | null };

export interface SettlementRequest {
  requestId: string;
  userId: number;
  tokenId: number | null;
  /** The charge, as appended in QuotaConsumed. */
  amount: number;
  /** Ledger position of that QuotaConsumed event. */
  position: number;
}

/** A charge in the ledger at `position`, to settle against the reservation that admitted it. */
export interface ShippedCharge {
  reservation: string;
  requestId: string;
  amount: number;
  position: number;
  kind: 'request' | 'block';
}
