-- append.lua: atomic, checked append of a batch of sealed envelopes to one game's stream.
--
-- KEYS[1]  {prefix}:g:{<game>}:events       the stream (entry id "<v>-1")
-- KEYS[2]  {prefix}:g:{<game>}:meta         hash: version, head
-- KEYS[3]  {prefix}:g:{<game>}:idem:<key>   optional; hash: request_hash, first, last
-- ARGV[1]  expected version (the version the envelopes were sealed on)
-- ARGV[2]  expected head (the `prev` of the first envelope)
-- ARGV[3]  new head (the `hash` of the last envelope)
-- ARGV[4]  request hash (idempotency)
-- ARGV[5]  idempotency ttl, seconds
-- ARGV[6…] five values per envelope, in version order: type, at, by, hash, data (JSON);
--          see _entry_fields in store.py
--
-- Each entry also keeps "batch": the first version of the batch it was appended in (not part
-- of the envelope), so that what one commit did can be found again (the reconciler).
--
-- Returns {"ok", last} | {"conflict", current} | {"replay", first, last} | {"reused"}.
-- The idempotency check comes first so that a retry after success replays (and refreshes the
-- key's time to live: a write, which the replica wait after the script then covers).
-- Envelopes are hashed client side: Redis 6.2 Lua has no SHA-256.

local GENESIS = string.rep("0", 64)
local FIRST_ENVELOPE = 6

if KEYS[3] then
  local idem = redis.call("HMGET", KEYS[3], "request_hash", "first", "last")
  if idem[1] then
    if idem[1] == ARGV[4] then
      -- A write, so that a WAIT after this script covers the first append too.
      redis.call("EXPIRE", KEYS[3], ARGV[5])
      return {"replay", tonumber(idem[2]), tonumber(idem[3])}
    end
    return {"reused"}
  end
end

local expected = tonumber(ARGV[1])
local meta = redis.call("HMGET", KEYS[2], "version", "head")
local version = tonumber(meta[1] or "0")
local head = meta[2] or GENESIS
if version ~= expected or head ~= ARGV[2] then
  return {"conflict", version}
end

local last = expected
for i = FIRST_ENVELOPE, #ARGV, 5 do
  last = last + 1
  redis.call("XADD", KEYS[1], last .. "-1", "type", ARGV[i], "at", ARGV[i + 1],
             "by", ARGV[i + 2], "hash", ARGV[i + 3], "data", ARGV[i + 4],
             "batch", expected + 1)
end
redis.call("HSET", KEYS[2], "version", last, "head", ARGV[3])

if KEYS[3] then
  redis.call("HSET", KEYS[3], "request_hash", ARGV[4], "first", expected + 1, "last", last)
  redis.call("EXPIRE", KEYS[3], ARGV[5])
end
return {"ok", last}
