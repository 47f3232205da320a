import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/** Advisory lock namespace of charge-journal owners (7311002: ledger appends, 7311003: projector leadership). */
export const JOURNAL_OWNER_LOCK = 7_311_004;

/** The lock's second key: the owner id is 8 hex digits, read as a signed 32-bit integer. */
export function ownerLockKey(owner: string): number {
  return Number.parseInt(owner, 16) | 0;
}

/**
 * Liveness of charge-journal writers. Every process that journals charges holds a session-level Postgres advisory
 * lock named after its owner id, on a connection of its own, for as long as it lives. When it dies, Postgres ends
 * the session and frees the lock at once, so another process can tell a dead writer's journal from a live one's by
 * trying the lock: taking it means the writer is gone, and holding it while shipping that journal keeps every
 * other process away from it. If our connection drops, the lock is gone too: another process may then ship our
 * journal while we do, which the charges' event ids make harmless; `ensure()` takes it again.
 */
export class JournalOwnerLock {
  private client: Client | null = null;
  private connecting: Promise<Client> | null = null;
  private ownerValue: string | null = null;

  constructor(private readonly connectionString: string) {}

  /** This process's owner id (set by acquireOwnership). */
  get owner(): string {
    if (!this.ownerValue) throw new Error('journal owner lock: not acquired');
    return this.ownerValue;
  }

  /** Picks a fresh owner id whose lock is free and takes it. */
  async acquireOwnership(): Promise<string> {
    for (let attempt = 0; attempt < 16; attempt++) {
      const owner = randomBytes(4).toString('hex');
      if (await this.tryLock(owner)) {
        this.ownerValue = owner;
        return owner;
      }
    }
    throw new Error('journal owner lock: no free owner id after 16 tries');
  }

  /** Takes our own lock again after a reconnect (no-op while the session holds it). */
  async ensure(): Promise<void> {
    if (this.ownerValue && !this.client) await this.tryLock(this.ownerValue);
  }

  /** True when `owner`'s lock could be taken: its writer is gone, and this process now holds it until unlock(). */
  async tryLock(owner: string): Promise<boolean> {
    const client = await this.connection();
    const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS locked', [
      JOURNAL_OWNER_LOCK,
      ownerLockKey(owner),
    ]);
    return rows[0].locked;
  }

  async unlock(owner: string): Promise<void> {
    const client = await this.connection();
    await client.query('SELECT pg_advisory_unlock($1, $2)', [JOURNAL_OWNER_LOCK, ownerLockKey(owner)]);
  }

  /** Ends the session: every lock it holds, our own included, is released. */
  async close(): Promise<void> {
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private connection(): Promise<Client> {
    if (this.client) return Promise.resolve(this.client);
    if (this.connecting) return this.connecting;
    const client = new Client({ connectionString: this.connectionString, connectionTimeoutMillis: 5000 });
    const lost = () => {
      if (this.client === client) this.client = null;
    };
    client.on('error', lost);
    client.on('end', lost);
    this.connecting = client
      .connect()
      .then(() => {
        this.client = client;
        return client;
      })
      .finally(() => {
        this.connecting = null;
      });
    return this.connecting;
  }
}
