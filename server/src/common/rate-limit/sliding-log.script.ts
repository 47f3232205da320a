/**
 * new-api's sliding-log limiter as one Lua script, so that the check and the append are atomic across every
 * api replica sharing the Redis.
 *
 * The key holds the timestamps (ms) of the last `limit` accepted requests, newest first. A request is
 * accepted while fewer than `limit` are stored, or when the oldest stored one is at least `window` old (it
 * is then dropped). A rejected request is not recorded, so hammering does not extend the lock-out.
 *
 * KEYS[1] the bucket key
 * ARGV[1] limit, ARGV[2] window in ms, ARGV[3] idle expiry in seconds,
 * ARGV[4] now in ms, or "" to use the Redis server clock (one clock for all replicas)
 * Returns 1 when accepted, 0 when rejected.
 */
export const SLIDING_LOG_SCRIPT = `
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local idle = tonumber(ARGV[3])
local now = tonumber(ARGV[4])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
local length = redis.call('LLEN', key)
if length >= limit then
  local oldest = tonumber(redis.call('LINDEX', key, -1))
  if oldest and now - oldest < window then
    return 0
  end
end
redis.call('LPUSH', key, now)
redis.call('LTRIM', key, 0, limit - 1)
redis.call('EXPIRE', key, idle)
return 1
`;
