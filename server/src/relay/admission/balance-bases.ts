import type { DataSource } from 'typeorm';
import type { AdmissionCommands, AdmissionKeys } from './admission-redis';
import type { RedisReadiness } from './redis-readiness';

/** Where the bases come from: the projection table and the checkpoint its rows are valid at. */
export const BALANCE_SOURCES = {
  account: { projection: 'account-balances', sql: 'SELECT quota AS balance FROM account_balances WHERE user_id = $1' },
  token: { projection: 'token-balances', sql: 'SELECT remain_quota AS balance FROM token_balances WHERE token_id = $1' },
} as const;

interface DeferredBase {
  settled: string;
  balance: number;
  position: number;
}

/** The balances admission reserves against (bases), each with the ledger position it is valid at. */
export class BalanceBases {
  /**
   * Pushes made while admission's connection was down, by base key: only the latest of each (a base only moves
   * forward, SET_BASE ignores an older position), sent when the connection is ready again.
   */
  private readonly deferred = new Map<string, DeferredBase>();

  constructor(
    private readonly redis: AdmissionCommands,
    private readonly keys: AdmissionKeys,
    private readonly dataSource: DataSource,
    private readonly readiness: RedisReadiness,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {
    redis.on('ready', () => this.sendDeferred());
  }

  /**
   * The projector's push after committing a balance change: only bases already loaded are moved. With admission's
   * connection up (the common case) the projector waits for it, so a top-up is spendable once its batch is done. With
   * Redis away it does not wait: the push is kept (the latest per base) and sent when the connection is back, and a
   * push whose connection went down mid-command is waited for at most RELAY_ADMISSION_REDIS_WAIT_MS (ioredis sends it
   * again once the connection is back). Until then admission keeps the older base and every charge settled since:
   * it counts every charge, and misses only the other changes of the balance (a top-up, an admin's edit) until the push
   * lands. The projector meanwhile goes on folding (it used to wait for Redis with every read model behind it;
   * README, "When Redis or Postgres is away").
   */
  async push(kind: 'account' | 'token', userId: number, id: number, balance: number, position: number): Promise<void> {
    const keys = kind === 'account' ? this.keys.account(userId) : this.keys.token(userId, id);
    if (!this.readiness.ready) {
      this.defer(keys.bal, { settled: keys.settled, balance, position });
      return;
    }
    const sent = this.redis.tgSetBase(keys.bal, keys.settled, balance, position, 1);
    let failure: unknown = null;
    const settled = sent.catch((error: unknown) => {
      failure = error;
    });
    await this.readiness.whileReachable(settled);
    if (failure) throw failure;
  }

  /** Pushes waiting for admission's connection (tests, metrics). */
  get deferredPushes(): number {
    return this.deferred.size;
  }

  private defer(key: string, base: DeferredBase): void {
    const kept = this.deferred.get(key);
    if (!kept || kept.position < base.position) this.deferred.set(key, base);
  }

  private sendDeferred(): void {
    if (this.deferred.size === 0) return;
    const pushes = [...this.deferred];
    this.deferred.clear();
    for (const [key, base] of pushes) {
      this.redis.tgSetBase(key, base.settled, base.balance, base.position, 1).catch((error: unknown) => {
        // Down again before it went out: kept for the next 'ready' (unless a later push of the base is kept already).
        if (!this.readiness.ready) this.defer(key, base);
        else this.onError(error);
      });
    }
  }

  /** Reads the base from its projection (the balance and the checkpoint it is valid at, in one snapshot). */
  async load(kind: 'account' | 'token', userId: number, id: number): Promise<void> {
    const source = BALANCE_SOURCES[kind];
    const rows: Array<{ balance: string | null; position: string | null }> = await this.dataSource.query(
      `SELECT (${source.sql}) AS balance, (SELECT position FROM projection_checkpoints WHERE name = $2) AS position`,
      [id, source.projection],
    );
    const balance = Number(rows[0]?.balance ?? 0);
    const position = Number(rows[0]?.position ?? 0);
    const keys = kind === 'account' ? this.keys.account(userId) : this.keys.token(userId, id);
    await this.redis.tgSetBase(keys.bal, keys.settled, balance, position, 0);
  }
}
