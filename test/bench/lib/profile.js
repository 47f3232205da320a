'use strict';
/** Reads a V8 `.cpuprofile` (node --cpu-prof) and ranks self time by function and by part of the stack. */
const fs = require('node:fs');

/** Which part of the system a frame belongs to: a package, Node's internals, our own folders, or V8's pseudo-frames. */
function category(url, functionName) {
  if (!url) {
    if (functionName === '(garbage collector)') return 'GC';
    if (functionName === '(idle)') return 'idle';
    if (functionName === '(program)') return 'V8/native (program)';
    return 'native';
  }
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  if (url.startsWith('node:')) {
    const inner = /^node:(?:internal\/)?([^/]+)/.exec(url);
    return `node:${inner ? inner[1] : url}`;
  }
  const own = /\/(server\/src\/[^/]+(?:\/[^/]+)?|projections\/src\/[^/]+(?:\/[^/]+)?)\//.exec(url);
  if (own) return own[1];
  return url.replace(/^file:\/\//, '');
}

/**
 * Self time per function and per category, in ms. When `window` ({ fromUs, toUs } on the monotonic clock, the
 * clock of `process.hrtime`) is given and holds samples, only samples inside it count.
 */
function summarizeProfile(profile, window) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfById = new Map();
  let t = profile.startTime;
  let counted = 0;
  const addAll = (restrict) => {
    selfById.clear();
    counted = 0;
    t = profile.startTime;
    for (let i = 0; i < profile.samples.length; i++) {
      const delta = profile.timeDeltas[i] ?? 0;
      t += delta;
      if (restrict && (t < window.fromUs || t > window.toUs)) continue;
      selfById.set(profile.samples[i], (selfById.get(profile.samples[i]) ?? 0) + delta);
      counted += 1;
    }
  };
  addAll(Boolean(window));
  const windowed = Boolean(window) && counted > 0;
  if (window && !counted) addAll(false);

  // Innermost frame of our own code (server/src, projections/src) on each node's stack: "who asked for this work".
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  // Without one (work resumed from a callback: a pg queue flush, a timer), the innermost package frame instead.
  const isOwn = (cat) => /^(server|projections)\/src\//.test(cat);
  const isPackage = (cat, url) => /node_modules\//.test(url ?? '') && !isOwn(cat);
  const memo = new Map();
  const innermost = (id, test) => {
    const key = `${test.name}:${id}`;
    if (memo.has(key)) return memo.get(key);
    const frame = nodes.get(id)?.callFrame;
    const cat = frame ? category(frame.url, frame.functionName) : '';
    const result = frame && test(cat, frame.url) ? cat : parent.has(id) ? innermost(parent.get(id), test) : null;
    memo.set(key, result);
    return result;
  };
  const owner = (id) => {
    const own = innermost(id, isOwn);
    if (own) return own;
    const pkg = innermost(id, isPackage);
    return pkg ? `${pkg} (no Tollgate frame)` : '(runtime only)';
  };
  const byOwner = new Map();

  const byFunction = new Map();
  const byCategory = new Map();
  let busyUs = 0;
  let idleUs = 0;
  for (const [id, us] of selfById) {
    const frame = nodes.get(id)?.callFrame ?? { functionName: '?', url: '', lineNumber: -1 };
    const cat = category(frame.url, frame.functionName);
    if (cat === 'idle') {
      idleUs += us;
      continue;
    }
    busyUs += us;
    const where = frame.url
      ? `${frame.url.replace(/^file:\/\//, '').replace(/^.*?\/(node_modules|server\/src|projections\/src)\//, '$1/')}:${frame.lineNumber + 1}`
      : '';
    const key = `${frame.functionName || '(anonymous)'}\u0000${where}`;
    const entry = byFunction.get(key) ?? { name: frame.functionName || '(anonymous)', where, category: cat, us: 0 };
    entry.us += us;
    byFunction.set(key, entry);
    byCategory.set(cat, (byCategory.get(cat) ?? 0) + us);
    const who = owner(id);
    byOwner.set(who, (byOwner.get(who) ?? 0) + us);
  }
  const rank = (entries) => entries.sort((a, b) => b.us - a.us).map((e) => ({ ...e, share: busyUs ? e.us / busyUs : 0 }));
  return {
    windowed,
    busyMs: busyUs / 1000,
    idleMs: idleUs / 1000,
    functions: rank([...byFunction.values()]),
    categories: rank([...byCategory.entries()].map(([name, us]) => ({ name, us }))),
    owners: rank([...byOwner.entries()].map(([name, us]) => ({ name, us }))),
  };
}

function readProfile(file) {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

module.exports = { category, summarizeProfile, readProfile };
