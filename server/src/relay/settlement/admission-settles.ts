import type { Logger } from '@nestjs/common';
import type { QuotaAdmissionService, ShippedCharge } from '../admission/quota-admission.service';
import type { WaitingChargeLeases } from '../leases/waiting-charge-leases';
import type { ChargeSettlement } from './charge-journal';

/**
 * The admission side of committed charges: the charges committed in one turn of the event loop go to admission per
 * user and token in one script (settleMany), and their waiting leases stop being renewed once it answered.
 */
export class AdmissionSettles {
  private buffer = new Map<string, { userId: number; tokenId: number | null; charges: ShippedCharge[] }>();
  private scheduled = false;
  /** Settles sent and not answered yet: the settlement's drain() waits for them too. */
  readonly sending = new Set<Promise<void>>();

  constructor(
    private readonly admission: Pick<QuotaAdmissionService, 'settleMany'>,
    private readonly waitingLeases: WaitingChargeLeases,
    private readonly logger: Logger,
  ) {}

  /** Queues the admission side of a charge committed at `position`; the turn's charges go out together. */
  add(settlement: ChargeSettlement, position: number): void {
    const key = `${settlement.userId}:${settlement.tokenId ?? ''}`;
    let entry = this.buffer.get(key);
    if (!entry) {
      entry = { userId: settlement.userId, tokenId: settlement.tokenId, charges: [] };
      this.buffer.set(key, entry);
    }
    entry.charges.push({
      reservation: settlement.reservation,
      requestId: settlement.requestId,
      amount: settlement.amount,
      position,
      kind: settlement.kind,
    });
    if (!this.scheduled) {
      this.scheduled = true;
      queueMicrotask(() => this.flush());
    }
  }

  flush(): void {
    this.scheduled = false;
    const buffer = this.buffer;
    if (buffer.size === 0) return;
    this.buffer = new Map();
    for (const { userId, tokenId, charges } of buffer.values()) {
      // Issued now, in order on admission's one connection, so the client's next request sees it. If it fails, the
      // charges are in the ledger all the same and the lease sweep retires the reservations: their renewal ends either way.
      const settled = this.admission.settleMany(userId, tokenId, charges).then(
        () => this.stopRenewing(charges),
        (error: unknown) => {
          this.logger.error(`admission settle failed for user ${userId}: ${String(error)}`);
          this.stopRenewing(charges);
        },
      );
      this.sending.add(settled);
      void settled.finally(() => this.sending.delete(settled));
    }
  }

  private stopRenewing(charges: ReadonlyArray<ShippedCharge>): void {
    if (this.waitingLeases.size === 0) return;
    for (const charge of charges) if (charge.kind === 'request') this.waitingLeases.remove(charge.reservation);
  }
}
