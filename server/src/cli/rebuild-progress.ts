import type { RebuildProgressReport } from '#projections/runner/projection-rebuild';

/** What a rebuild reports while it replays: events done, the total (head at the start), time since the start. */
export type RebuildProgress = RebuildProgressReport;

const BAR_WIDTH = 30;

/** 1234567 → "1,234,567" (grouping fixed, whatever the locale). */
export function groupDigits(value: number): string {
  return Math.round(value)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** Seconds as "m:ss", or "h:mm:ss" from an hour on; "-:--" when unknown. */
export function formatDuration(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds) || seconds < 0) return '-:--';
  const whole = Math.round(seconds);
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const rest = String(whole % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${rest}` : `${minutes}:${rest}`;
}

/**
 * One progress line: a bar, the share done, events done/total, the rate since the start and the time left at that
 * rate, e.g. `[#########.....................]  31%  312,000/1,000,000 events  52,000 ev/s  0:13 left`.
 * Before anything is replayed (or the clock has not moved) rate and time left are unknown. More done than total
 * (events appended during the rebuild) shows a full bar and nothing left.
 */
export function formatRebuildProgress(progress: RebuildProgress): string {
  const { done, total, elapsedMs } = progress;
  const fraction = total > 0 ? Math.min(1, done / total) : 1;
  const filled = Math.floor(fraction * BAR_WIDTH);
  const bar = `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}]`;
  const percent = `${String(Math.floor(fraction * 100)).padStart(3)}%`;
  const rate = done > 0 && elapsedMs > 0 ? (done * 1000) / elapsedMs : null;
  const left = fraction >= 1 ? 0 : rate ? (total - done) / rate : null;
  const rateText = rate === null ? '- ev/s' : `${groupDigits(rate)} ev/s`;
  return `${bar} ${percent}  ${groupDigits(done)}/${groupDigits(total)} events  ${rateText}  ${formatDuration(left)} left`;
}

export interface ProgressOutput {
  /** A terminal: the line is redrawn in place. */
  isTTY?: boolean;
  write(text: string): void;
}

/**
 * Prints progress lines: on a terminal one line redrawn at most every `ttyIntervalMs`; elsewhere (a log, a pipe) a
 * new line every `lineIntervalMs`. `finish()` prints the last state (on a terminal, ends the line).
 */
export class ProgressPrinter {
  private last = -Infinity;
  private drawn = false;
  private latest: RebuildProgress | null = null;

  constructor(
    private readonly output: ProgressOutput,
    private readonly options: { ttyIntervalMs?: number; lineIntervalMs?: number; now?: () => number } = {},
  ) {}

  update(progress: RebuildProgress): void {
    this.latest = progress;
    const now = (this.options.now ?? Date.now)();
    const interval = this.output.isTTY ? (this.options.ttyIntervalMs ?? 200) : (this.options.lineIntervalMs ?? 5000);
    if (now - this.last < interval) return;
    this.last = now;
    this.print(progress);
  }

  finish(): void {
    if (this.latest) this.print(this.latest);
    if (this.output.isTTY && this.drawn) this.output.write('\n');
  }

  private print(progress: RebuildProgress): void {
    const line = formatRebuildProgress(progress);
    if (this.output.isTTY) {
      this.output.write(`\r\x1b[2K${line}`);
      this.drawn = true;
    } else this.output.write(`${line}\n`);
  }
}
