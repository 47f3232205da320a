import type { LeaseRenewer } from '../leases/lease-renewer';
import type { AdmissionCommands, AdmissionKeys } from './admission-redis';
import type { BlockStore, QuotaBlock } from './quota-blocks';

/** The Redis side of quota blocks: relative, atomic scripts on admission's one ordered connection. */
export function redisBlockStore(redis: AdmissionCommands, keys: AdmissionKeys, leaseMs: number, leases: LeaseRenewer): BlockStore {
  return {
    grow: async (block, extra) => {
      const withToken = block.tokenId !== null;
      const scriptKeys = [...keys.script(block.userId, block.tokenId), keys.account(block.userId).tokens];
      const expiresAt = Date.now() + leaseMs;
      const [status, user, token] = await redis.tgGrow(
        ...scriptKeys,
        block.id,
        Math.ceil(extra),
        expiresAt,
        withToken ? 1 : 0,
        block.tokenId ?? 0,
      );
      if (status === 0) {
        // A balance is not loaded yet (the block's first request loaded it a moment ago, so rarely): not now.
        return { ok: false, userAvailable: 0, tokenAvailable: withToken ? 0 : null };
      }
      if (status === 1) void redis.zadd(keys.leaseUsers, 'LT', expiresAt, String(block.userId)).catch(() => undefined);
      return { ok: status === 1, userAvailable: user, tokenAvailable: withToken ? token : null };
    },
    shrink: async (block, amount) => {
      const account = keys.account(block.userId);
      const token = keys.token(block.userId, block.tokenId ?? 0);
      await redis.tgShrink(account.resv, account.leases, token.resv, block.id, Math.ceil(amount), block.tokenId !== null ? 1 : 0);
    },
    hold: (block: QuotaBlock) => leases.hold(block.id, block.userId),
    unhold: (block: QuotaBlock) => leases.release(block.id),
  };
}
