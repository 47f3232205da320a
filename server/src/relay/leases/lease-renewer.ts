/**
 * Keeps the leases of the reservations this process holds alive, with ONE timer for all of them instead of a
 * setInterval per request. Every `intervalMs` each held lease is renewed (a lease lasts three intervals, so a
 * request held just after a tick is still renewed well before its lease runs out, as with a per-request timer).
 * The timer runs only while something is held and never keeps the process alive. A failed renewal is ignored:
 * the next tick tries again, and an expired lease only means the sweep retires the reservation.
 */
export class LeaseRenewer {
  private readonly held = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly renew: (requestId: string, userId: number) => Promise<unknown>,
    private readonly intervalMs: number,
  ) {}

  hold(requestId: string, userId: number): void {
    this.held.set(requestId, userId);
    if (!this.timer) {
      this.timer = setInterval(() => this.tick(), this.intervalMs);
      this.timer.unref();
    }
  }

  release(requestId: string): void {
    this.held.delete(requestId);
    if (this.held.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  get size(): number {
    return this.held.size;
  }

  /** Renews every held lease once (the timer; tests). */
  tick(): void {
    for (const [requestId, userId] of this.held) {
      try {
        void this.renew(requestId, userId).catch(() => undefined);
      } catch {
        // A synchronous failure is treated like a rejected renewal: the next tick tries again.
      }
    }
  }
}
