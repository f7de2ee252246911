-- save_checkpoints.lua: keep tables at some versions, only while the game is in Redis.
--
-- KEYS[1]  {prefix}:g:{<game>}:checkpoints   hash: version -> zlib'd table JSON
-- KEYS[2]  {prefix}:g:{<game>}:events        the game's stream
-- ARGV     version, table, version, table, ...
--
-- A game read from the archive has no stream here: its caches are not written back.
-- Returns 1 when stored, 0 when the game is not in Redis.

if redis.call("EXISTS", KEYS[2]) == 0 then
  return 0
end
redis.call("HSET", KEYS[1], unpack(ARGV))
return 1
