"""Follow-up work after a commit, queued on RQ by job path so `events` never imports `workers`.

Job ids are derived from the game, its version and the seat, so queueing the
same follow-up twice is harmless, and every job re-checks the version when it
runs, so a stale one does nothing.
"""

from __future__ import annotations

import redis
from rq import Queue
from rq.job import Job

from events.table import Status, Table

BOT_TURN = "workers.jobs.play_bot_turn"
SCORE_GAME = "workers.jobs.score_game"


class RQDispatcher:
    def __init__(self, client: redis.Redis) -> None:
        self._redis = client
        self.ai = Queue("ai", connection=client)
        self.scoring = Queue("scoring", connection=client)

    def after_commit(self, table: Table) -> None:
        if table.status is Status.ENDED:
            if table.ratings is None:
                self._enqueue(self.scoring, SCORE_GAME, f"score-{table.id}", table.id)
            return
        for seat in table.actors():
            placed = table.seat_of(seat)
            if placed is not None and placed.bot:
                job_id = f"ai-{table.id}-{table.version}-{seat}"
                self._enqueue(self.ai, BOT_TURN, job_id, table.id, table.version, seat)

    def _enqueue(self, queue: Queue, func: str, job_id: str, *args: object) -> None:
        if Job.exists(job_id, connection=self._redis):
            return  # already queued or done: the job is idempotent anyway
        # Finished job records are kept briefly (they outweigh the game itself in Redis);
        # failed ones for a day, to be looked at.
        queue.enqueue(func, *args, job_id=job_id, result_ttl=60, failure_ttl=86400)
