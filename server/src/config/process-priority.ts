import { getPriority, setPriority } from 'node:os';

/**
 * A process without the api role (projector, worker) does background work: the read models, channel tests,
 * recovery. Where it shares CPUs with an api process (one host, docker-compose), the relay's requests should get
 * the CPU first, so it lowers its own scheduling priority by `nice` steps (lowering needs no privilege; the
 * result is capped at 19). `nice` is BACKGROUND_NICE. Returns the new priority, or null when nothing was changed.
 */
export function lowerProcessPriority(nice: number): number | null {
  if (nice <= 0) return null;
  const target = Math.min(19, getPriority() + nice);
  setPriority(target);
  return getPriority();
}
