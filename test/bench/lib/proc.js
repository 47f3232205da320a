'use strict';
/** Child processes of the benchmark: start, wait until ready, read CPU and RSS from /proc, stop by PID. */
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const http = require('node:http');
const path = require('node:path');
const { cpuTicksFromStat, rssMbFromStatus } = require('./stats');

const children = new Set();

let clockTicks;
/** Clock ticks per second of /proc/PID/stat (100 on Linux). */
function clkTck() {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** CPU time (user + system) of a process in microseconds; NaN when it is gone. */
function cpuMicros(pid) {
  try {
    return (cpuTicksFromStat(fs.readFileSync(`/proc/${pid}/stat`, 'utf8')) * 1e6) / clkTck();
  } catch {
    return NaN;
  }
}

/**
 * The main thread's scheduler times (`/proc/<pid>/task/<pid>/schedstat`), in µs: on a CPU, and runnable but waiting
 * for one. A sampling profiler takes its samples in wall time, so time spent waiting counts as busy, on whatever
 * frame the thread was preempted in; this tells how much of "busy" that was.
 */
function mainThreadSched(pid) {
  try {
    const [onCpuNs, waitingNs] = fs.readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').trim().split(/\s+/).map(Number);
    return { onCpuUs: onCpuNs / 1000, waitingUs: waitingNs / 1000 };
  } catch {
    return { onCpuUs: NaN, waitingUs: NaN };
  }
}

function rssMb(pid) {
  try {
    return rssMbFromStatus(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return NaN;
  }
}

/** A port that was free a moment ago on 127.0.0.1. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts a child with its output in `logFile`. `ready` is a regular expression awaited on stdout, or a function
 * polled until it resolves truthy. Rejects (and stops the child) when it exits first or the deadline passes.
 */
async function startService({ name, command, args, env, cwd, logFile, ready, timeoutMs = 60_000 }) {
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  const log = fs.createWriteStream(logFile);
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let out = '';
  let exited = null;
  child.stdout.on('data', (data) => {
    log.write(data);
    if (out.length < 65_536) out += data.toString();
  });
  child.stderr.on('data', (data) => log.write(data));
  child.on('exit', (code, signal) => {
    exited = { code, signal };
    children.delete(child);
    log.end();
  });
  const service = { name, pid: child.pid, child, logFile, match: null, stop: () => stopChild(child) };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exited) {
      throw new Error(`${name} exited (${exited.code ?? exited.signal}) before it was ready; see ${logFile}:\n${tail(logFile)}`);
    }
    if (Date.now() > deadline) {
      await service.stop();
      throw new Error(`${name} was not ready after ${timeoutMs / 1000} s; see ${logFile}:\n${tail(logFile)}`);
    }
    if (ready instanceof RegExp) {
      const match = ready.exec(out);
      if (match) {
        service.match = match;
        return service;
      }
    } else if (await ready().catch(() => false)) {
      return service;
    }
    await sleep(100);
  }
}

function tail(file, lines = 25) {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves when the child has exited. */
function stopChild(child, graceMs = 10_000) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Stops every child this process started (by its own PID), e.g. on Ctrl-C. */
async function stopAll() {
  await Promise.all([...children].map((child) => stopChild(child, 3000)));
}

/** Resolves true when GET url answers 2xx. */
function httpOk(url) {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false, timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode >= 200 && res.statusCode < 300);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
  });
}

/** Resolves true when something accepts TCP connections on 127.0.0.1:port. */
function portOpen(port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Runs a command to completion; resolves { code, stdout, stderr }. */
function run(command, args, { cwd, env, input } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code) => {
      children.delete(child);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(input ?? '');
  });
}

/**
 * Sets the CPU affinity of every thread of `pid` to `cpus` (a taskset list: "0", "0-1"), with util-linux's taskset.
 * Used by --one-cpu-loop; throws with the command's own message when taskset is missing or refuses.
 */
function pinProcess(pid, cpus) {
  // taskset -a walks /proc/<pid>/task and says nothing (exit 0) when there is none: a gone process is an error here.
  if (!fs.existsSync(`/proc/${pid}/task`)) throw new Error(`could not set the CPUs of pid ${pid} to ${cpus}: no such process`);
  try {
    execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    const why =
      error.code === 'ENOENT'
        ? 'taskset is not installed (Debian: apt-get install util-linux)'
        : String(error.stderr || error.message).trim();
    throw new Error(`could not set the CPUs of pid ${pid} to ${cpus}: ${why}`);
  }
}

/** The CPUs `pid` may run on now (its main thread's Cpus_allowed_list), to give them back after pinProcess. */
function cpusOf(pid) {
  const match = /^Cpus_allowed_list:\s*(\S+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no Cpus_allowed_list in /proc/${pid}/status`);
  return match[1];
}

module.exports = {
  pinProcess,
  cpusOf,
  clkTck,
  cpuMicros,
  mainThreadSched,
  rssMb,
  freePort,
  sleep,
  startService,
  stopAll,
  httpOk,
  portOpen,
  run,
  tail,
};
