// The Lua scripts the Redis store runs: each is one atomic step on the server, and one round trip.
// Layout 3 (see README "Keys and data layout"); every key of an owner starts with the owner's stem
//   <prefix>{<owner byte length>:<owner>}:
// whose braces are a Redis Cluster hash tag, so all of one owner's keys (a whole chain and its items) hash
// to one slot:
//   <stem>response:<id>  hash  owner, previous, status, revision, items (item ids, "\n"-joined), data (JSON)
//   <stem>item:<itemId>  string  the id of the owner's response that holds the item
//   <prefix>layout  string  the layout version, LAYOUT below
// Each script declares in KEYS the key it starts from (and, for put, every key it writes). The keys it reaches
// from there (older chain links, the item keys of a response it read) are derived from ARGV[1], the stem: the
// same hash tag, so the same slot on the same node. While a slot is being migrated, such a key may already
// have moved to the other node; `derived` then answers nil instead of failing, and the store reads that key
// again with a call that declares it (which ioredis follows with ASK).
// Every key carries the store's TTL; reading a response refreshes it and its item keys.

/** The key layout these scripts read and write; `connect` records it under `<prefix>layout`. */
export const LAYOUT = '3';

/** A call on a key the script derived: nil (and true) when that key is not served by this node. */
const DERIVED = `
local function derived(...)
  local answer = redis.pcall(...)
  if type(answer) == 'table' and answer.err then return nil, true end
  return answer, false
end
`;

/** Refreshes the TTL of a response key and of its item keys. */
const TOUCH = `${DERIVED}
local function touch(stem, key, items, ttl)
  redis.call('PEXPIRE', key, ttl)
  for itemId in string.gmatch(items or '', '[^\\n]+') do derived('PEXPIRE', stem .. 'item:' .. itemId, ttl) end
end
`;

/** Deletes the item keys of a response version that still point to it. */
const DROP_ITEMS = `${DERIVED}
local function dropItems(stem, id, items)
  for itemId in string.gmatch(items or '', '[^\\n]+') do
    local owned = stem .. 'item:' .. itemId
    if derived('GET', owned) == id then derived('DEL', owned) end
  end
end
`;

/**
 * KEYS: the response key, then the key of each item in ARGV[6]'s order. ARGV: stem, id, owner, previous,
 * status, items, ttlMs, expectedRevision ('' = any), then the data in one or more parts, joined here (a long
 * input's JSON is sent in pieces: see the store's `recordOf`). Answers the new revision, or -1 another
 * owner's, -2 cancelled (final), -3 revision conflict.
 */
export const PUT = `${DROP_ITEMS}
local key = KEYS[1]
local current = redis.call('HMGET', key, 'owner', 'status', 'revision', 'items')
if current[1] then
  if current[1] ~= ARGV[3] then return -1 end
  if current[2] == 'cancelled' then return -2 end
  if ARGV[8] ~= '' and current[3] ~= ARGV[8] then return -3 end
  dropItems(ARGV[1], ARGV[2], current[4])
elseif ARGV[8] ~= '' then
  return -3
end
local revision = (tonumber(current[3]) or 0) + 1
local data = #ARGV == 9 and ARGV[9] or table.concat(ARGV, '', 9)
redis.call('HSET', key, 'owner', ARGV[3], 'previous', ARGV[4], 'status', ARGV[5], 'data', data, 'items', ARGV[6], 'revision', revision)
redis.call('PEXPIRE', key, ARGV[7])
for index = 2, #KEYS do redis.call('SET', KEYS[index], ARGV[2], 'PX', ARGV[7]) end
return revision
`;

/** KEYS: the response key. ARGV: stem, owner, ttlMs. Answers { data, revision } as a two-element array, or nil. */
export const GET = `${TOUCH}
local found = redis.call('HMGET', KEYS[1], 'owner', 'data', 'revision', 'items')
if found[1] ~= ARGV[2] then return nil end
touch(ARGV[1], KEYS[1], found[4], ARGV[3])
return { found[2], found[3] }
`;

/**
 * KEYS: the key of the newest response. ARGV: stem, its id, owner, ttlMs, maxLinks. Walks previous links on
 * the server: answers { first id not found here or '', data of each link found, newest first }.
 */
export const CHAIN = `${TOUCH}
local out = {}
local id = ARGV[2]
local limit = tonumber(ARGV[5])
local key = KEYS[1]
while id ~= '' do
  if #out >= limit then return redis.error_reply('chain longer than ' .. limit .. ' links') end
  local found
  if #out == 0 then
    found = redis.call('HMGET', key, 'owner', 'previous', 'data', 'items')
  else
    key = ARGV[1] .. 'response:' .. id
    found = derived('HMGET', key, 'owner', 'previous', 'data', 'items')
  end
  if not found or found[1] ~= ARGV[3] then return { id, out } end
  touch(ARGV[1], key, found[4], ARGV[4])
  out[#out + 1] = found[3]
  id = found[2]
end
return { '', out }
`;

/**
 * KEYS: the item key. ARGV: stem, owner, ttlMs. Answers { response id, data } for the response holding the
 * item, { response id } when that response is not found on this node (expired, or moved mid-migration: the
 * store reads it with a call that declares it), or nil.
 */
export const ITEM = `${TOUCH}
local responseId = redis.call('GET', KEYS[1])
if not responseId then return nil end
local key = ARGV[1] .. 'response:' .. responseId
local found = derived('HMGET', key, 'owner', 'data', 'items')
if not found or not found[1] then return { responseId } end
if found[1] ~= ARGV[2] then return nil end
touch(ARGV[1], key, found[3], ARGV[3])
return { responseId, found[2] }
`;

/** KEYS: the response key. ARGV: stem, id, owner. Answers 1 when it deleted the response and its items, else 0. */
export const DELETE = `${DROP_ITEMS}
local found = redis.call('HMGET', KEYS[1], 'owner', 'items')
if found[1] ~= ARGV[3] then return 0 end
dropItems(ARGV[1], ARGV[2], found[2])
redis.call('DEL', KEYS[1])
return 1
`;

/**
 * KEYS: `<prefix>layout`. ARGV: expected layout. Records the layout on a database that has none (a new one)
 * and answers the layout recorded.
 */
export const LAYOUT_CHECK = `
local current = redis.call('GET', KEYS[1])
if current then return current end
redis.call('SET', KEYS[1], ARGV[1])
return ARGV[1]
`;

/**
 * Single node only (layouts 1 and 2 never ran on Redis Cluster). ARGV: prefix, a layout 1 or 2 response key
 * (`<prefix>response:<id>`). Renames it to its layout 3 key (RENAME keeps the TTL), writes the owner's item keys
 * with the response's remaining TTL, and deletes the layout 1 (`<prefix>item:<itemId>`) and layout 2
 * (`<prefix>owned-item:<n>:<owner>:<itemId>`) item keys that still point to it. Answers the item keys written.
 */
export const MIGRATE_RESPONSE = `
local old = ARGV[2]
local found = redis.call('HMGET', old, 'owner', 'items')
if not found[1] then return 0 end
local owner = found[1]
local id = string.sub(old, #ARGV[1] + #'response:' + 1)
local stem = ARGV[1] .. '{' .. #owner .. ':' .. owner .. '}:'
local ttl = redis.call('PTTL', old)
redis.call('RENAME', old, stem .. 'response:' .. id)
local written = 0
for itemId in string.gmatch(found[2] or '', '[^\\n]+') do
  for _, before in ipairs({ ARGV[1] .. 'item:' .. itemId, ARGV[1] .. 'owned-item:' .. #owner .. ':' .. owner .. ':' .. itemId }) do
    if redis.call('GET', before) == id then redis.call('DEL', before) end
  end
  local owned = stem .. 'item:' .. itemId
  if ttl > 0 then redis.call('SET', owned, id, 'PX', ttl) else redis.call('SET', owned, id) end
  written = written + 1
end
return written
`;
