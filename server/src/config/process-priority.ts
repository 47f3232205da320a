import { getPriority, setPriority } from 'node:os';

/** BACKGROUND_NICE: how much a process without the api role lowers its priority (0-19, default 10; 0: not at all). */
export function backgroundNice(env: Record<string, string | undefined> = process.env): number {
  const raw = env.BACKGROUND_NICE;
  if (raw === undefined || raw.trim() === '') return 10;
  const value = Math.trunc(Number(raw));
  return Number.isFinite(value) ? Math.min(19, Math.max(0, value)) : 10;
}

/**
 * A process without the api role (projector, worker) does background work: the read models, channel tests,
 * recovery. Where it shares CPUs with an api process (one host, docker-compose), the relay's requests should get
 * the CPU first, so it lowers its own scheduling priority by `nice` steps (lowering needs no privilege; the
 * result is capped at 19). Returns the new priority, or null when nothing was changed.
 */
export function lowerProcessPriority(nice: number): number | null {
  if (nice <= 0) return null;
  const target = Math.min(19, getPriority() + nice);
  setPriority(target);
  return getPriority();
}
