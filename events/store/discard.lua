-- discard.lua: delete a game that never started, if nothing was appended since it was read.
--
-- KEYS[1]  {prefix}:g:{<game>}:events
-- KEYS[2]  {prefix}:g:{<game>}:meta
-- KEYS[3]  {prefix}:g:{<game>}:seed
-- KEYS[4]  {prefix}:g:{<game>}:snap
-- KEYS[5]  {prefix}:g:{<game>}:checkpoints
-- KEYS[6]  {prefix}:g:{<game>}:gone   what a reader is told instead, for a while
-- ARGV[1]  the version the caller decided on
-- ARGV[2]  the note kept in KEYS[5]
-- ARGV[3]  how long the note is kept, seconds
--
-- A join that lands first moves the version, and then nothing is deleted.
-- Returns 1 when deleted, 0 when the game moved on (or is not there).

local version = redis.call("HGET", KEYS[2], "version")
if not version or version ~= ARGV[1] then
  return 0
end
redis.call("DEL", KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5])
redis.call("SET", KEYS[6], ARGV[2], "EX", ARGV[3])
return 1
