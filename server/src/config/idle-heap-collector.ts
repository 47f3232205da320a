import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { EnvConfig } from './app-config';

/**
 * Gives memory back after a burst. V8 grows the heap under load (the young generation to its maximum, the old one
 * with the garbage of the burst) and collects the old generation only when allocation pushes it to: a process that
 * goes quiet after a spike keeps that memory, however long it stays quiet. Measured with `npm run bench --
 * --streams --waves 3` (docs/benchmark.md): 1,000 streams left the gateway 45–55 MB above its baseline RSS 30 s
 * after they ended, the same after every wave (retention, not a leak), and one full collection on the idle process
 * took 42 ms and returned about 48 MB of it.
 *
 * So: every `intervalMs` the collector looks at the event loop's utilisation over the interval. Once the process has
 * been quiet (utilisation under `idleUtilization`, 5 %: an idle gateway measures 0.5–4 %, from its sweeps and
 * timers; relaying, even one request at a time, 50 % and more) for `idleIntervals` intervals in a row and its heap has grown by
 * at least `minGrowthBytes` since the last collection, it runs one full collection, at most once per quiet period
 * (it waits for a busy interval again) and never more often than every `minSpacingMs` (30 s). A busy process is
 * never touched. IDLE_GC=off turns it off; IDLE_GC_MIN_GROWTH_MB (default 32) sets the growth that is worth a collection.
 */
export interface IdleHeapCollectorOptions {
  intervalMs: number;
  idleIntervals: number;
  idleUtilization: number;
  minGrowthBytes: number;
  minSpacingMs: number;
}

export interface IdleHeapProbe {
  /** Event-loop utilisation (0–1) since the previous call. */
  utilization(): number;
  /** Bytes the V8 heap occupies (heapTotal). */
  heapBytes(): number;
  now(): number;
  /** One full garbage collection. */
  collect(): void;
}

export const DEFAULT_IDLE_HEAP_COLLECTOR: IdleHeapCollectorOptions = {
  intervalMs: 5_000,
  idleIntervals: 2,
  idleUtilization: 0.05,
  minGrowthBytes: 32 * 1024 * 1024,
  minSpacingMs: 30_000,
};

export type IdleHeapCollectorConfig = Pick<EnvConfig, 'IDLE_GC' | 'IDLE_GC_MIN_GROWTH_MB'>;

export function idleHeapCollectorOptions(config: IdleHeapCollectorConfig): IdleHeapCollectorOptions | null {
  if (!config.IDLE_GC) return null;
  return { ...DEFAULT_IDLE_HEAP_COLLECTOR, minGrowthBytes: config.IDLE_GC_MIN_GROWTH_MB * 1024 * 1024 };
}

export class IdleHeapCollector {
  private baseline: number;
  private quietIntervals = 0;
  /** Collected in the current quiet period: wait for a busy interval before the next. */
  private collectedWhileQuiet = false;
  private lastCollection = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | null = null;
  collections = 0;

  constructor(
    private readonly options: IdleHeapCollectorOptions,
    private readonly probe: IdleHeapProbe,
  ) {
    this.baseline = probe.heapBytes();
  }

  start(): this {
    this.probe.utilization();
    this.timer = setInterval(() => this.tick(), this.options.intervalMs);
    this.timer.unref();
    return this;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One look (the timer's; tests call it directly). Returns true when it collected. */
  tick(): boolean {
    const busy = this.probe.utilization() >= this.options.idleUtilization;
    const heap = this.probe.heapBytes();
    if (busy) {
      this.quietIntervals = 0;
      this.collectedWhileQuiet = false;
      return false;
    }
    // Quiet: a heap that shrank on its own is the new reference.
    if (heap < this.baseline) this.baseline = heap;
    this.quietIntervals++;
    if (this.collectedWhileQuiet || this.quietIntervals < this.options.idleIntervals) return false;
    if (heap - this.baseline < this.options.minGrowthBytes) return false;
    const now = this.probe.now();
    if (now - this.lastCollection < this.options.minSpacingMs) return false;
    this.probe.collect();
    this.collections++;
    this.lastCollection = now;
    this.collectedWhileQuiet = true;
    this.baseline = this.probe.heapBytes();
    return true;
  }
}

let collectFn: (() => void) | null = null;

/**
 * The full collection: `gc` when node runs with --expose-gc, else the same function made available at run time
 * (v8.setFlagsFromString('--expose-gc') takes effect for contexts created after it, which is what
 * vm.runInNewContext gives; the collection is of the whole isolate, not of that context).
 */
export function fullCollection(): () => void {
  if (collectFn) return collectFn;
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (typeof exposed === 'function') {
    collectFn = exposed;
  } else {
    setFlagsFromString('--expose-gc');
    collectFn = runInNewContext('gc') as () => void;
  }
  return collectFn;
}

/** The collector for this process, started; null when IDLE_GC=off. `report` hears of each collection. */
export function startIdleHeapCollector(
  config: IdleHeapCollectorConfig,
  report: (line: string) => void = () => undefined,
): IdleHeapCollector | null {
  const options = idleHeapCollectorOptions(config);
  if (!options) return null;
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
  let last = performance.eventLoopUtilization();
  return new IdleHeapCollector(options, {
    utilization: () => {
      const current = performance.eventLoopUtilization();
      const delta = performance.eventLoopUtilization(current, last);
      last = current;
      return delta.utilization;
    },
    heapBytes: () => process.memoryUsage().heapTotal,
    now: () => Date.now(),
    collect: () => {
      const before = process.memoryUsage();
      const started = performance.now();
      fullCollection()();
      const after = process.memoryUsage();
      report(
        `quiet after a burst: full GC in ${(performance.now() - started).toFixed(0)} ms, heap ${mb(before.heapTotal)} -> ${mb(after.heapTotal)} MB, rss ${mb(before.rss)} -> ${mb(after.rss)} MB`,
      );
    },
  }).start();
}
