'use strict';
/** Pure helpers: percentiles, medians, wrk output, /proc readings. Covered by stats.test.js (node --test). */

/** Nearest-rank percentile of numbers (sorted or not); NaN for an empty list. */
function percentile(values, p) {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

/** Median of the finite numbers; NaN when there is none. */
function median(values) {
  const finite = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (!finite.length) return NaN;
  const mid = finite.length >> 1;
  return finite.length % 2 ? finite[mid] : (finite[mid - 1] + finite[mid]) / 2;
}

const UNIT_MS = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** "1.21ms" / "845.00us" / "1.02s" → milliseconds. */
function durationMs(text) {
  const match = /^([\d.]+)(us|ms|s|m|h)$/.exec(String(text).trim());
  if (!match) throw new Error(`not a wrk duration: ${text}`);
  return Number(match[1]) * UNIT_MS[match[2]];
}

/** The line the per-request wrk script prints at the end, before the comma-separated latencies in µs. */
const PER_REQUEST_MARK = 'per-request latency us:';

/**
 * Reads `wrk --latency` output: completed requests, duration, RPS, p50/p90/p99 (ms), non-2xx count and socket
 * errors. Throws when the output has no summary (wrk failed), so a broken run never looks like a slow one.
 *
 * wrk 4.1 corrects its percentiles for coordinated omission: after the run, every latency of at least twice the
 * mean interval between requests adds made-up samples at that latency minus one, two, ... intervals. When the
 * output holds the per-request line of the per-request script (PER_REQUEST_MARK), p50/p90/p99 are the nearest-rank
 * percentiles of those measured latencies, `perRequest` is their count, and wrk's corrected figures stay in
 * wrkP50/wrkP90/wrkP99; otherwise p50/p90/p99 are wrk's.
 */
function parseWrk(text) {
  const done = /(\d+) requests in ([\d.]+)(us|ms|s|m)/.exec(text);
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(text);
  if (!done || !rps) throw new Error(`wrk printed no summary:\n${text.trim()}`);
  const pct = (p) => {
    const m = new RegExp(`^\\s*${p}%\\s+(\\S+)`, 'm').exec(text);
    return m ? durationMs(m[1]) : NaN;
  };
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(text);
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  const wrkPercentiles = { p50: pct(50), p90: pct(90), p99: pct(99) };
  const measured = perRequestLatenciesMs(text);
  return {
    requests: Number(done[1]),
    seconds: durationMs(`${done[2]}${done[3]}`) / 1000,
    rps: Number(rps[1]),
    ...(measured
      ? {
          p50: percentile(measured, 50),
          p90: percentile(measured, 90),
          p99: percentile(measured, 99),
          perRequest: measured.length,
          wrkP50: wrkPercentiles.p50,
          wrkP90: wrkPercentiles.p90,
          wrkP99: wrkPercentiles.p99,
        }
      : wrkPercentiles),
    non2xx: non2xx ? Number(non2xx[1]) : 0,
    socketErrors: sock ? sock.slice(1, 5).reduce((sum, n) => sum + Number(n), 0) : 0,
  };
}

/** The latencies (ms) of the per-request line, or null when there is none; a line without a number is an error. */
function perRequestLatenciesMs(text) {
  const at = text.indexOf(PER_REQUEST_MARK);
  if (at < 0) return null;
  const end = text.indexOf('\n', at);
  const list = text.slice(at + PER_REQUEST_MARK.length, end < 0 ? undefined : end).trim();
  const values = list ? list.split(',').map((us) => Number(us) / 1000) : [];
  if (!values.length || values.some((v) => !Number.isFinite(v) || v < 0)) {
    throw new Error(`wrk's per-request line holds no latencies: ${list.slice(0, 80)}`);
  }
  return values;
}

/** utime + stime (clock ticks) from the text of /proc/PID/stat; the command name may hold spaces and parentheses. */
function cpuTicksFromStat(statText) {
  const fields = statText.slice(statText.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state); utime and stime are fields 14 and 15.
  return Number(fields[11]) + Number(fields[12]);
}

/** VmRSS in MB from the text of /proc/PID/status. */
function rssMbFromStatus(statusText) {
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(statusText);
  return match ? Number(match[1]) / 1024 : NaN;
}

module.exports = { percentile, median, durationMs, parseWrk, PER_REQUEST_MARK, cpuTicksFromStat, rssMbFromStatus };
