import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { DEFAULT_IDLE_HEAP_COLLECTOR, IdleHeapCollector, type IdleHeapProbe, idleHeapCollectorOptions } from './idle-heap-collector';
import { parseConfig } from './app-config';

const MB = 1024 * 1024;

/** A scripted process: each tick reads the next utilisation and heap size. */
function scripted(steps: Array<{ busy: number; heapMb: number }>, startHeapMb = 60) {
  let index = -1;
  let now = 0;
  let heap = startHeapMb * MB;
  const collected: number[] = [];
  const probe: IdleHeapProbe = {
    utilization: () => {
      index++;
      now += 5_000;
      heap = (steps[index]?.heapMb ?? heap / MB) * MB;
      return steps[index]?.busy ?? 0;
    },
    heapBytes: () => heap,
    now: () => now,
    collect: () => {
      collected.push(index);
      heap = startHeapMb * MB; // the collection gives the burst's memory back
    },
  };
  return { probe, collected };
}

describe('IdleHeapCollector', () => {
  it('collects once after a burst, when the process has been quiet for two intervals and the heap grew', () => {
    const { probe, collected } = scripted([
      { busy: 0.9, heapMb: 120 },
      { busy: 0.9, heapMb: 130 },
      { busy: 0.001, heapMb: 130 }, // quiet 1
      { busy: 0.001, heapMb: 130 }, // quiet 2: collect
      { busy: 0.001, heapMb: 60 },
      { busy: 0.001, heapMb: 100 }, // still the same quiet period: not again
    ]);
    const collector = new IdleHeapCollector(DEFAULT_IDLE_HEAP_COLLECTOR, probe);
    for (let i = 0; i < 6; i++) collector.tick();
    expect(collected).toEqual([3]);
    expect(collector.collections).toBe(1);
  });

  it('never touches a busy process, nor a quiet one whose heap did not grow enough', () => {
    const busy = scripted(Array.from({ length: 20 }, () => ({ busy: 0.5, heapMb: 300 })));
    const collector = new IdleHeapCollector(DEFAULT_IDLE_HEAP_COLLECTOR, busy.probe);
    for (let i = 0; i < 20; i++) collector.tick();
    expect(busy.collected).toEqual([]);

    const small = scripted(Array.from({ length: 20 }, () => ({ busy: 0, heapMb: 80 })));
    const quiet = new IdleHeapCollector(DEFAULT_IDLE_HEAP_COLLECTOR, small.probe);
    for (let i = 0; i < 20; i++) quiet.tick();
    expect(small.collected).toEqual([]);
  });

  it('collects again after the next burst, but not within 30 s of the last collection', () => {
    const burst = [
      { busy: 0.9, heapMb: 130 },
      { busy: 0, heapMb: 130 },
      { busy: 0, heapMb: 130 },
    ];
    // Second burst right after the first collection: its quiet period comes 15 s later (< 60 s): skipped.
    const { probe, collected } = scripted([...burst, ...burst, ...Array.from({ length: 12 }, () => ({ busy: 0, heapMb: 130 })), ...burst]);
    const collector = new IdleHeapCollector(DEFAULT_IDLE_HEAP_COLLECTOR, probe);
    for (let i = 0; i < 21; i++) collector.tick();
    // Tick 2: the first. The second burst is quiet again at tick 5, 15 s later: skipped until tick 8 (30 s). The third
    // burst (tick 18) is quiet from tick 20, a minute after the second: collected at once.
    expect(collected).toEqual([2, 8, 20]);
  });

  it('reads IDLE_GC and IDLE_GC_MIN_GROWTH_MB', () => {
    const options = (env: Record<string, string>) => idleHeapCollectorOptions(parseConfig(env));
    expect(options({})).toEqual(DEFAULT_IDLE_HEAP_COLLECTOR);
    expect(options({ IDLE_GC: 'off' })).toBeNull();
    expect(options({ IDLE_GC_MIN_GROWTH_MB: '8' })?.minGrowthBytes).toBe(8 * MB);
    expect(() => options({ IDLE_GC_MIN_GROWTH_MB: 'x' })).toThrow('IDLE_GC_MIN_GROWTH_MB must be a number > 0 (got "x")');
  });

  it('runs a real full collection without --expose-gc, and it gives garbage back', () => {
    // A child process: the collection function must come from the module, not from the test runner's flags.
    const script = `
      const { fullCollection } = require(${JSON.stringify(join(__dirname, 'idle-heap-collector.ts'))});
      if (typeof globalThis.gc === 'function') throw new Error('gc is exposed already');
      let junk = Array.from({ length: 200000 }, (_, i) => ({ i, s: 'x'.repeat(20) + i }));
      const before = process.memoryUsage().heapUsed;
      junk = null;
      fullCollection()();
      const after = process.memoryUsage().heapUsed;
      process.stdout.write(JSON.stringify({ before, after }));
    `;
    const { before, after } = JSON.parse(
      execFileSync(process.execPath, ['-r', resolve(__dirname, '../../../test/support/swc-register.js'), '-e', script], {
        encoding: 'utf8',
      }),
    );
    expect(after).toBeLessThan(before - 10 * MB);
  });
});
