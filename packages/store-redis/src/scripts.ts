// The Lua scripts the Redis store runs: each is one atomic step on the server, and one round trip.
// Layout 2 (KEYS are built from the prefix; see README "Keys and data layout"):
//   <prefix>response:<id>  hash  owner, previous, status, revision, items (item ids, "\n"-joined), data (JSON)
//   <prefix>owned-item:<owner byte length>:<owner>:<itemId>  string  the id of the owner's response that holds the item
//   <prefix>layout  string  the layout version, LAYOUT below
// Item keys are scoped by owner: input items keep the ids clients give them, so two tenants can store the
// same id (layout 1's <prefix>item:<itemId> let the later one take the earlier one's item_reference). The
// owner's length makes the key unambiguous whatever either part contains.
// Every key carries the store's TTL; reading a response refreshes it and its item keys. Scripts name the keys they derive from
// ARGV, so the layout needs one Redis node (not Redis Cluster).

/** The key layout these scripts read and write; `connect` records it under `<prefix>layout`. */
export const LAYOUT = '2';

/** The key of an owner's item (see the layout above). */
const ITEM_KEY = `
local function itemKey(prefix, owner, itemId)
  return prefix .. 'owned-item:' .. #owner .. ':' .. owner .. ':' .. itemId
end
`;

/** ARGV: prefix, id, owner, previous, status, data, items, ttlMs, expectedRevision ('' = any). Answers the new revision, or -1 another owner's, -2 cancelled (final), -3 revision conflict. */
export const PUT = `${ITEM_KEY}
local key = ARGV[1] .. 'response:' .. ARGV[2]
local current = redis.call('HMGET', key, 'owner', 'status', 'revision', 'items')
if current[1] then
  if current[1] ~= ARGV[3] then return -1 end
  if current[2] == 'cancelled' then return -2 end
  if ARGV[9] ~= '' and current[3] ~= ARGV[9] then return -3 end
  for itemId in string.gmatch(current[4] or '', '[^\\n]+') do
    local owned = itemKey(ARGV[1], ARGV[3], itemId)
    if redis.call('GET', owned) == ARGV[2] then redis.call('DEL', owned) end
  end
elseif ARGV[9] ~= '' then
  return -3
end
local revision = (tonumber(current[3]) or 0) + 1
redis.call('HSET', key, 'owner', ARGV[3], 'previous', ARGV[4], 'status', ARGV[5], 'data', ARGV[6], 'items', ARGV[7], 'revision', revision)
redis.call('PEXPIRE', key, ARGV[8])
for itemId in string.gmatch(ARGV[7], '[^\\n]+') do
  redis.call('SET', itemKey(ARGV[1], ARGV[3], itemId), ARGV[2], 'PX', ARGV[8])
end
return revision
`;

/** Refreshes the TTL of a response key and of its owner's item keys. */
const TOUCH = `${ITEM_KEY}
local function touch(prefix, key, owner, items, ttl)
  redis.call('PEXPIRE', key, ttl)
  for itemId in string.gmatch(items or '', '[^\\n]+') do redis.call('PEXPIRE', itemKey(prefix, owner, itemId), ttl) end
end
`;

/** ARGV: prefix, id, owner, ttlMs. Answers { data, revision } as a two-element array, or nil. */
export const GET = `${TOUCH}
local key = ARGV[1] .. 'response:' .. ARGV[2]
local found = redis.call('HMGET', key, 'owner', 'data', 'revision', 'items')
if found[1] ~= ARGV[3] then return nil end
touch(ARGV[1], key, ARGV[3], found[4], ARGV[4])
return { found[2], found[3] }
`;

/**
 * ARGV: prefix, id, owner, ttlMs, maxLinks. Walks previous links on the server: answers
 * { missing id or '', data of each link found, newest first }.
 */
export const CHAIN = `${TOUCH}
local out = {}
local id = ARGV[2]
local limit = tonumber(ARGV[5])
while id ~= '' do
  if #out >= limit then return redis.error_reply('chain longer than ' .. limit .. ' links') end
  local key = ARGV[1] .. 'response:' .. id
  local found = redis.call('HMGET', key, 'owner', 'previous', 'data', 'items')
  if found[1] ~= ARGV[3] then return { id, out } end
  touch(ARGV[1], key, ARGV[3], found[4], ARGV[4])
  out[#out + 1] = found[3]
  id = found[2]
end
return { '', out }
`;

/** ARGV: prefix, itemId, owner, ttlMs. Answers the data of the response holding the item, or nil. */
export const ITEM = `${TOUCH}
local responseId = redis.call('GET', itemKey(ARGV[1], ARGV[3], ARGV[2]))
if not responseId then return nil end
local key = ARGV[1] .. 'response:' .. responseId
local found = redis.call('HMGET', key, 'owner', 'data', 'items')
if found[1] ~= ARGV[3] then return nil end
touch(ARGV[1], key, ARGV[3], found[3], ARGV[4])
return found[2]
`;

/** ARGV: prefix, id, owner. Answers 1 when it deleted the response and its items, else 0. */
export const DELETE = `${ITEM_KEY}
local key = ARGV[1] .. 'response:' .. ARGV[2]
local found = redis.call('HMGET', key, 'owner', 'items')
if found[1] ~= ARGV[3] then return 0 end
for itemId in string.gmatch(found[2] or '', '[^\\n]+') do
  local owned = itemKey(ARGV[1], ARGV[3], itemId)
  if redis.call('GET', owned) == ARGV[2] then redis.call('DEL', owned) end
end
redis.call('DEL', key)
return 1
`;

/**
 * ARGV: prefix, expected layout. Records the layout on a database that has none (new, or written by a
 * version before the marker) and answers the layout recorded.
 */
export const LAYOUT_CHECK = `
local key = ARGV[1] .. 'layout'
local current = redis.call('GET', key)
if current then return current end
redis.call('SET', key, ARGV[2])
return ARGV[2]
`;

/**
 * ARGV: prefix, response key. Migrates one response from layout 1: writes its owner-scoped item keys
 * with the response's remaining TTL and deletes the layout-1 item keys that still point to it. Answers
 * the number of item keys written.
 */
export const MIGRATE_RESPONSE = `${ITEM_KEY}
local key = ARGV[2]
local found = redis.call('HMGET', key, 'owner', 'items')
if not found[1] then return 0 end
local id = string.sub(key, #ARGV[1] + #'response:' + 1)
local ttl = redis.call('PTTL', key)
local written = 0
for itemId in string.gmatch(found[2] or '', '[^\\n]+') do
  local old = ARGV[1] .. 'item:' .. itemId
  if redis.call('GET', old) == id then redis.call('DEL', old) end
  local owned = itemKey(ARGV[1], found[1], itemId)
  if ttl > 0 then redis.call('SET', owned, id, 'PX', ttl) else redis.call('SET', owned, id) end
  written = written + 1
end
return written
`;
