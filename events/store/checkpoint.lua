-- checkpoint.lua: the newest checkpoint of a game at or before a version.
--
-- KEYS[1]  {prefix}:g:{<game>}:checkpoints   hash: version -> zlib-compressed table JSON
-- ARGV[1]  the version asked for
--
-- A game has one checkpoint per CHECKPOINT_EVERY versions, so the scan is short.
-- Returns {version, payload}, or false when there is none at or before ARGV[1].

local wanted = tonumber(ARGV[1])
local best = -1
for _, field in ipairs(redis.call("HKEYS", KEYS[1])) do
  local version = tonumber(field)
  if version and version <= wanted and version > best then
    best = version
  end
end
if best < 0 then
  return false
end
return {best, redis.call("HGET", KEYS[1], tostring(best))}
