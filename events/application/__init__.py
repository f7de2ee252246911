"""The use cases (`Meeple`): the only writers to the event store, and what they queue
after a commit (bot turns, scoring, notices, deadlines, digests); `offline` plays them in memory."""
