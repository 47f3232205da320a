import { randomUUID } from 'node:crypto';
import { testRedisPrefix } from '#test/support/database';

/**
 * For specs that run admission's Lua scripts directly: the keys of one fresh user (and its token 1) under the test
 * prefix, in one hash tag as the scripts need; `name` tells the specs' keys apart. `seven` is the order RESERVE,
 * SETTLE and SETTLE_MANY take them in (admission-redis.ts).
 */
export function scriptTestKeys(name: string) {
  const tag = `${testRedisPrefix()}${name}:{u:${randomUUID()}}`;
  const keys = {
    acctBal: `${tag}:acct`,
    acctSettled: `${tag}:acct:settled`,
    acctResv: `${tag}:acct:resv`,
    leases: `${tag}:leases`,
    tokBal: `${tag}:tok:1`,
    tokSettled: `${tag}:tok:1:settled`,
    tokResv: `${tag}:tok:1:resv`,
    tokens: `${tag}:tokens`,
  };
  return { ...keys, seven: [keys.acctBal, keys.acctSettled, keys.acctResv, keys.leases, keys.tokBal, keys.tokSettled, keys.tokResv] };
}

export type ScriptTestKeys = ReturnType<typeof scriptTestKeys>;
