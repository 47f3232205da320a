'use strict';
/** Medians over rounds, the result table, the ratios and the PASS/MISS lines against the relay's targets. */
const { median } = require('./stats');

/** The targets set for the relay's performance (docs/benchmark.md lists them). */
const TARGETS = {
  cpuUsPerRequest: 150,
  rpsVsPortkey: 5,
  addedP50Ms: 0.3,
  addedP99Ms: 1,
  addedTtfbMs: 1,
  streamRssGrowthMb: 150,
  /** "Back to baseline": RSS after the settle period at most this far above the RSS before. */
  streamRssBackWithinMb: 20,
};

const fmt = (value, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : '-');
const fmtInt = (value) => (Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '-');

function pick(rounds, field) {
  return rounds.map((round) => round[field]);
}

/**
 * results: { [target]: { sat: [round…], seq: [round…], ttfb: [round…] } }, rounds aligned by index across
 * targets. Added latency is computed per round against direct's figure of the same round, then the median taken.
 */
function summarize(results) {
  const direct = results.direct;
  const summary = {};
  for (const [target, phases] of Object.entries(results)) {
    const sat = phases.sat ?? [];
    const seq = phases.seq ?? [];
    const ttfb = phases.ttfb ?? [];
    const addedBy = (mine, theirs, field) => mine.map((round, i) => (theirs && theirs[i] ? round[field] - theirs[i][field] : NaN));
    summary[target] = {
      rps: median(pick(sat, 'rps')),
      satP50: median(pick(sat, 'p50')),
      satP99: median(pick(sat, 'p99')),
      cpuUs: median(pick(sat, 'cpuUs')),
      storeUs: median(pick(sat, 'storeUs')),
      projectorUs: median(pick(sat, 'projectorUs')),
      seqP50: median(pick(seq, 'p50')),
      seqP99: median(pick(seq, 'p99')),
      seqCpuUs: median(pick(seq, 'cpuUs')),
      addedP50: target === 'direct' ? NaN : median(addedBy(seq, direct?.seq, 'p50')),
      addedP99: target === 'direct' ? NaN : median(addedBy(seq, direct?.seq, 'p99')),
      // wrk's own c=1 p99, corrected for coordinated omission (made-up samples); shown beside, never judged.
      seqWrkP99: median(pick(seq, 'wrkP99')),
      addedWrkP99: target === 'direct' ? NaN : median(addedBy(seq, direct?.seq, 'wrkP99')),
      // --one-cpu-loop: the same c=1 phase with the closed loop on one CPU; shown beside, never judged.
      oneCpuP50: median(pick(phases.seq1 ?? [], 'p50')),
      oneCpuP99: median(pick(phases.seq1 ?? [], 'p99')),
      oneCpuAddedP50: target === 'direct' ? NaN : median(addedBy(phases.seq1 ?? [], direct?.seq1, 'p50')),
      oneCpuAddedP99: target === 'direct' ? NaN : median(addedBy(phases.seq1 ?? [], direct?.seq1, 'p99')),
      ttfbP50: median(pick(ttfb, 'ttfbP50')),
      ttfbP99: median(pick(ttfb, 'ttfbP99')),
      addedTtfbP50: target === 'direct' ? NaN : median(addedBy(ttfb, direct?.ttfb, 'ttfbP50')),
      addedTtfbP99: target === 'direct' ? NaN : median(addedBy(ttfb, direct?.ttfb, 'ttfbP99')),
      errors:
        sat.concat(seq).reduce((sum, r) => sum + (r.non2xx ?? 0) + (r.socketErrors ?? 0), 0) +
        ttfb.reduce((sum, r) => sum + (r.errors ?? 0), 0),
      rounds: Math.max(sat.length, seq.length, ttfb.length),
    };
  }
  return summary;
}

function table(headers, rows) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((row) => String(row[i]).length)));
  const line = (cells) => cells.map((cell, i) => (i === 0 ? String(cell).padEnd(widths[i]) : String(cell).padStart(widths[i]))).join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

function resultTable(summary) {
  const headers = [
    'target',
    'RPS c=50',
    'p50 ms',
    'p99 ms',
    'CPU us/req',
    'Proj us/req',
    'PG us/req',
    'c=1 p50',
    'c=1 p99',
    '+p50 ms',
    '+p99 ms',
    'TTFB p50',
    'TTFB p99',
    '+TTFB p50',
    '+TTFB p99',
    'errors',
  ];
  const rows = Object.entries(summary).map(([target, s]) => [
    target,
    fmtInt(s.rps),
    fmt(s.satP50),
    fmt(s.satP99),
    target === 'direct' ? '-' : fmtInt(s.cpuUs),
    fmtInt(s.projectorUs),
    fmtInt(s.storeUs),
    fmt(s.seqP50, 3),
    fmt(s.seqP99, 3),
    fmt(s.addedP50, 3),
    fmt(s.addedP99, 3),
    fmt(s.ttfbP50, 3),
    fmt(s.ttfbP99, 3),
    fmt(s.addedTtfbP50, 3),
    fmt(s.addedTtfbP99, 3),
    String(s.errors),
  ]);
  return table(headers, rows);
}

function ratio(a, b) {
  return Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? a / b : NaN;
}

function ratioLines(summary) {
  const t = summary.tollgate;
  if (!t) return ['(no Tollgate figures: no ratios)'];
  const lines = [];
  if (summary.portkey) {
    lines.push(
      `Tollgate/Portkey: RPS ${fmt(ratio(t.rps, summary.portkey.rps))}x, CPU per request ${fmt(ratio(t.cpuUs, summary.portkey.cpuUs))}x, added c=1 p50 ${fmt(ratio(t.addedP50, summary.portkey.addedP50))}x`,
    );
  }
  if (summary.direct)
    lines.push(`Tollgate/direct:  RPS ${fmt(ratio(t.rps, summary.direct.rps))}x, c=1 p50 ${fmt(ratio(t.seqP50, summary.direct.seqP50))}x`);
  return lines;
}

/**
 * The c=1 columns are percentiles of the requests wrk made, each timed; this line gives wrk's own c=1 p99 beside
 * them, which adds made-up samples for every slow request (coordinated-omission correction). Empty without them.
 */
function wrkCorrectedLine(summary) {
  const parts = Object.entries(summary)
    .filter(([, s]) => Number.isFinite(s.seqWrkP99))
    .map(([target, s]) => `${target} ${fmt(s.seqWrkP99, 3)}${Number.isFinite(s.addedWrkP99) ? ` (+${fmt(s.addedWrkP99, 3)})` : ''}`);
  return parts.length
    ? [`wrk's own c=1 p99, corrected for coordinated omission (made-up samples; not judged): ${parts.join(', ')} ms`]
    : [];
}

const verdict = (ok) => (ok === undefined ? 'n/a ' : ok ? 'PASS' : 'MISS');

/** [{ name, target, measured, ok }] for the non-streaming targets; ok undefined when a figure is missing. */
function checkTargets(summary) {
  const t = summary.tollgate;
  const p = summary.portkey;
  const known = (value) => Number.isFinite(value);
  const check = (value, good) => (known(value) ? good(value) : undefined);
  const rpsRatio = t && p ? ratio(t.rps, p.rps) : NaN;
  return [
    {
      name: 'CPU per non-streaming request',
      target: `<= ${TARGETS.cpuUsPerRequest} us`,
      measured: `${fmtInt(t?.cpuUs)} us`,
      ok: check(t?.cpuUs, (v) => v <= TARGETS.cpuUsPerRequest),
    },
    {
      name: 'RPS vs Portkey (c=50)',
      target: `>= ${TARGETS.rpsVsPortkey}x`,
      measured: `${fmt(rpsRatio)}x`,
      ok: check(rpsRatio, (v) => v >= TARGETS.rpsVsPortkey),
    },
    {
      name: 'added p50 at c=1',
      target: `<= ${TARGETS.addedP50Ms} ms`,
      measured: `${fmt(t?.addedP50, 3)} ms`,
      ok: check(t?.addedP50, (v) => v <= TARGETS.addedP50Ms),
    },
    {
      name: 'added p99 at c=1',
      target: `<= ${TARGETS.addedP99Ms} ms`,
      measured: `${fmt(t?.addedP99, 3)} ms`,
      ok: check(t?.addedP99, (v) => v <= TARGETS.addedP99Ms),
    },
    {
      name: 'added stream TTFB (p50, c=1)',
      target: `<= ${TARGETS.addedTtfbMs} ms`,
      measured: `${fmt(t?.addedTtfbP50, 3)} ms`,
      ok: check(t?.addedTtfbP50, (v) => v <= TARGETS.addedTtfbMs),
    },
  ];
}

/**
 * Verdicts of the slow-stream mode from RSS before, at the peak during, and after the settle period (MB). The
 * growth is only judged when all `count` streams were open at once (had their first byte): a gateway that queues
 * streams behind a small upstream pool would otherwise pass by holding fewer.
 */
function checkStreamTargets({ before, peak, after, failed, count, maxOpen }) {
  const growth = peak - before;
  const back = after - before;
  const allOpen = maxOpen >= count;
  return [
    {
      name: 'streams open at once',
      target: `${count.toLocaleString('en-US')}`,
      measured: `${maxOpen.toLocaleString('en-US')}`,
      ok: allOpen,
    },
    {
      name: `RSS growth, ${count.toLocaleString('en-US')} streams`,
      target: `<= ${TARGETS.streamRssGrowthMb} MB`,
      measured: `${fmt(growth, 1)} MB${allOpen ? '' : ` (only ${maxOpen} were open at once: not judged)`}`,
      ok: Number.isFinite(growth) && allOpen ? growth <= TARGETS.streamRssGrowthMb : undefined,
    },
    {
      name: 'RSS back to baseline after',
      target: `<= +${TARGETS.streamRssBackWithinMb} MB`,
      measured: `${fmt(back, 1)} MB`,
      ok: Number.isFinite(back) ? back <= TARGETS.streamRssBackWithinMb : undefined,
    },
    { name: 'streams completed', target: 'all', measured: failed ? `${failed} failed` : 'all', ok: failed === 0 },
  ];
}

function targetLines(checks) {
  return checks.map((c) => `  ${verdict(c.ok)}  ${c.name.padEnd(32)} target ${c.target.padEnd(10)} measured ${c.measured}`);
}

/**
 * The c=1 figures of --one-cpu-loop (wrk, the fake upstream and the target's process on CPU 0; Postgres, Redis and
 * the projector free): what the requests take when the loop's hops never cross CPUs. Never judged: the targets are
 * judged on the c=1 phase as deployed (docs/benchmark.md, "The c=1 tail is the scheduler's").
 */
function oneCpuLoopLines(summary) {
  const parts = Object.entries(summary)
    .filter(([, s]) => Number.isFinite(s.oneCpuP99))
    .map(
      ([target, s]) =>
        `${target} ${fmt(s.oneCpuP50, 3)} / ${fmt(s.oneCpuP99, 3)}${Number.isFinite(s.oneCpuAddedP99) ? ` (+${fmt(s.oneCpuAddedP50, 3)} / +${fmt(s.oneCpuAddedP99, 3)})` : ''}`,
    );
  return parts.length ? [`c=1 with the loop on CPU 0 (--one-cpu-loop; p50 / p99 ms, +added; not judged): ${parts.join(', ')}`] : [];
}

/**
 * The CPU split of a target made of several processes (the `npmstart` target: the supervisor's api, worker and
 * projector children and the supervisor itself): per process, the median over rounds of its µs per request, for
 * the saturation phase and the c=1 phase. `childUs` of a round is `{ role: µs per request }` (run.js loadPhase).
 * One line per target that has the split; none when no target has it.
 */
function childSplitLines(results) {
  const lines = [];
  for (const [target, phases] of Object.entries(results)) {
    const parts = [];
    for (const phase of ['sat', 'seq']) {
      const rounds = (phases[phase] ?? []).filter((r) => r.childUs);
      if (rounds.length === 0) continue;
      const roles = [...new Set(rounds.flatMap((r) => Object.keys(r.childUs)))];
      const medians = roles.map((role) => [role, median(rounds.map((r) => r.childUs[role]).filter(Number.isFinite))]);
      const total = medians.reduce((sum, [, us]) => sum + (Number.isFinite(us) ? us : 0), 0);
      parts.push(
        `${phase === 'sat' ? 'c=50' : 'c=1'} ${medians.map(([role, us]) => `${role} ${fmtInt(us)}`).join(', ')} (sum of medians ${fmtInt(total)})`,
      );
    }
    if (parts.length) lines.push(`${target} CPU us/req by process (medians over rounds): ${parts.join('; ')}`);
  }
  return lines;
}

module.exports = {
  TARGETS,
  childSplitLines,
  summarize,
  resultTable,
  ratioLines,
  wrkCorrectedLine,
  oneCpuLoopLines,
  checkTargets,
  checkStreamTargets,
  targetLines,
  table,
  fmt,
  fmtInt,
};
