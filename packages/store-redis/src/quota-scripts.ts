// The Lua scripts of tenant admission (`RedisQuota`): one atomic step and one round trip per check, on Redis's
// own clock (TIME), so instances never disagree about time. Every key a script touches is declared in KEYS and
// carries the tenant's hash tag, so each script's keys are in one slot (Redis Cluster runs them unchanged):
//   <prefix>quota:{<tenant>}:rate:requests  string  GCRA theoretical arrival time, ms (requests per minute)
//   <prefix>quota:{<tenant>}:rate:tokens    string  the same for tokens per minute
//   <prefix>quota:{<tenant>}:budget:<day>   string  tokens used and reserved on a UTC day
//   <prefix>quota:{<tenant>}:budget:<month> string  the same for a UTC month
//   <prefix>quota:{<tenant>}:leases:<kind>  zset    lease id -> expiry (ms)
//   <prefix>quota:{<tenant>}:usage:<day>    hash    "<model>\n<field>" -> count (requests, input, cached, output, reasoning)
//
// Why our own GCRA and not rate-limiter-flexible: its RateLimiterRedis is, by its own documentation, a fixed
// window (a counter per key and duration), which admits up to twice the limit across a window boundary; token
// reservations corrected at the turn's end (refunds) and budgets checked in the same step as the rate need a script
// of our own anyway. GCRA keeps one number per tenant and rate, and its bound is exact: at most
// `limit + limit * t / 60` in any t seconds. Not measured against it here (the machine this was written on was at
// load average 20+); bench/quota.bench.ts measures this backend against the in-memory one.

/** The GCRA step shared by the rate scripts: answers allowed, the new TAT, remaining, reset and retry (ms). */
const GCRA = `
local function gcra(key, limit, cost, now, charge)
  local interval = 60000 / limit
  local tat = tonumber(redis.call('GET', key)) or 0
  local base = math.max(tat, now)
  local nextTat = base + cost * interval
  local allowed = nextTat - now <= 60000
  local held = base
  if allowed then held = nextTat end
  if allowed and charge then redis.call('SET', key, tostring(held), 'PX', math.ceil(held - now) + 1000) end
  local remaining = math.max(0, math.floor((60000 - (held - now)) / interval))
  local retry = 0
  if not allowed then retry = nextTat - 60000 - now end
  return allowed, remaining, math.ceil(held - now), math.ceil(retry)
end
local function clock()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
`;

/** KEYS: rate. ARGV: limit. Answers {allowed 0/1, remaining, resetMs, retryAfterMs}. */
export const TAKE_REQUEST = `${GCRA}
local allowed, remaining, reset, retry = gcra(KEYS[1], tonumber(ARGV[1]), 1, clock(), true)
return {allowed and 1 or 0, remaining, reset, retry}
`;

/**
 * KEYS: token rate, day budget, month budget. ARGV: tokens, tokens per minute, daily, monthly (-1 = none), day
 * TTL, month TTL (ms). Answers {allowed 0/1, refusal (0 none, 1 rate, 2 daily, 3 monthly), remaining, resetMs,
 * retryAfterMs} (remaining -1: no rate).
 */
export const RESERVE_TOKENS = `${GCRA}
local tokens = tonumber(ARGV[1])
local perMinute, daily, monthly = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
if daily >= 0 and (tonumber(redis.call('GET', KEYS[2])) or 0) >= daily then return {0, 2, -1, 0, 0} end
if monthly >= 0 and (tonumber(redis.call('GET', KEYS[3])) or 0) >= monthly then return {0, 3, -1, 0, 0} end
local remaining, reset = -1, 0
if perMinute >= 0 then
  local allowed, left, resetMs, retry = gcra(KEYS[1], perMinute, math.min(tokens, perMinute), clock(), true)
  if not allowed then return {0, 1, left, resetMs, retry} end
  remaining, reset = left, resetMs
end
redis.call('INCRBY', KEYS[2], tokens)
redis.call('PEXPIRE', KEYS[2], ARGV[5])
redis.call('INCRBY', KEYS[3], tokens)
redis.call('PEXPIRE', KEYS[3], ARGV[6])
return {1, 0, remaining, reset, 0}
`;

/**
 * KEYS: token rate, day budget, month budget, usage of the day. ARGV: reserved, tokens per minute (-1 = none),
 * model ('' = no response: nothing accounted), input, cached, output, reasoning, most models a day, other-model
 * name, usage TTL, day TTL, month TTL (ms). Gives the reservation back, charges what was used, adds the usage.
 */
export const SETTLE = `${GCRA}
local reserved = tonumber(ARGV[1])
local used = tonumber(ARGV[4]) + tonumber(ARGV[6])
local change = used - reserved
for index, key in ipairs({KEYS[2], KEYS[3]}) do
  local value = (tonumber(redis.call('GET', key)) or 0) + change
  if value < 0 then value = 0 end
  redis.call('SET', key, value, 'PX', index == 1 and ARGV[11] or ARGV[12])
end
local perMinute = tonumber(ARGV[2])
if perMinute > 0 then
  local now = clock()
  local charged = math.min(reserved, perMinute)
  local tat = tonumber(redis.call('GET', KEYS[1])) or now
  local corrected = math.max(now, tat + (used - charged) * 60000 / perMinute)
  redis.call('SET', KEYS[1], tostring(corrected), 'PX', math.ceil(corrected - now) + 1000)
end
local model = ARGV[3]
if model == '' then return 0 end
if redis.call('HEXISTS', KEYS[4], model .. '\\nrequests') == 0 and redis.call('HLEN', KEYS[4]) >= tonumber(ARGV[8]) * 5 then
  model = ARGV[9]
end
redis.call('HINCRBY', KEYS[4], model .. '\\nrequests', 1)
redis.call('HINCRBY', KEYS[4], model .. '\\ninput', ARGV[4])
redis.call('HINCRBY', KEYS[4], model .. '\\ncached', ARGV[5])
redis.call('HINCRBY', KEYS[4], model .. '\\noutput', ARGV[6])
redis.call('HINCRBY', KEYS[4], model .. '\\nreasoning', ARGV[7])
redis.call('PEXPIRE', KEYS[4], ARGV[10])
return 1
`;

/** KEYS: leases. ARGV: max, ttl (ms), lease id. Answers 1 when taken. */
export const ACQUIRE_LEASE = `${GCRA}
local now = clock()
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1
`;

/** KEYS: leases. ARGV: ttl (ms), lease id. Extends the lease (takes it again if it lapsed). */
export const RENEW_LEASE = `${GCRA}
local now = clock()
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[2])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return 1
`;

/** KEYS: leases. Answers how many are held (lapsed ones removed). */
export const COUNT_LEASES = `${GCRA}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', clock())
return redis.call('ZCARD', KEYS[1])
`;
