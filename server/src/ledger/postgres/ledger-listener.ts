import { Client } from 'pg';

/**
 * One LISTEN connection per store, shared by every subscription in the process. A NOTIFY only wakes readers;
 * the events themselves are always read from the table, so a missed notification costs latency (the
 * subscriptions' slow poll covers it), never an event.
 */
export class LedgerListener {
  private client: Client | null = null;
  private connecting: Promise<void> | null = null;
  private readonly listeners = new Set<() => void>();
  private reconnectTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly connectionString: string,
    private readonly channel = 'ledger_events',
  ) {}

  /** Registers a wake-up; connects on first use. Returns the unsubscribe. */
  subscribe(wake: () => void): () => void {
    this.listeners.add(wake);
    void this.ensureConnected();
    return () => this.listeners.delete(wake);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    await this.connecting?.catch(() => undefined);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private ensureConnected(): Promise<void> {
    if (this.closed || this.client) return Promise.resolve();
    this.connecting ??= this.connect().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private async connect(): Promise<void> {
    const client = new Client({ connectionString: this.connectionString, connectionTimeoutMillis: 5000 });
    const lost = () => {
      if (this.client !== client) return;
      this.client = null;
      client.end().catch(() => undefined);
      this.scheduleReconnect();
    };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', () => {
      for (const wake of this.listeners) wake();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
    } catch {
      await client.end().catch(() => undefined);
      this.scheduleReconnect();
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    // Anything appended while we were not listening must be picked up now, not at the next poll.
    for (const wake of this.listeners) wake();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer || this.listeners.size === 0) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      void this.ensureConnected();
    }, 1000);
    this.reconnectTimer.unref();
  }
}
