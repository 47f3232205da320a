import type { DataSource } from 'typeorm';
import type { EventStore } from '../../ledger/event-store.port';
import type { AdmissionCommands, AdmissionKeys } from './admission-redis';
import { BALANCE_SOURCES, type BalanceBases } from './balance-bases';

/**
 * Reservations whose lease ran out (their process died) stop holding quota once the projection passes the head
 * position seen at the sweep; the worker role runs it every few seconds through QuotaAdmissionService.sweepExpired.
 */
export class ExpiredLeases {
  constructor(
    private readonly redis: AdmissionCommands,
    private readonly keys: AdmissionKeys,
    private readonly store: EventStore,
    private readonly dataSource: DataSource,
    private readonly bases: BalanceBases,
  ) {}

  async sweep(now: number): Promise<number> {
    const expired = await this.expire(now);
    await this.refreshSweptBases();
    return expired;
  }

  private async expire(now: number): Promise<number> {
    const users = await this.redis.zrangebyscore(this.keys.leaseUsers, '-inf', now);
    if (users.length === 0) return 0;
    const head = await this.store.headPosition();
    let expired = 0;
    for (const id of users) {
      const userId = Number(id);
      const account = this.keys.account(userId);
      const tokenIds = await this.redis.smembers(account.tokens);
      const tokenKeys = tokenIds.flatMap((tokenId) => {
        const token = this.keys.token(userId, Number(tokenId));
        return [token.bal, token.settled, token.resv];
      });
      const keys = [account.bal, account.settled, account.resv, account.leases, ...tokenKeys];
      const count = await this.redis.tgExpire(keys.length, ...keys, now, head);
      expired += count;
      if (count > 0) await this.redis.zadd(this.keys.refreshUsers, 'GT', head, id);
      // Keep the user indexed while later leases remain; the GT update never moves an entry backwards.
      const next = await this.redis.zrange(account.leases, 0, 0, 'WITHSCORES');
      if (next.length === 0) await this.redis.zrem(this.keys.leaseUsers, id);
      else await this.redis.zadd(this.keys.leaseUsers, Number(next[1]), id);
    }
    return expired;
  }

  /**
   * An expired lease's entry (at the head position of its sweep) is pruned only when the base moves past that
   * position, and the projector moves a base only when an event of that account or token is projected. A user
   * whose request died and who sends nothing else (or cannot: the entry holds all their quota) would keep the
   * quota held forever. So once the balance projections' checkpoints pass the sweep's head, the swept bases are
   * reloaded from the projections (balance and checkpoint in one snapshot), which prunes the entries.
   */
  private async refreshSweptBases(): Promise<void> {
    const pending = await this.redis.zrange(this.keys.refreshUsers, 0, -1, 'WITHSCORES');
    if (pending.length === 0) return;
    const rows: Array<{ name: string; position: string }> = await this.dataSource.query(
      'SELECT name, position FROM projection_checkpoints WHERE name = ANY($1)',
      [[BALANCE_SOURCES.account.projection, BALANCE_SOURCES.token.projection]],
    );
    const checkpoint = (name: string) => Number(rows.find((row) => row.name === name)?.position ?? 0);
    const reached = Math.min(checkpoint(BALANCE_SOURCES.account.projection), checkpoint(BALANCE_SOURCES.token.projection));
    for (let index = 0; index < pending.length; index += 2) {
      const id = pending[index];
      const head = Number(pending[index + 1]);
      if (head > reached) continue;
      const userId = Number(id);
      await this.bases.load('account', userId, userId);
      for (const tokenId of await this.redis.smembers(this.keys.account(userId).tokens)) {
        await this.bases.load('token', userId, Number(tokenId));
      }
      // Removed only if no later sweep re-queued the user at a higher head meanwhile.
      await this.redis.eval(
        "if tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]) or '-1') <= tonumber(ARGV[2]) then redis.call('ZREM', KEYS[1], ARGV[1]) end return 1",
        1,
        this.keys.refreshUsers,
        id,
        head,
      );
    }
  }
}
