import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { CONFIG_DEFAULTS } from '../../config/app-config';
import { QuotaAdmissionService } from '../admission/quota-admission.service';
import type { RelaySettlementService } from '../settlement/relay-settlement.service';

/** How long stopping waits for a sweep in progress. */
export const SWEEP_STOP_WAIT_MS = 1_000;

/**
 * Worker role: every few seconds, reservations whose lease ran out (their process died mid-request) stop
 * holding quota once the projection passes the head seen now (QuotaAdmissionService.sweepExpired). First, the charge
 * journals of processes that are gone are shipped to the ledger (RelaySettlementService.recoverOrphans), so a dead
 * process's answered requests are charged well before their leases run out. Sweeps never overlap; a failing sweep is
 * logged and tried again on the next tick.
 */
@Injectable()
export class LeaseSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(LeaseSweeper.name);
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;

  constructor(
    private readonly admission: QuotaAdmissionService,
    private readonly enabled: boolean,
    /** RELAY_LEASE_SWEEP_MS. */
    private readonly intervalMs: number = CONFIG_DEFAULTS.RELAY_LEASE_SWEEP_MS,
    private readonly settlement: Pick<RelaySettlementService, 'recoverOrphans'> | null = null,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.enabled) return;
    this.timer = setInterval(() => void this.sweep(), this.intervalMs);
    this.timer.unref();
  }

  /** One sweep (also called by tests); returns how many reservations expired. */
  async sweep(now = Date.now()): Promise<number> {
    if (this.running) return this.running;
    const recovered = this.settlement
      ?.recoverOrphans()
      .catch((error: unknown) => this.logger.error(`charge journal recovery failed: ${String(error)}`));
    this.running = (recovered ? recovered.then(() => this.admission.sweepExpired(now)) : this.admission.sweepExpired(now))
      .catch((error: unknown) => {
        this.logger.error(`lease sweep failed: ${String(error)}`);
        return 0;
      })
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  /**
   * Waits for a sweep in progress for at most `SWEEP_STOP_WAIT_MS`: with Redis away, its commands wait in ioredis'
   * offline queue until Redis is back, and a SIGTERM must not wait for that. An abandoned sweep changes nothing that
   * the next sweep (of any worker) does not redo.
   */
  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (!this.running) return;
    let deadline: NodeJS.Timeout | undefined;
    const waited = await Promise.race([
      this.running.then(() => true),
      new Promise<boolean>((resolve) => (deadline = setTimeout(() => resolve(false), SWEEP_STOP_WAIT_MS))),
    ]);
    clearTimeout(deadline);
    if (!waited) this.logger.warn(`lease sweep still running after ${SWEEP_STOP_WAIT_MS} ms (Redis unreachable?): stopping without it`);
  }
}
