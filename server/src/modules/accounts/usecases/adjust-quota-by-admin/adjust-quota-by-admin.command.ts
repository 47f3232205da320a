import { Command } from '@nestjs/cqrs';
import type { Actor } from '#server/ledger/event-store.port';

export interface AdjustQuotaByAdminInput {
  userId: number;
  /** The target's username, recorded for the log row. */
  username: string;
  /** The quota the admin's form asks for. */
  quota: number;
  /**
   * The account revision the admin's form was filled from (`account_revision` of GET /api/user/:id; -1 for an
   * account without events). Absent: the current revision, i.e. new-api's "compare with now".
   */
  basisRevision?: number;
  adminId: number;
  actor: Actor;
  correlationId: string;
  clientIp: string | null;
}

export interface AdjustQuotaByAdminResult {
  /** False when the form's quota is the one it was filled with: the admin did not touch it. */
  changed: boolean;
  /** Ledger position to wait for (0 when nothing was appended). */
  position: number;
}

/**
 * Sets a user's quota from the admin edit form. Decided against the balance the admin saw: if the account moved
 * since (a charge, a transfer, another admin), the edit is refused with a clear message, never retried blindly.
 * Does not wait for the read models: the edit-user handler does, once the whole edit is committed.
 */
export class AdjustQuotaByAdminCommand extends Command<AdjustQuotaByAdminResult> {
  constructor(readonly input: AdjustQuotaByAdminInput) {
    super();
  }
}
