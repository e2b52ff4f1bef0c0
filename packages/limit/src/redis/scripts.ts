/**
 * The three store operations as Lua scripts (see docs/protocol.md#s3-4 to #s3-8), restating
 * store/algorithm.ts, store/grant.ts and MemoryStore operation for operation, in the same order of
 * floating-point operations, so replies match MemoryStore exactly. Each script touches one key.
 * Numbers leave Lua as strings with 17 significant digits (Lua's tostring keeps only 14).
 */

/** A script with its KEYS and ARGV slots named, in order. */
export interface LuaScript<K extends string, A extends string> {
  readonly name: string;
  readonly keys: readonly K[];
  readonly argv: readonly A[];
  readonly source: string;
}

/** KEYS then ARGV of one call, in slot order, from named values (plus the rate script's per-window tail). */
export function scriptArgs<K extends string, A extends string>(
  script: LuaScript<K, A>,
  keys: Record<K, string>,
  argv: Record<A, string>,
  tail: readonly string[] = [],
): { keys: string[]; argv: string[] } {
  return { keys: script.keys.map((k) => keys[k]), argv: [...script.argv.map((a) => argv[a]), ...tail] };
}

// Helpers every script starts with: the store's clock and number formatting.
const PRELUDE = `
-- library functions as locals: a local is read directly, a library field is two table lookups
local mfloor, mmin, mmax, sformat, sbyte, ssub, smatch = math.floor, math.min, math.max, string.format, string.byte, string.sub, string.match
local COUNT_MAX = 9007199254740991
-- a whole number prints the same with '%d', which skips the slow exact-decimal path
local function whole(x) return x == mfloor(x) and x > -COUNT_MAX and x < COUNT_MAX end
-- numbers read and printed, remembered for this call: the keys of one call share most of their
-- strings and values, and strtod / sprintf cost more than a table lookup
local numOf, textOf = {}, {}
local function num(s)
  local n = numOf[s]
  if n == nil then
    n = tonumber(s)
    if n ~= nil then numOf[s] = n end
  end
  return n
end
local function fmt(x)
  local text = textOf[x]
  if text ~= nil then return text end
  if whole(x) then text = sformat('%d', x) else text = sformat('%.17g', x) end
  if x == x then textOf[x] = text end -- NaN is no table key
  return text
end
local function storeNow(given)
  if given > 0 then return given end
  -- before Redis 5, a script that reads TIME may only write with effects replication
  if redis.replicate_commands then redis.replicate_commands() end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
end
local function grantStep(free, want, need, allowance, replicas, batch)
  if not (free >= 1) then return 0, 0 end
  local whole = mfloor(free)
  local fair = mfloor((mmin(allowance, 1) * whole) / mmax(replicas, 1))
  -- with requests waiting, at least the batch asked for (when that much is free)
  if need > 0 and batch ~= nil and batch > fair then fair = mmin(batch, whole) end
  local granted = mmax(0, mmin(want, fair))
  local left = whole - granted
  local direct = 0
  if need > granted and left >= 1 then direct = mmin(need - granted, left) end
  return granted, direct
end
-- "credit:expiry" -> credit, expiry (nil when malformed)
local function readLease(v)
  local credit, expiry = smatch(v, '^([^:]*):(.*)$')
  if not credit then return nil end
  return num(credit), num(expiry)
end
`;

export type RateScriptKey = "hash";
export type RateScriptArg =
  | "alg"
  | "nw"
  | "pod"
  | "hits"
  | "unused"
  | "want"
  | "need"
  | "allowance"
  | "replicas"
  | "ttl"
  | "now"
  | "hitsOld"
  | "tOld"
  | "batch"
  | "pushId"
  | "pushTotal"
  | "head"
  | "seen";

/**
 * The values of a compact block, in order. The block is `=<n>` then the first n of these; the rest
 * are 0 ('' for pushId and seen), so a key that asks for credit with a request waiting and pushes
 * nothing sends 5 arguments, not 12. `seen` comes first (most keys that sync have a reply to show),
 * then the values in an order that puts those most often left at their default last.
 */
export const RATE_COMPACT_SLOTS = [
  "seen",
  "want",
  "need",
  "batch",
  "hits",
  "unused",
  "pushId",
  "pushTotal",
  "hitsOld",
  "tOld",
  "head",
] as const satisfies readonly RateScriptArg[];

/**
 * Rate: push hits, keep or give back credit, grant a fair share, admit waiters directly; replicas left
 * waiting take a ticket, and one unit stays held for each older ticket (store/turns.ts).
 * One call serves one key or several: KEYS[j] is the j-th key's hash, and ARGV holds one block per
 * key, in order: the named slots, then limit, windowMs, burst of each window. With one key this is
 * the single-key layout. Reply: each key's [now, kept, avail, granted, direct, others, then idx, cur,
 * prev, tat per window], concatenated in key order (6 + 4 nw entries per key).
 * Redis TIME is read at most once per call; each key's writes are one HSET (and an HDEL only when a
 * field goes) and one PEXPIRE.
 */
export const RATE_SCRIPT: LuaScript<RateScriptKey, RateScriptArg> = {
  name: "rate",
  keys: ["hash"],
  argv: [
    "alg",
    "nw",
    "pod",
    "hits",
    "unused",
    "want",
    "need",
    "allowance",
    "replicas",
    "ttl",
    "now",
    "hitsOld",
    "tOld",
    "batch",
    "pushId",
    "pushTotal",
    "head",
    "seen",
  ],
  source: `${PRELUDE}
local timeNow = nil                    -- Redis TIME, read once per call
local function callNow(given)
  if given > 0 then return given end
  if timeNow == nil then timeNow = storeNow(0) end
  return timeNow
end

local function windowIndex(t, w)
  if t <= 0 then return 0 end
  return mfloor(t / w)
end

-- the key being served: set by rateKey, read by the helpers below (defined once per call, not per key)
local alg, now, nw, largest, pod, ttl, allowance, replicas
local limits, widths, bursts = {}, {}, {}
-- the previous block's settings as sent: a block sending the same strings (Lua interns them, so
-- comparing is cheap) reuses what was parsed, which most keys of a call do
local rawAlg, rawNw, rawTtl, rawNow, rawPod, rawWindows = nil, nil, nil, nil, nil, {}
local leaseName, ticketName
-- strings formatted once per call for every key that shares them
local nowText, expiryText, keyTtlText
-- fields to delete, then fields to write: one HDEL (when any) and one HSET at the end. No field is
-- written and then deleted, so deleting first leaves what the steps in order would.
local dels, ndels, sets, nsets = {}, 0, {}, 0
local function del(name)
  ndels = ndels + 1
  dels[ndels] = name
end
local function set(name, value)
  sets[nsets + 1] = name
  sets[nsets + 2] = value
  nsets = nsets + 2
end

-- the windows a replica saw, read into tables reused by every key of the call
local seenStates = {}

-- "w<i>", named once per call (a number in a concatenation goes through sprintf)
local windowFields = {}
local function windowField(i)
  local name = windowFields[i]
  if name == nil then
    name = 'w' .. i
    windowFields[i] = name
  end
  return name
end
-- the window number of a field "w<n>" (false: not a number), read once per call
local windowNumbers = {}
local function windowNumber(name)
  local n = windowNumbers[name]
  if n == nil then
    n = tonumber(ssub(name, 2)) or false
    windowNumbers[name] = n
  end
  return n
end

local function capacity(i)
  if alg == 2 then return bursts[i] end
  return limits[i]
end
local function roll(s, i, t)
  if alg == 2 then return end
  local idx = windowIndex(t, widths[i])
  if idx <= s[1] then return end
  if idx == s[1] + 1 then s[3] = s[2] else s[3] = 0 end
  s[2] = 0
  s[1] = idx
end
local function apply(s, i, t, n)
  if alg == 2 then
    local p = widths[i] / limits[i]
    s[4] = mmin(mmax(s[4], t) + n * p, t + bursts[i] * p + widths[i])
    return
  end
  roll(s, i, t)
  s[2] = mmin(s[2] + n, COUNT_MAX)
end
local function applyPast(s, i, t, n)
  if n == 0 then return end
  if alg == 2 then apply(s, i, t, n) return end
  local idx = windowIndex(t, widths[i])
  if idx >= s[1] then apply(s, i, t, n)
  elseif idx == s[1] - 1 and alg == 1 then s[3] = mmin(s[3] + n, COUNT_MAX) end
end
-- the state is already rolled to t (apply always rolls)
local function usage(s, i, t)
  if alg == 2 then return (mmax(s[4], t) - t) / (widths[i] / limits[i]) end
  if alg == 0 then return s[2] end
  local w = widths[i]
  local pos = mmin(mmax(t - s[1] * w, 0), w)
  return s[3] * (1 - pos / w) + s[2]
end

-- the number of a live "n:expiry" field; a malformed or expired one is deleted (nil)
local function liveField(name, value)
  local n, expiry = readLease(value)
  if n == nil or expiry == nil or expiry <= now then
    del(name)
    return nil
  end
  return n
end

-- a stored window "idx:cur:prev:tat" into s (parts missing or unreadable are 0)
local function readWindow(s, v)
  local a, b, c, d = smatch(v, '^([^:]+):([^:]+):([^:]+):([^:]+)$')
  if a then
    s[1], s[2], s[3], s[4] = num(a) or 0, num(b) or 0, num(c) or 0, num(d) or 0
    return
  end
  local k = 1
  for part in string.gmatch(v, '[^:]+') do
    s[k] = num(part) or 0
    k = k + 1
  end
end

-- the settings of the block after ARGV[base] (parsed again only when a string differs)
local function readSettings(base)
  local a, n = ARGV[base + 1], ARGV[base + 2]
  local same = a == rawAlg and n == rawNw
  if same then
    for i = 1, 3 * nw do
      if ARGV[base + 18 + i] ~= rawWindows[i] then
        same = false
        break
      end
    end
  end
  if not same then
    rawAlg, rawNw = a, n
    alg = tonumber(a)                  -- 0 fixed window, 1 sliding window, 2 token bucket
    nw = tonumber(n)                   -- number of windows
    largest = 0
    -- ARGV[base + 19 + 3(i-1)], [+20], [+21]: limit, windowMs, burst of window i
    for i = 1, nw do
      limits[i] = tonumber(ARGV[base + 16 + 3 * i])
      widths[i] = tonumber(ARGV[base + 17 + 3 * i])
      bursts[i] = tonumber(ARGV[base + 18 + 3 * i])
      if widths[i] > largest then largest = widths[i] end
    end
    for i = 1, 3 * nw do rawWindows[i] = ARGV[base + 18 + i] end
    keyTtlText = nil
  end
  local p, t, g = ARGV[base + 3], ARGV[base + 10], ARGV[base + 11]
  if p ~= rawPod then
    rawPod, pod = p, p                 -- this replica
    leaseName, ticketName = 'L:' .. p, 'Q:' .. p
  end
  if t ~= rawTtl or g ~= rawNow then
    if t ~= rawTtl then keyTtlText = nil end
    rawTtl, rawNow = t, g
    ttl = tonumber(t)                  -- lease life, ms
    now = callNow(tonumber(g))
    nowText, expiryText = fmt(now), fmt(now + ttl)
  end
  if keyTtlText == nil then keyTtlText = sformat('%d', mfloor(2 * largest + ttl + 1000)) end
end

-- one key: its block starts after ARGV[base]; its reply entries follow out[nout]; returns the next base and nout
local function rateKey(key, base, out, nout)
local hits, unused, want, need, hitsOld, tOld, batch, pushId, pushTotal, head, seen, nextBase
local marker = ARGV[base + 1]
if sbyte(marker, 1) == 61 then         -- '='
  -- a compact block: the previous block's settings; "=<n>", then the first n of seen, want, need,
  -- batch, hits, unused, pushId, pushTotal, hitsOld, tOld, head (RATE_COMPACT_SLOTS); the rest 0 or ''
  local n = num(ssub(marker, 2)) or 0
  want, need, batch, hits, unused, pushId, pushTotal, hitsOld, tOld, head = 0, 0, 0, 0, 0, '', 0, 0, 0, 0
  seen = ''
  if n >= 1 then seen = ARGV[base + 2] end
  if n >= 2 then want = num(ARGV[base + 3]) end
  if n >= 3 then need = num(ARGV[base + 4]) end
  if n >= 4 then batch = num(ARGV[base + 5]) end
  if n >= 5 then hits = num(ARGV[base + 6]) end
  if n >= 6 then unused = num(ARGV[base + 7]) end
  if n >= 7 then pushId = ARGV[base + 8] end
  if n >= 8 then pushTotal = num(ARGV[base + 9]) end
  if n >= 9 then hitsOld = num(ARGV[base + 10]) end
  if n >= 10 then tOld = num(ARGV[base + 11]) end
  if n >= 11 then head = num(ARGV[base + 12]) end
  nextBase = base + 1 + n
else
  readSettings(base)
  hits = num(ARGV[base + 4])           -- hits to charge at now
  unused = num(ARGV[base + 5])         -- credit the replica still holds
  want = num(ARGV[base + 6])           -- new credit wanted
  need = num(ARGV[base + 7])           -- requests waiting now
  allowance = num(ARGV[base + 8])      -- min(localAllowance, 1)
  replicas = num(ARGV[base + 9])       -- live replicas of the service
  hitsOld = num(ARGV[base + 12])       -- hits admitted before the last boundary
  tOld = num(ARGV[base + 13])          -- when those were admitted
  batch = num(ARGV[base + 14])         -- credit a replica with requests waiting may take (0: none)
  pushId = ARGV[base + 15]             -- names the replica key state's push total ('' : none)
  pushTotal = num(ARGV[base + 16])     -- units that key state pushed so far, these hits included
  head = num(ARGV[base + 17])          -- the largest request waiting (a pool is kept for 2 or more)
  seen = ARGV[base + 18]               -- the windows as the replica last saw them ('' : none)
  nextBase = base + 18 + 3 * nw
end
ndels, nsets = 0, 0

-- 1. read windows, leases and turns; expired leases and turns go
local fields = redis.call('HGETALL', key)
local stored, nstored = {}, 0
local mineLive, mine, others = false, 0, 0
local myTicket, tickets, nextTicket = nil, {}, 1
local pushField, remembered = nil, nil
local pool = 0                          -- units kept free for a large request (field h)
if pushId ~= '' then pushField = 'P:' .. pushId .. ':' .. pod end
for f = 1, #fields, 2 do
  local name, value = fields[f], fields[f + 1]
  local first = sbyte(name, 1)
  if first == 119 then                 -- 'w'
    local n = windowNumber(name)
    if n then
      stored[n] = value
      nstored = nstored + 1
    end
  elseif name == 'q' then
    nextTicket = tonumber(value) or 1
  elseif name == 'h' then
    pool = liveField(name, value) or 0
  elseif sbyte(name, 2) == 58 then -- ':'
    if first == 76 then                -- 'L:'
      local n = liveField(name, value)
      if n == nil then
        -- gone
      elseif name == leaseName then
        mineLive = true
        mine = n
      else
        others = mmin(others + n, COUNT_MAX)
      end
    elseif first == 81 then            -- 'Q:'
      local n = liveField(name, value)
      if n == nil then
        -- gone
      elseif name == ticketName then myTicket = n
      else tickets[#tickets + 1] = n end
    elseif first == 80 then            -- 'P:'
      local n = liveField(name, value)
      if n ~= nil and name == pushField then remembered = n end
    end
  end
end
-- one unit (a batch, when asking for one) stays held for each replica with an older ticket, except
-- from an ask whose head may take the pool (its turn); a head of 1: one-unit requests within their share
local leaves = pool > 0 and head < pool and head ~= 1
local ahead = 0
for _, ticket in ipairs(tickets) do
  if myTicket == nil or ticket < myTicket then ahead = ahead + 1 end
end
if head < 2 or leaves then others = mmin(others + ahead * mmax(1, batch), COUNT_MAX) end
-- windows written for another set of windows start over
local reset = nstored ~= nw
local states = {}
for i = 1, nw do
  local s = {0, 0, 0, 0}
  local v = stored[i]
  if not reset and v then readWindow(s, v) end
  states[i] = s
end
if reset then
  for n in pairs(stored) do
    if n > nw or n < 1 then del('w' .. n) end
  end
end
-- counts this store lost (restarted empty) come back from what the replica saw (keepSeen): a store
-- that kept them has them all, since its counts only grow within a window and its tat never falls
if seen ~= '' then
  local i = 0
  for v in string.gmatch(seen, '[^,]+') do
    i = i + 1
    local f = seenStates[i]
    if f == nil then
      f = {}
      seenStates[i] = f
    end
    f[1], f[2], f[3], f[4] = 0, 0, 0, 0
    readWindow(f, v)
  end
  if i == nw then
    for j = 1, nw do
      local s, f = states[j], seenStates[j]
      if f[1] > s[1] then
        s[1], s[2], s[3] = f[1], f[2], f[3]
      elseif f[1] == s[1] then
        s[2], s[3] = mmax(s[2], f[2]), mmax(s[3], f[3])
      elseif f[1] == s[1] - 1 then
        s[3] = mmax(s[3], f[2])
      end
      s[4] = mmax(s[4], f[4])
    end
  end
end

-- 2. a resent push is charged once: units the remembered total covers go (older hits first)
if pushField then
  if remembered ~= nil then
    local seen = mmin(mmax(0, remembered - (pushTotal - hits - hitsOld)), hits + hitsOld)
    local fromOld = mmin(seen, hitsOld)
    hitsOld = hitsOld - fromOld
    hits = hits - (seen - fromOld)
  end
  set(pushField, fmt(mmax(remembered or 0, pushTotal)) .. ':' .. expiryText)
end
-- old hits at their time (never later than now), new hits at now
local tPast = mmin(tOld, now)
for i = 1, nw do
  applyPast(states[i], i, tPast, hitsOld)
  apply(states[i], i, now, hits)
end
-- 3. what nobody holds
local low = nil
for i = 1, nw do
  local v = capacity(i) - usage(states[i], i, now) - others
  if low == nil or v < low then low = v end
end
local avail = mfloor(low)
-- a pool kept for a larger request stays free, with every algorithm (a fixed window's to its end)
if leaves then
  others = mmin(others + pool, COUNT_MAX)
  avail = avail - pool
end
-- 4. keep
local kept
if mineLive then kept = mmin(unused, mine) else kept = mmin(unused, mmax(avail, 0)) end
-- 5. grant and last mile
local granted, direct
if pool == 0 and head < 2 then
  granted, direct = grantStep(avail - kept, want, need, allowance, replicas, batch)
else
  -- leaving the pool: credit ahead only beyond one more; waiting requests direct from all that is
  -- free; a large request left short gets no part of itself (it would be charged and left unused)
  -- and no credit ahead (held in a lease, those units would not fill the pool)
  local free = avail - kept
  local ahead = free
  if leaves then ahead = free - pool end
  granted = grantStep(ahead, want, need, allowance, replicas, batch)
  local left = mfloor(free) - granted
  direct = 0
  if need > granted and left >= 1 then direct = mmin(need - granted, left) end
  if head >= 2 and not leaves and kept + granted + direct < head then
    direct = mmin(direct, mmax(0, need - head))
    granted = 0
  end
end
-- 6. direct admits are hits now
if direct > 0 then
  for i = 1, nw do apply(states[i], i, now, direct) end
end
-- 7. write back
out[nout + 1] = nowText
out[nout + 2] = kept
out[nout + 3] = avail
out[nout + 4] = granted
out[nout + 5] = direct
out[nout + 6] = others
nout = nout + 6
for i = 1, nw do
  local s = states[i]
  local tat = fmt(s[4])
  set(windowField(i), fmt(s[1]) .. ':' .. fmt(s[2]) .. ':' .. fmt(s[3]) .. ':' .. tat)
  out[nout + 1] = s[1]
  out[nout + 2] = s[2]
  out[nout + 3] = s[3]
  out[nout + 4] = tat
  nout = nout + 4
end
local held = kept + granted
if held > 0 then
  set(leaseName, fmt(held) .. ':' .. expiryText)
elseif mineLive then
  del(leaseName) -- an expired one is in dels already
end
-- served (its batch, or everything it asked for): back of the line next time; left short with
-- requests waiting: take (or keep) a ticket
if granted + direct >= mmax(1, batch) or (need > 0 and granted >= want and granted + direct >= need) then
  if myTicket ~= nil then del(ticketName) end
elseif need > 0 then
  if myTicket == nil then
    myTicket = nextTicket
    set('q', fmt(nextTicket + 1))
  end
  set(ticketName, fmt(myTicket) .. ':' .. fmt(now + ttl / 3))
end
-- an ask whose head may take the pool keeps it at that size for the next one (a fixed window's only
-- when the head was covered: nothing frees before its end to cover one left short)
if head >= 2 and not leaves and (alg ~= 0 or kept + granted + direct >= head) then
  set('h', fmt(head) .. ':' .. fmt(now + ttl / 3))
end
if ndels > 0 then
  -- an expired field written again below (the replica's own lease or push total) needs no delete
  local written = {}
  for i = 1, nsets, 2 do written[sets[i]] = true end
  local left = 0
  for i = 1, ndels do
    if not written[dels[i]] then
      left = left + 1
      dels[left] = dels[i]
    end
  end
  if left > 0 then redis.call('HDEL', key, unpack(dels, 1, left)) end
end
redis.call('HSET', key, unpack(sets, 1, nsets))
redis.call('PEXPIRE', key, keyTtlText)
return nextBase, nout
end

local out, nout = {}, 0
local base = 0
for j = 1, #KEYS do
  base, nout = rateKey(KEYS[j], base, out, nout)
end
return out
`,
};

export type ConcurrencyScriptKey = "hash";
export type ConcurrencyScriptArg =
  | "pod"
  | "active"
  | "unused"
  | "want"
  | "need"
  | "max"
  | "allowance"
  | "replicas"
  | "ttl"
  | "now";

/**
 * Concurrency: an absolute report of active slots, then keep, grant, admit; direct slots are reserved
 * in the lease, not recorded. Reply: [now, kept, granted, direct, others].
 */
export const CONCURRENCY_SCRIPT: LuaScript<ConcurrencyScriptKey, ConcurrencyScriptArg> = {
  name: "concurrency",
  keys: ["hash"],
  argv: ["pod", "active", "unused", "want", "need", "max", "allowance", "replicas", "ttl", "now"],
  source: `${PRELUDE}
local key = KEYS[1]                    -- cc3:{<service>:<subject>}
local pod = ARGV[1]                    -- this replica
local active = tonumber(ARGV[2])       -- slots this replica holds now (absolute)
local unused = tonumber(ARGV[3])       -- allowed but not active, kept
local want = tonumber(ARGV[4])         -- new slots wanted
local need = tonumber(ARGV[5])         -- acquires waiting now
local max = tonumber(ARGV[6])          -- the cap
local allowance = tonumber(ARGV[7])    -- min(localAllowance, 1)
local replicas = tonumber(ARGV[8])     -- live replicas of the service
local ttl = tonumber(ARGV[9])          -- lease life, ms
local now = storeNow(tonumber(ARGV[10]))

local fields = redis.call('HGETALL', key)
local mineLive, mine, others = false, 0, 0
for f = 1, #fields, 2 do
  local name, value = fields[f], fields[f + 1]
  local credit, expiry = readLease(value)
  if credit == nil or expiry == nil or expiry <= now then
    redis.call('HDEL', key, name)
  elseif name == pod then
    mineLive = true
    mine = credit
  else
    others = mmin(others + credit, COUNT_MAX)
  end
end
local avail = mfloor(max - others - active)
local kept
if mineLive then
  kept = mmin(unused, mmax(0, mine - active))
else
  kept = mmin(unused, mmax(0, avail))
end
local granted, direct = grantStep(avail - kept, want, need, allowance, replicas)
local held = mmin(active + kept + granted + direct, COUNT_MAX)
if held > 0 then
  redis.call('HSET', key, pod, fmt(held) .. ':' .. fmt(now + ttl))
  redis.call('PEXPIRE', key, sformat('%d', mfloor(2 * ttl)))
else
  redis.call('HDEL', key, pod)
end
return {fmt(now), kept, granted, direct, others}
`,
};

export type HeartbeatScriptKey = "registry";
export type HeartbeatScriptArg = "pod" | "window" | "leave" | "now";

/** Heartbeat: register (or leave), forget silent replicas, count the live ones. Reply: [now, n]. */
export const HEARTBEAT_SCRIPT: LuaScript<HeartbeatScriptKey, HeartbeatScriptArg> = {
  name: "heartbeat",
  keys: ["registry"],
  argv: ["pod", "window", "leave", "now"],
  source: `${PRELUDE}
local key = KEYS[1]                    -- rl2:{<service>}:pods
local pod = ARGV[1]                    -- this replica
local window = tonumber(ARGV[2])       -- live window, ms (3 x heartbeatMs)
local leave = ARGV[3] == '1'           -- 1: shutting down
local now = storeNow(tonumber(ARGV[4]))

if leave then
  redis.call('ZREM', key, pod)
else
  redis.call('ZADD', key, fmt(now), pod)
end
redis.call('ZREMRANGEBYSCORE', key, '-inf', fmt(now - window))
local n = redis.call('ZCARD', key)
if n < 1 then n = 1 end
redis.call('PEXPIRE', key, sformat('%d', mfloor(10 * window)))
return {fmt(now), n}
`,
};

/** Every script, in the order of the SCRIPT LOAD pipeline. */
export const SCRIPTS = [RATE_SCRIPT, CONCURRENCY_SCRIPT, HEARTBEAT_SCRIPT] as const;
