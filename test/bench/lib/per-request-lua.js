'use strict';
/**
 * Lua appended to a wrk script (run.js writeLua({ perRequest: true })): it times every request with CLOCK_MONOTONIC
 * through LuaJIT's ffi (Debian's wrk links LuaJIT) and prints the list in µs after the run, on one line that starts
 * with PER_REQUEST_MARK; stats.parseWrk reads it. One connection per thread: request() and response() run in
 * order on the thread's only connection, so a single start time pairs them. `latencies` is a global so that done(),
 * which runs in the main Lua state, can copy it from each thread with thread:get().
 */
const { PER_REQUEST_MARK } = require('./stats');

const PER_REQUEST_LUA = `
local ffi = require("ffi")
ffi.cdef[[
typedef struct { long tv_sec; long tv_nsec; } tollgate_bench_timespec;
int clock_gettime(int clock_id, tollgate_bench_timespec *tp);
]]
local ts = ffi.new("tollgate_bench_timespec")
local function now_us()
  ffi.C.clock_gettime(1, ts) -- CLOCK_MONOTONIC
  return tonumber(ts.tv_sec) * 1000000 + tonumber(ts.tv_nsec) / 1000
end
local formatted, started
latencies = {}
init = function(args) formatted = wrk.format() end
request = function() started = now_us(); return formatted end
response = function(status, headers, body)
  if started then latencies[#latencies + 1] = now_us() - started; started = nil end
end
local threads = {}
setup = function(thread) threads[#threads + 1] = thread end
done = function(summary, latency, requests)
  local out = {}
  for _, thread in ipairs(threads) do
    local list = thread:get("latencies")
    for i = 1, #list do out[#out + 1] = string.format("%.1f", list[i]) end
  end
  io.write("${PER_REQUEST_MARK} " .. table.concat(out, ",") .. "\\n")
end`;

module.exports = { PER_REQUEST_LUA };
