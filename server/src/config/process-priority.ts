import { readdirSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * A process without the api role (projector, worker) does background work: the read models, channel tests,
 * recovery. Where it shares CPUs with an api process (one host, docker-compose), the relay's requests should get
 * the CPU first, so it lowers its own scheduling priority by `nice` steps (lowering needs no privilege; the
 * result is capped at 19). `nice` is BACKGROUND_NICE. Returns the new priority, or null when nothing was changed.
 *
 * On Linux a priority belongs to a thread, not to the process: `setPriority(p)` (pid 0) lowers only the calling
 * thread, and the threads Node started before this runs (V8's GC and compiler helpers, the libuv pool) kept nice 0,
 * so a projector's garbage collection still competed with the relay at full priority. Every thread listed in
 * /proc/self/task is lowered; threads started later inherit the main thread's priority.
 */
export function lowerProcessPriority(nice: number): number | null {
  if (nice <= 0) return null;
  const target = Math.min(19, getPriority() + nice);
  setPriority(target);
  for (const tid of processThreads()) {
    try {
      if (getPriority(tid) < target) setPriority(tid, target);
    } catch {
      // The thread ended meanwhile.
    }
  }
  return getPriority();
}

/** The ids of this process's threads (Linux: /proc/self/task), or none where /proc is not there. */
export function processThreads(): number[] {
  try {
    return readdirSync('/proc/self/task')
      .map(Number)
      .filter((tid) => Number.isSafeInteger(tid) && tid > 0);
  } catch {
    return [];
  }
}
