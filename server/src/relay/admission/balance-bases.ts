import type { DataSource } from 'typeorm';
import type { AdmissionCommands, AdmissionKeys } from './admission-redis';

/** Where the bases come from: the projection table and the checkpoint its rows are valid at. */
export const BALANCE_SOURCES = {
  account: { projection: 'account-balances', sql: 'SELECT quota AS balance FROM account_balances WHERE user_id = $1' },
  token: { projection: 'token-balances', sql: 'SELECT remain_quota AS balance FROM token_balances WHERE token_id = $1' },
} as const;

/** The balances admission reserves against (bases), each with the ledger position it is valid at. */
export class BalanceBases {
  constructor(
    private readonly redis: AdmissionCommands,
    private readonly keys: AdmissionKeys,
    private readonly dataSource: DataSource,
  ) {}

  /** The projector's push after committing a balance change: only bases already loaded are moved. */
  async push(kind: 'account' | 'token', userId: number, id: number, balance: number, position: number): Promise<void> {
    const keys = kind === 'account' ? this.keys.account(userId) : this.keys.token(userId, id);
    await this.redis.tgSetBase(keys.bal, keys.settled, balance, position, 1);
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
