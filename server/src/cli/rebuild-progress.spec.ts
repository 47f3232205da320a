import { formatDuration, formatRebuildProgress, groupDigits, ProgressPrinter, type RebuildProgress } from './rebuild-progress';

describe('rebuild progress', () => {
  it('groups digits in threes whatever the locale', () => {
    expect(groupDigits(0)).toBe('0');
    expect(groupDigits(999)).toBe('999');
    expect(groupDigits(1000)).toBe('1,000');
    expect(groupDigits(1_234_567.6)).toBe('1,234,568');
  });

  it('writes durations as m:ss, h:mm:ss from an hour, and -:-- when unknown', () => {
    expect(formatDuration(0)).toBe('0:00');
    expect(formatDuration(9.6)).toBe('0:10');
    expect(formatDuration(75)).toBe('1:15');
    expect(formatDuration(3723)).toBe('1:02:03');
    expect(formatDuration(null)).toBe('-:--');
    expect(formatDuration(Infinity)).toBe('-:--');
  });

  it('shows the bar, share, done/total, the rate since the start and the time left at that rate', () => {
    expect(formatRebuildProgress({ done: 312_000, total: 1_000_000, elapsedMs: 6000 })).toBe(
      '[#########.....................]  31%  312,000/1,000,000 events  52,000 ev/s  0:13 left',
    );
  });

  it('before anything is replayed: an empty bar, rate and time left unknown', () => {
    expect(formatRebuildProgress({ done: 0, total: 500, elapsedMs: 0 })).toBe(
      '[..............................]   0%  0/500 events  - ev/s  -:-- left',
    );
  });

  it('done (or past the head: events appended meanwhile) and an empty ledger: a full bar, nothing left', () => {
    expect(formatRebuildProgress({ done: 500, total: 500, elapsedMs: 1000 })).toBe(
      '[##############################] 100%  500/500 events  500 ev/s  0:00 left',
    );
    expect(formatRebuildProgress({ done: 510, total: 500, elapsedMs: 1000 })).toMatch(
      /^\[#{30}\] 100% {2}510\/500 events {2}510 ev\/s {2}0:00 left$/,
    );
    expect(formatRebuildProgress({ done: 0, total: 0, elapsedMs: 5 })).toBe(
      '[##############################] 100%  0/0 events  - ev/s  0:00 left',
    );
  });

  describe('printer', () => {
    const step = (done: number, elapsedMs: number): RebuildProgress => ({ done, total: 1000, elapsedMs });

    it('on a terminal: redraws one line in place, at most every 200 ms, and ends the line when finished', () => {
      let now = 0;
      const written: string[] = [];
      const printer = new ProgressPrinter({ isTTY: true, write: (text) => written.push(text) }, { now: () => now });
      printer.update(step(100, 100));
      now = 100;
      printer.update(step(200, 200)); // too soon: not drawn
      now = 250;
      printer.update(step(300, 300));
      printer.finish();
      expect(written).toEqual([
        `\r\x1b[2K${formatRebuildProgress(step(100, 100))}`,
        `\r\x1b[2K${formatRebuildProgress(step(300, 300))}`,
        `\r\x1b[2K${formatRebuildProgress(step(300, 300))}`,
        '\n',
      ]);
    });

    it('elsewhere (a log, a pipe): a whole line every 5 s, and the last state when finished', () => {
      let now = 0;
      const written: string[] = [];
      const printer = new ProgressPrinter({ isTTY: false, write: (text) => written.push(text) }, { now: () => now });
      printer.update(step(100, 100));
      now = 4000;
      printer.update(step(400, 4000));
      now = 5000;
      printer.update(step(500, 5000));
      now = 6000;
      printer.update(step(600, 6000));
      printer.finish();
      expect(written).toEqual([step(100, 100), step(500, 5000), step(600, 6000)].map((progress) => `${formatRebuildProgress(progress)}\n`));
    });

    it('prints nothing when there was no progress at all', () => {
      const written: string[] = [];
      new ProgressPrinter({ isTTY: true, write: (text) => written.push(text) }).finish();
      expect(written).toEqual([]);
    });
  });
});
