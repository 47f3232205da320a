import { LinePrefixer } from './line-prefixer';
import { type ChildSpec, Supervisor } from './supervisor';

const node = (name: string, script: string): ChildSpec => ({ name, args: ['-e', script], env: { PATH: process.env.PATH } });

function alive(pid: number | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((done) => setTimeout(done, 20));
  }
}

describe('LinePrefixer', () => {
  it('prefixes whole lines and holds a split line until its end', () => {
    const out: string[] = [];
    const prefixer = new LinePrefixer('[api] ', (text) => out.push(text));
    prefixer.push('one\ntw');
    prefixer.push('o\nthree\n');
    prefixer.push('four');
    expect(out.join('')).toBe('[api] one\n[api] two\n[api] three\n');
    prefixer.flush();
    expect(out.join('')).toBe('[api] one\n[api] two\n[api] three\n[api] four\n');
  });
});

describe('Supervisor', () => {
  it('forwards every child output with its prefix, restarts a crashed child with backoff, and stops all on stop()', async () => {
    const lines: string[] = [];
    const log: string[] = [];
    const supervisor = new Supervisor({
      command: process.execPath,
      children: [
        node('steady', 'console.log("steady up"); setInterval(() => {}, 1000)'),
        node('crashy', 'console.error("crashy up"); setTimeout(() => process.exit(3), 50)'),
      ],
      log: (line) => log.push(line),
      stdout: (text) => lines.push(text),
      stderr: (text) => lines.push(text),
      backoffMs: 50,
      maxQuickCrashes: 100,
    });
    supervisor.start();
    const steady = supervisor.pids().steady;
    await until(() => log.filter((line) => /^crashy: exited \(code 3\)/.test(line)).length >= 3);
    const delays = log
      .map((line) => /^crashy: exited .* restarting in (\d+) ms$/.exec(line)?.[1])
      .filter(Boolean)
      .map(Number);
    expect(delays.slice(0, 3)).toEqual([50, 100, 200]);
    expect(lines).toContain('[steady] steady up\n');
    expect(lines.filter((line) => line === '[crashy] crashy up\n').length).toBeGreaterThanOrEqual(3);
    expect(supervisor.pids().steady).toBe(steady); // the healthy child was left alone

    expect(await supervisor.stop(5_000)).toBe(true);
    expect(alive(steady)).toBe(false);
    expect(log).toContain('steady: stopped (signal SIGTERM)');
    const count = log.length;
    await new Promise((done) => setTimeout(done, 500));
    expect(log.slice(count).filter((line) => /started/.test(line))).toEqual([]); // no restart after stop()
  });

  it('SIGKILLs a child that ignores SIGTERM once the deadline passes', async () => {
    const log: string[] = [];
    let isReady = () => undefined as void;
    const ready = new Promise<void>((done) => (isReady = done));
    const supervisor = new Supervisor({
      command: process.execPath,
      children: [node('stubborn', 'process.on("SIGTERM", () => {}); console.log("ready"); setInterval(() => {}, 1000)')],
      log: (line) => log.push(line),
      stdout: (text) => text.includes('ready') && isReady(),
    });
    supervisor.start();
    await ready;
    const pid = supervisor.pids().stubborn;
    const started = Date.now();
    expect(await supervisor.stop(300)).toBe(false);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(alive(pid)).toBe(false);
    expect(log).toContain(`stubborn (pid ${pid}) did not stop within 300 ms: SIGKILL`);
  });

  it('gives up on a child that keeps crashing right after it starts', async () => {
    const log: string[] = [];
    let gaveUp = '';
    const supervisor = new Supervisor({
      command: process.execPath,
      children: [node('broken', 'process.exit(1)')],
      log: (line) => log.push(line),
      backoffMs: 10,
      maxQuickCrashes: 2,
      onGiveUp: (name) => (gaveUp = name),
    });
    supervisor.start();
    await until(() => gaveUp !== '');
    expect(gaveUp).toBe('broken');
    expect(log.filter((line) => line.startsWith('broken: started'))).toHaveLength(3);
    expect(log[log.length - 1]).toMatch(/^broken: exited \(code 1\) 3 times in a row within 30000 ms of starting: giving up$/);
    await supervisor.stop(1_000);
  });
});
