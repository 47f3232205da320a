/**
 * Keeps alive the leases of reservations whose charge is answered (durable in the charge journal) but not yet
 * settled by admission, because its ledger append has not committed yet (RelaySettlementService). The pipeline stops
 * renewing a request's lease when its answer ends; without this, a ledger outage longer than the lease let the sweep
 * free the reservation of a charge that was still waiting to be shipped (admission under-held the user's quota).
 *
 * Cheap when the ledger is healthy: `add` and `remove` are map operations (no Redis), and a charge is renewed only
 * once it has waited `intervalMs / 2` since it was added (or last renewed); charges normally ship within
 * milliseconds, so they are never renewed. ONE timer ticks every `intervalMs / 2` while anything waits, and renews
 * what is due with one call per user (`renewMany`: one Redis script for all of that user's reservations).
 *
 * Handover: when a charge is added, its lease has at least `leaseMs − intervalMs` left (the pipeline renewed it at
 * least every `intervalMs`, a third of the lease). Its first renewal here comes at most `intervalMs` after `add`
 * (due after intervalMs / 2, ticks every intervalMs / 2), later ones at most every intervalMs (a late tick skips
 * one), so with intervalMs = leaseMs / 3 there is a third of a lease of margin for Redis latency and timer drift.
 *
 * A failed renewal is ignored here (the caller's `renewMany` logs it): the charge is due again half an interval later.
 */
export class WaitingChargeLeases {
  private readonly waiting = new Map<string, { userId: number; touchedAt: number }>();
  private timer: NodeJS.Timeout | null = null;
  private readonly tickMs: number;

  constructor(
    private readonly renewMany: (userId: number, reservationIds: string[]) => Promise<unknown>,
    /** How often a lease is renewed at most (a third of the lease, as the pipeline's renewal). */
    private readonly intervalMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.tickMs = Math.max(1, Math.floor(intervalMs / 2));
  }

  /** The charge of `reservationId` (a request's own reservation) is answered: its lease is kept from now on. */
  add(reservationId: string, userId: number): void {
    this.waiting.set(reservationId, { userId, touchedAt: this.now() });
    if (!this.timer) {
      this.timer = setInterval(() => this.tick(), this.tickMs);
      this.timer.unref();
    }
  }

  /** The charge is settled (or handed over for good): its lease is no longer renewed. */
  remove(reservationId: string): void {
    this.waiting.delete(reservationId);
  }

  get size(): number {
    return this.waiting.size;
  }

  /** Stops renewing everything (shutdown): the leases then run out by themselves. */
  stop(): void {
    this.waiting.clear();
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Renews the leases that are due, one call per user (the timer; tests). */
  tick(): void {
    if (this.waiting.size === 0) {
      // Stopped lazily, so a steady trickle of charges that ship at once does not start and stop a timer each.
      if (this.timer) clearInterval(this.timer);
      this.timer = null;
      return;
    }
    const now = this.now();
    const dueBefore = now - Math.floor(this.intervalMs / 2);
    let due: Map<number, string[]> | null = null;
    for (const [reservationId, charge] of this.waiting) {
      if (charge.touchedAt > dueBefore) continue;
      charge.touchedAt = now;
      due ??= new Map();
      const ids = due.get(charge.userId);
      if (ids) ids.push(reservationId);
      else due.set(charge.userId, [reservationId]);
    }
    if (!due) return;
    for (const [userId, ids] of due) {
      try {
        void this.renewMany(userId, ids).catch(() => undefined);
      } catch {
        // A synchronous failure is treated like a rejected renewal: the next tick tries again.
      }
    }
  }
}
