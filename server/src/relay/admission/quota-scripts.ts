/**
 * Redis Lua for quota admission. All keys of one call share the hash tag `{u:<userId>}` so they live in one
 * slot (Redis Cluster) and one script sees them atomically.
 *
 * Per balance (the account, and a limited token):
 *   <bal>      hash  base = balance from the projection, pos = projection checkpoint that base is valid at,
 *                    held = Σ amounts of the settled entries (kept by every script that adds or prunes one)
 *   <settled>  zset  member "<requestId>:<amount>", score = ledger position of the request's QuotaConsumed event
 *                    (or, for an expired lease, the head position when it expired: see expire())
 *   <resv>     hash  requestId -> reserved amount, for requests in flight
 * available = base − held − Σ reservations.
 * Settled entries at or below pos are already inside base: SET_BASE prunes them (and takes them out of held) when
 * pos moves, and nothing adds one, so every entry of the set is above pos and counts.
 *
 * `held` is what keeps admission's cost flat: the settled set grows by a charge per request for as long as the
 * projector is behind (34,000 entries after 18 s of saturation in the benchmark, the projector starved of CPU), and
 * summing it on every RESERVE and GROW made each one 30–35 ms of Redis time, so latency went to seconds and throughput
 * fell by half (docs/benchmark.md, 2026-11-26). Now a script reads one field; adding an entry and pruning one each
 * cost O(1) per entry, once. A hash without the field (written before it existed) gets it from the set, once.
 */

/**
 * The settled side of a base, shared by every script that reads or writes it: `held` (the field, computed from the set
 * where it is missing), `addSettled` (entries in, each new one's amount into held) and `each` (a variadic command in
 * chunks, well below Lua's stack limit for `unpack`).
 */
const HELD = `
local CHUNK = 500
local function each(cmd, key, list, width)
  for first = 1, #list, CHUNK * width do
    redis.call(cmd, key, unpack(list, first, math.min(first + CHUNK * width - 1, #list)))
  end
end
local function amountOf(member) return tonumber(string.match(member, ':(%-?%d+)$')) end
local function held(bal, settled)
  local stored = redis.call('HGET', bal, 'held')
  if stored then return tonumber(stored) end
  local pos = redis.call('HGET', bal, 'pos')
  if pos then redis.call('ZREMRANGEBYSCORE', settled, '-inf', pos) end
  local total = 0
  for _, member in ipairs(redis.call('ZRANGE', settled, 0, -1)) do total = total + amountOf(member) end
  redis.call('HSET', bal, 'held', total)
  return total
end
-- entries: score, member, score, member … (every score above the base's pos). A member already in the set (a charge
-- shipped again) only has its score updated, as ZADD does; its amount is in held already.
local function addSettled(bal, settled, entries)
  if #entries == 0 then return end
  local total = held(bal, settled)
  local members, seen = {}, {}
  for i = 2, #entries, 2 do members[#members + 1] = entries[i] end
  for first = 1, #members, CHUNK do
    local last = math.min(first + CHUNK - 1, #members)
    local scores = redis.call('ZMSCORE', settled, unpack(members, first, last))
    for i = first, last do
      local member = members[i]
      if not scores[i - first + 1] and not seen[member] then
        seen[member] = true
        total = total + amountOf(member)
      end
    end
  end
  each('ZADD', settled, entries, 2)
  redis.call('HSET', bal, 'held', total)
end
`;

const AVAILABLE = `${HELD}
local function available(bal, settled, resv)
  local base = redis.call('HGET', bal, 'base')
  if not base then return nil end
  local total = tonumber(base) - held(bal, settled)
  for _, amount in ipairs(redis.call('HVALS', resv)) do
    total = total - tonumber(amount)
  end
  return total
end
-- RESERVE's and GROW's one admission check (KEYS as RESERVE): nil and the two availabilities when \`amount\` fits
-- both, else the script's answer: {0, -1|-2, 0} a balance is not loaded, {2, …} user or {3, …} token insufficient.
local function check(amount, withToken)
  local user = available(KEYS[1], KEYS[2], KEYS[3])
  if user == nil then return {0, -1, 0} end
  local token = 0
  if withToken then
    token = available(KEYS[5], KEYS[6], KEYS[7])
    if token == nil then return {0, -2, 0} end
  end
  if user < amount or user <= 0 then return {2, user, token} end
  if withToken and (token < amount or token <= 0) then return {3, user, token} end
  return nil, user, token
end
`;

/**
 * KEYS: acctBal, acctSettled, acctResv, leases, tokBal, tokSettled, tokResv, userTokens
 * ARGV: requestId, amount, leaseExpiresAtMs, withToken (1|0), tokenId
 * Returns {status, userAvailable, tokenAvailable}: status 1 reserved (or already reserved: idempotent),
 * 0 a balance is not loaded (ARGV says which: -1 user, -2 token), 2 user insufficient, 3 token insufficient.
 */
export const RESERVE = `${AVAILABLE}
local requestId, amount, expires, withToken = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4] == '1'
if redis.call('HEXISTS', KEYS[3], requestId) == 1 then return {1, 0, 0} end
local refused, user, token = check(amount, withToken)
if refused then return refused end
redis.call('HSET', KEYS[3], requestId, amount)
if withToken then
  redis.call('HSET', KEYS[7], requestId, amount)
  redis.call('SADD', KEYS[8], ARGV[5])
end
redis.call('ZADD', KEYS[4], expires, requestId)
return {1, user - amount, token - amount}
`;

/**
 * Grows (or creates) a quota block: a reservation that one process admits many requests from locally, with no
 * Redis round trip per request (see QuotaBlocks). Same availability check as RESERVE; the block's amount is
 * increased by `extra` only if both the user and the token have that much available.
 * KEYS: as RESERVE   ARGV: blockId, extra, leaseExpiresAtMs, withToken (1|0), tokenId
 * Returns {status, userAvailable, tokenAvailable} with status 1 grown, 0 a balance is not loaded, 2/3 insufficient.
 */
export const GROW = `${AVAILABLE}
local blockId, extra, expires, withToken = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4] == '1'
local refused, user, token = check(extra, withToken)
if refused then return refused end
redis.call('HINCRBY', KEYS[3], blockId, extra)
if withToken then
  redis.call('HINCRBY', KEYS[7], blockId, extra)
  redis.call('SADD', KEYS[8], ARGV[5])
end
redis.call('ZADD', KEYS[4], expires, blockId)
return {1, user - extra, token - extra}
`;

/**
 * Gives back part of a quota block (unused capacity: the block drains, is idle, or the process stops). Relative, so
 * it commutes with grows and settlements in flight; the block's reservation (and lease) goes when nothing is left.
 * KEYS: acctResv, leases, tokResv   ARGV: blockId, amount, withToken (1|0)
 */
export const SHRINK = `
local function shrink(resv)
  local left = tonumber(redis.call('HGET', resv, ARGV[1]) or '0') - tonumber(ARGV[2])
  if left > 0 then redis.call('HSET', resv, ARGV[1], left) return left end
  redis.call('HDEL', resv, ARGV[1])
  return 0
end
local left = shrink(KEYS[1])
if ARGV[3] == '1' then shrink(KEYS[3]) end
if left == 0 then redis.call('ZREM', KEYS[2], ARGV[1]) end
return left
`;

/**
 * The request's QuotaConsumed event is durable at ARGV[3]: its amount moves from the reservation to the settled
 * set (unless the base already includes that position).
 * KEYS: acctBal, acctSettled, acctResv, leases, tokBal, tokSettled, tokResv   ARGV: requestId, amount, position, withToken
 */
export const SETTLE = `${HELD}
local requestId, amount, position, withToken = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4] == '1'
local function settle(bal, settled, resv)
  redis.call('HDEL', resv, requestId)
  local pos = tonumber(redis.call('HGET', bal, 'pos') or '-1')
  if position > pos and amount ~= '0' then
    addSettled(bal, settled, {position, requestId .. ':' .. amount})
  end
end
settle(KEYS[1], KEYS[2], KEYS[3])
if withToken then settle(KEYS[5], KEYS[6], KEYS[7]) end
redis.call('ZREM', KEYS[4], requestId)
return 1
`;

/**
 * Several charges of one user (and one reserved token, or none) are in the ledger: each one's amount leaves the
 * reservation that admitted it and enters the settled set at its event's position (unless the base already
 * includes that position). A reservation of the request alone is removed with its lease; a quota block's
 * reservation shrinks by the charge (and goes when nothing is left of it). Idempotent per request: the settled
 * member is "<requestId>:<amount>", and a request reservation that is gone is not touched again; a block share is
 * applied once because each charge is shipped once per process (a recovery after a crash ships charges whose
 * block died with the process: the block's reservation is gone or expired, and only the settled entry is added).
 * KEYS: acctBal, acctSettled, acctResv, leases, tokBal, tokSettled, tokResv
 * ARGV: withToken (1|0), then per charge: reservationId, requestId, amount, position, kind ('r' request | 'b' block)
 *
 * Its cost is per call, not per charge, where it can be: each base's `pos` is read once, a block shrinks once by the
 * sum of its charges, and the deletions and settled entries go in a few variadic commands (in chunks, well below
 * Lua's stack limit for `unpack`). A batch of ~40 charges of one user was 8 commands a charge, now ~4 in all.
 */
export const SETTLE_MANY = `${HELD}
local withToken = ARGV[1] == '1'
local function basePos(bal) return tonumber(redis.call('HGET', bal, 'pos') or '-1') end
local function shrink(resv, reservationId, amount)
  local left = tonumber(redis.call('HGET', resv, reservationId) or '0') - amount
  if left > 0 then redis.call('HSET', resv, reservationId, left) else redis.call('HDEL', resv, reservationId) end
end
local userPos = basePos(KEYS[1])
local tokenPos = withToken and basePos(KEYS[5]) or 0
local blocks, blockOrder, requests, userSettled, tokenSettled = {}, {}, {}, {}, {}
for i = 2, #ARGV, 5 do
  local reservationId, requestId, amount, position, kind = ARGV[i], ARGV[i + 1], ARGV[i + 2], tonumber(ARGV[i + 3]), ARGV[i + 4]
  if kind == 'b' then
    if blocks[reservationId] == nil then
      blocks[reservationId] = 0
      blockOrder[#blockOrder + 1] = reservationId
    end
    blocks[reservationId] = blocks[reservationId] + tonumber(amount)
  else
    requests[#requests + 1] = reservationId
  end
  if amount ~= '0' then
    local member = requestId .. ':' .. amount
    if position > userPos then
      userSettled[#userSettled + 1] = position
      userSettled[#userSettled + 1] = member
    end
    if withToken and position > tokenPos then
      tokenSettled[#tokenSettled + 1] = position
      tokenSettled[#tokenSettled + 1] = member
    end
  end
end
for _, blockId in ipairs(blockOrder) do
  shrink(KEYS[3], blockId, blocks[blockId])
  if withToken then shrink(KEYS[7], blockId, blocks[blockId]) end
end
each('HDEL', KEYS[3], requests, 1)
if withToken then each('HDEL', KEYS[7], requests, 1) end
each('ZREM', KEYS[4], requests, 1)
addSettled(KEYS[1], KEYS[2], userSettled)
if withToken then addSettled(KEYS[5], KEYS[6], tokenSettled) end
return 1
`;

/**
 * An answered request's charge exceeds what admitted it by ARGV[2] (the upstream reported more than the reservation
 * assumed): grows that reservation by as much of it as the user (and a limited token) still have available, never
 * more, so no charge takes a balance below zero however many requests overrun at once (docs/ledger.md, "What a
 * balance can go below zero by"). The reservation is a request's own or a quota block; one that is gone (its lease
 * ran out and the sweep retired it) is not recreated and is granted nothing. Runs only for charges that overrun.
 * KEYS: as SETTLE   ARGV: reservationId, extra, withToken (1|0)
 * Returns the part of `extra` granted (0 … extra).
 */
export const COVER = `${AVAILABLE}
local reservationId, extra, withToken = ARGV[1], tonumber(ARGV[2]), ARGV[3] == '1'
if redis.call('HEXISTS', KEYS[3], reservationId) == 0 then return 0 end
if withToken and redis.call('HEXISTS', KEYS[7], reservationId) == 0 then return 0 end
local grant = math.min(extra, math.max(0, available(KEYS[1], KEYS[2], KEYS[3]) or 0))
if withToken then grant = math.min(grant, math.max(0, available(KEYS[5], KEYS[6], KEYS[7]) or 0)) end
if grant <= 0 then return 0 end
redis.call('HINCRBY', KEYS[3], reservationId, grant)
if withToken then redis.call('HINCRBY', KEYS[7], reservationId, grant) end
return grant
`;

/** The request failed before anything was charged. KEYS as SETTLE; ARGV: requestId. */
export const RELEASE = `
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('HDEL', KEYS[7], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
return 1
`;

/** Extends the lease of a long request (a stream). KEYS: leases  ARGV: requestId, expiresAtMs. */
export const RENEW = `
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then redis.call('ZADD', KEYS[1], 'XX', ARGV[2], ARGV[1]) return 1 end
return 0
`;

/**
 * Extends several leases of one user at once (the settlement keeps the reservations of charges waiting for the ledger
 * alive, see RelaySettlementService). Only leases that still exist are extended. KEYS: leases
 * ARGV: expiresAtMs, then the reservation ids. Returns how many were extended.
 */
export const RENEW_MANY = `
local renewed = 0
for i = 2, #ARGV do
  if redis.call('ZSCORE', KEYS[1], ARGV[i]) then
    redis.call('ZADD', KEYS[1], 'XX', ARGV[1], ARGV[i])
    renewed = renewed + 1
  end
end
return renewed
`;

/**
 * Leases that ran out belong to requests whose process died (or hung). Such a request may or may not have
 * appended its QuotaConsumed before dying, and only at a position ≤ the head position now (ARGV[2]). So each
 * expired reservation becomes a settled-like entry at that head position: it keeps counting until the projection
 * passes that position, when the base includes the charge if there was one, and the entry is pruned either way.
 * Nothing is charged twice and nothing stays held.
 * An entry at or below the base's pos would be inside the base already: none is added (the reservation just goes).
 * KEYS: acctBal, acctSettled, acctResv, leases, then a (tokBal, tokSettled, tokResv) triple for every token the user
 * reserved on.  ARGV: nowMs, headPosition
 */
export const EXPIRE = `${HELD}
local now, head = ARGV[1], tonumber(ARGV[2])
local count = (#KEYS - 4) / 3
local function retire(bal, settled, resv, requestId)
  local amount = redis.call('HGET', resv, requestId)
  if not amount then return end
  redis.call('HDEL', resv, requestId)
  if head > tonumber(redis.call('HGET', bal, 'pos') or '-1') then addSettled(bal, settled, {head, requestId .. ':' .. amount}) end
end
local expired = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now)
for _, requestId in ipairs(expired) do
  retire(KEYS[1], KEYS[2], KEYS[3], requestId)
  for i = 1, count do
    retire(KEYS[4 + 3 * i - 2], KEYS[4 + 3 * i - 1], KEYS[4 + 3 * i], requestId)
  end
  redis.call('ZREM', KEYS[4], requestId)
end
return #expired
`;

/**
 * Loads or refreshes a base (read from the database, or pushed by the projector after a commit). It only ever
 * moves forward and the hash never expires: settled entries at or below `pos` have been pruned, so a base older
 * than `pos` would silently forget them. KEYS: bal, settled  ARGV: base, pos, onlyIfLoaded (1|0)
 */
export const SET_BASE = `${HELD}
local pos = tonumber(redis.call('HGET', KEYS[1], 'pos') or '-1')
if ARGV[3] == '1' and pos < 0 then return 0 end
if tonumber(ARGV[2]) > pos then
  -- The entries the new base includes leave the set and held: O(entries pruned), each entry once.
  local total = held(KEYS[1], KEYS[2])
  for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[2])) do total = total - amountOf(member) end
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[2])
  if redis.call('ZCARD', KEYS[2]) == 0 then total = 0 end
  redis.call('HSET', KEYS[1], 'base', ARGV[1], 'pos', ARGV[2], 'held', total)
  return 1
end
return 0
`;
