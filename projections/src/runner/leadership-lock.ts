import { Client } from 'pg';

/**
 * A session-level Postgres advisory lock on a connection of its own: whoever holds it is the single active
 * projector. If the holder dies, Postgres ends its session and frees the lock, and a follower's next try wins.
 * A heartbeat notices a dead connection on our side, since then Postgres may already have given the lock away.
 */
export class LeadershipLock {
  private client: Client | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private held = false;

  /** Called once each time a held lock is lost (connection error, failed heartbeat). */
  onLost: () => void = () => undefined;

  constructor(
    private readonly connectionString: string,
    private readonly key: number,
    private readonly heartbeatMs: number,
  ) {}

  get isHeld(): boolean {
    return this.held;
  }

  async tryAcquire(): Promise<boolean> {
    if (this.held) return true;
    const client = await this.connection();
    const { rows } = await client.query<{ acquired: boolean }>('SELECT pg_try_advisory_lock($1) AS acquired', [this.key]);
    if (!rows[0].acquired) return false;
    this.held = true;
    this.heartbeat = setInterval(() => {
      client.query('SELECT 1').catch(() => this.lose(client));
    }, this.heartbeatMs);
    this.heartbeat.unref();
    return true;
  }

  /** Polls tryAcquire until it succeeds or `timeoutMs` passes. */
  async acquireWithin(timeoutMs: number, pollMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (await this.tryAcquire()) return true;
      if (Date.now() + pollMs > deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }

  /** Ends the session, which releases the lock even if an unlock could not be sent. */
  async release(): Promise<void> {
    const client = this.client;
    this.stopHeartbeat();
    this.held = false;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  /** The backend pid of the current holder (any process), for messages and the admin lag view. */
  async holderPid(): Promise<number | null> {
    const client = await this.connection();
    const [sql, parameters] = holderPidQuery(this.key);
    const { rows } = await client.query<{ pid: number }>(sql, parameters);
    return rows[0]?.pid ?? null;
  }

  private async connection(): Promise<Client> {
    if (this.client) return this.client;
    const client = new Client({ connectionString: this.connectionString, connectionTimeoutMillis: 5000 });
    client.on('error', () => this.lose(client));
    client.on('end', () => this.lose(client));
    await client.connect();
    this.client = client;
    return client;
  }

  private lose(client: Client): void {
    if (this.client !== client) return;
    const wasHeld = this.held;
    this.stopHeartbeat();
    this.held = false;
    this.client = null;
    client.end().catch(() => undefined);
    if (wasHeld) this.onLost();
  }

  private stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }
}

/**
 * SQL and parameters naming the backend pid that holds advisory lock `key` in this database, if any.
 * pg_locks splits a bigint advisory key into classid (high 32 bits) and objid (low 32 bits).
 */
export function holderPidQuery(key: number): [string, unknown[]] {
  return [
    `SELECT pid FROM pg_locks
      WHERE locktype = 'advisory' AND granted AND objsubid = 1
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND classid = $1::bigint::oid AND objid = $2::bigint::oid
      LIMIT 1`,
    [Math.floor(key / 2 ** 32), key % 2 ** 32],
  ];
}
