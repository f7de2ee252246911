"""The event store: one Redis stream per game, its Lua scripts. The only code that
talks to Redis about a game's events, seed, snapshot and idempotency keys."""
