-- save_snapshot.lua: compare-and-set of a game's snapshot on its version.
--
-- KEYS[1]  {prefix}:g:{<game>}:snap   hash: version, payload (JSON)
-- KEYS[2]  {prefix}:g:{<game>}:events  the game's stream
-- ARGV[1]  version the snapshot was taken at
-- ARGV[2]  payload (JSON)
--
-- Keeps only the newest snapshot: an older one never replaces a newer one (an equal
-- version replaces, so a re-encoded snapshot of the same state can be stored).
-- A game read from the archive has no stream here: its snapshot is not written back.
-- Returns 1 when stored, 0 when ignored.

if redis.call("EXISTS", KEYS[2]) == 0 then
  return 0
end
local current = tonumber(redis.call("HGET", KEYS[1], "version") or "-1")
local version = tonumber(ARGV[1])
if version < current then
  return 0
end
redis.call("HSET", KEYS[1], "version", version, "payload", ARGV[2])
return 1
