/**
 * RESERVE's cost against the size of a base's settled set (the charges the projector has not passed yet):
 *
 *   node -r ./test/support/swc-register.js test/bench/admission-backlog.bench.ts [sizes=0,1000,10000,34000] [calls=50]
 *
 * For each size, one user's account and token bases, that many charges settled past them with SETTLE_MANY (in batches
 * of 1,000), then `calls` RESERVEs one after another, each timed from the client: prints the median and the p90 in ms.
 * With the settled sum kept in the base (`held`, quota-scripts.ts) the figure stays flat; when RESERVE summed the
 * set it grew with it (16.7 ms at 34,000 entries, docs/benchmark.md, 2026-11-26). Redis from BENCH_REDIS_URL (default
 * 127.0.0.1:6379); the keys are under a prefix of their own and deleted at the end.
 */
import Redis from 'ioredis';
import { RESERVE, SET_BASE, SETTLE_MANY } from '#server/relay/admission/quota-scripts';

const sizes = (process.argv[2] ?? '0,1000,10000,34000').split(',').map(Number);
const calls = Math.max(1, Number(process.argv[3] ?? 50));

async function measure(redis: Redis, size: number): Promise<{ median: number; p90: number }> {
  const tag = `tollgate-admission-backlog-${process.pid}-${size}:{u:1}`;
  const keys = [
    `${tag}:acct`,
    `${tag}:acct:settled`,
    `${tag}:acct:resv`,
    `${tag}:leases`,
    `${tag}:tok:1`,
    `${tag}:tok:1:settled`,
    `${tag}:tok:1:resv`,
  ];
  const tokens = `${tag}:tokens`;
  try {
    await redis.eval(SET_BASE, 2, keys[0], keys[1], 1e12, 0, 0);
    await redis.eval(SET_BASE, 2, keys[4], keys[5], 1e12, 0, 0);
    for (let first = 0; first < size; first += 1000) {
      const charges: Array<string | number> = [];
      for (let i = first; i < Math.min(size, first + 1000); i++) charges.push(`s${i}`, `s${i}`, 3, i + 1, 'r');
      await redis.eval(SETTLE_MANY, 7, ...keys, 1, ...charges);
    }
    const times: number[] = [];
    for (let i = 0; i < calls; i++) {
      const started = process.hrtime.bigint();
      await redis.eval(RESERVE, 8, ...keys, tokens, `probe-${i}`, 1, Date.now() + 60_000, 1, 1);
      times.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    times.sort((a, b) => a - b);
    return { median: times[Math.floor(times.length / 2)], p90: times[Math.floor(times.length * 0.9)] };
  } finally {
    await redis.del(...keys, tokens);
  }
}

async function main(): Promise<void> {
  const redis = new Redis(process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379');
  try {
    for (const size of sizes) {
      const { median, p90 } = await measure(redis, size);
      process.stdout.write(`settled entries ${size}: RESERVE median ${median.toFixed(3)} ms, p90 ${p90.toFixed(3)} ms (${calls} calls)\n`);
    }
  } finally {
    redis.disconnect();
  }
}

void main();
