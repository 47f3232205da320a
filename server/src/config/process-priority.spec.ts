import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseConfig } from './app-config';

describe('background process priority', () => {
  it('reads BACKGROUND_NICE: default 10, 0-19, 0 turns it off; anything else is refused at start', () => {
    const backgroundNice = (value?: string) => parseConfig({ BACKGROUND_NICE: value }).BACKGROUND_NICE;
    expect(backgroundNice()).toBe(10);
    expect(backgroundNice('')).toBe(10);
    expect(backgroundNice('5')).toBe(5);
    expect(backgroundNice('0')).toBe(0);
    for (const value of ['-4', '40', 'high'])
      expect(() => backgroundNice(value)).toThrow(`BACKGROUND_NICE must be an integer 0..19 (got "${value}")`);
  });

  it('lowers the calling process priority by that many steps, capped at 19 (in a child process, not the test runner)', () => {
    const run = (nice: number) =>
      JSON.parse(
        execFileSync(
          process.execPath,
          [
            '-r',
            resolve(__dirname, '../../../test/support/swc-register.js'),
            '-e',
            `const os = require('node:os'); const { lowerProcessPriority } = require(${JSON.stringify(resolve(__dirname, 'process-priority.ts'))});
             const before = os.getPriority(); const result = lowerProcessPriority(${nice});
             process.stdout.write(JSON.stringify({ before, result, after: os.getPriority() }));`,
          ],
          { encoding: 'utf8' },
        ),
      ) as { before: number; result: number | null; after: number };
    const lowered = run(10);
    expect(lowered.after).toBe(Math.min(19, lowered.before + 10));
    expect(lowered.result).toBe(lowered.after);
    const capped = run(19);
    expect(capped.after).toBe(19);
    const untouched = run(0);
    expect(untouched).toEqual({ before: untouched.before, result: null, after: untouched.before });
  });

  it('lowers every thread of the process, not only the calling one (Linux: V8 and libuv threads started before it)', () => {
    if (!existsSync('/proc/self/task')) return; // no per-thread priorities to check where /proc is absent
    const threads = JSON.parse(
      execFileSync(
        process.execPath,
        [
          '-r',
          resolve(__dirname, '../../../test/support/swc-register.js'),
          '-e',
          `const os = require('node:os'); const { lowerProcessPriority, processThreads } = require(${JSON.stringify(resolve(__dirname, 'process-priority.ts'))});
           const target = lowerProcessPriority(7);
           process.stdout.write(JSON.stringify({ target, threads: processThreads().map((tid) => os.getPriority(tid)) }));`,
        ],
        { encoding: 'utf8' },
      ),
    ) as { target: number; threads: number[] };
    expect(threads.threads.length).toBeGreaterThan(1);
    expect(new Set(threads.threads)).toEqual(new Set([threads.target]));
  });
});
