"""Issue 11, point 3, from the outside: "Bot games hang forever after a crash ... a job
'queued' in no queue and blocked by the `Job.exists` guard ... or no job at all because the
process died between the append and the enqueue". Only what an operator runs: a real
`meeple worker --with-scheduler` on a real redis-server, and two bot games left as those
crashes leave them. Both must finish on their own (tests/workers/test_reconciler.py has
each case step by step)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import redis
from rq import Queue

from events.accounts.players import Player
from events.application.dispatch import RQDispatcher
from events.application.meeple import Meeple

RP = "res-publica-2230ad"
FINISH_SECONDS = 240


class DiedBeforeQueueing(RQDispatcher):
    """What a process that dies between its append and its enqueue leaves: nothing queued."""

    def after_commit(self, *args: object, **kwargs: object) -> None:
        return None


def test_bot_games_left_by_crashes_finish_on_their_own(
        redis_client: redis.Redis, redis_url: str) -> None:
    host = Player("p_host", "host")
    crashed = Meeple(redis_client, DiedBeforeQueueing(redis_client))
    never_queued = crashed.create_game(host, RP, 2, bots=[0, 1], join=False).id
    # The second: its job record is written, then the process dies before the job is on a
    # queue (the record alone used to block any later enqueue of that id).
    in_no_queue = crashed.create_game(host, RP, 2, bots=[0, 1], join=False).id
    RQDispatcher(redis_client).after_commit(crashed.load(in_no_queue))
    ai = Queue("ai", connection=redis_client)
    [job_id] = ai.job_ids
    redis_client.lrem(ai.key, 0, job_id)
    assert ai.count == 0

    env = {**os.environ, "MEEPLE_REDIS_URL": redis_url}
    worker = subprocess.Popen([str(Path(sys.executable).parent / "meeple"), "worker",
                               "--with-scheduler"], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        app = Meeple(redis_client)
        deadline = time.monotonic() + FINISH_SECONDS
        waiting = {never_queued, in_no_queue}
        while waiting and time.monotonic() < deadline:
            waiting = {g for g in waiting if app.load(g).status.value != "ended"}
            time.sleep(1)
        assert not waiting, f"still not ended after {FINISH_SECONDS} s: {sorted(waiting)}"
    finally:
        worker.terminate()
        worker.wait(30)
