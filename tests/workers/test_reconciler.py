"""No stranded game: whatever a crash leaves undone after a commit, the reconciler queues
again, and a real RQ worker then carries the game on (events.application.reconciler)."""

from __future__ import annotations

import socket
import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest
from rq import Queue, SimpleWorker
from rq.job import Job, JobStatus

from events.accounts.players import Player
from events.accounts.profiles import Profiles
from events.application.dispatch import RQDispatcher
from events.application.meeple import Meeple
from events.application.reconciler import GRACE_SECONDS, Reconciler
from events.domain.table import Status
from tests.workers.helpers import confirmed_email
from workers.reconcile import reconcile, schedule_pass

RP = "res-publica-2230ad"
LATER = timedelta(seconds=GRACE_SECONDS + 1)


class Lost(RQDispatcher):
    """A dispatcher in a process that dies between its append and its queueing."""

    def after_commit(self, *args: object, **kwargs: object) -> None:
        return None


@pytest.fixture()
def app(redis_url, redis_client, monkeypatch) -> Meeple:
    monkeypatch.setenv("MEEPLE_REDIS_URL", redis_url)  # the jobs read it, as in production
    monkeypatch.setenv("MEEPLE_NOTIFY_RETRY_INTERVALS", "0")
    return Meeple(redis_client, RQDispatcher(redis_client))


def run_worker(app: Meeple, *queues: str) -> None:
    names = queues or ("ai", "scoring", "notify")
    SimpleWorker([Queue(name, connection=app.redis) for name in names],
                 connection=app.redis).work(burst=True)


def a_pass(app: Meeple, after: timedelta = LATER):
    reconciler = Reconciler(app, RQDispatcher(app.redis))
    return reconciler.run_once(datetime.now(UTC) + after)


def bot_game_whose_dispatch_died(app: Meeple) -> str:
    """A bot-only game created by a process that died before queueing the bot's turn."""
    crashed = Meeple(app.redis, Lost(app.redis))
    table = crashed.create_game(Player("p_host", "host"), RP, 2, bots=[0, 1], join=False)
    assert table.status is Status.ACTIVE
    assert Queue("ai", connection=app.redis).count == 0
    return table.id


def queued_bot_turn(app: Meeple) -> tuple[str, str]:
    """A stranded bot game whose bot turn was then queued: (game id, job id)."""
    game_id = bot_game_whose_dispatch_died(app)
    RQDispatcher(app.redis).after_commit(app.load(game_id))
    [job_id] = Queue("ai", connection=app.redis).job_ids
    return game_id, job_id


def requeued_and_finished(app: Meeple, game_id: str) -> None:
    assert a_pass(app).requeued == 1
    run_worker(app)
    assert app.load(game_id).status is Status.ENDED


def left_started(app: Meeple, job_id: str, worker: str, since: datetime) -> None:
    """The job as a worker that took it and died leaves it: off its queue, started."""
    app.redis.lrem(Queue("ai", connection=app.redis).key, 0, job_id)
    job = Job.fetch(job_id, connection=app.redis)
    job.set_status(JobStatus.STARTED)
    job.worker_name, job.started_at, job.last_heartbeat = worker, since, since
    job.save()


def test_a_bot_turn_never_queued_is_queued_and_the_game_finishes(app):
    game_id = bot_game_whose_dispatch_died(app)
    version = app.load(game_id).version
    run_worker(app)
    assert app.load(game_id).version == version  # nothing happened: the game is stranded
    assert a_pass(app, after=timedelta(0)).requeued == 0  # too fresh: its process may queue
    found = a_pass(app)
    assert found.looked_at == 1 and found.requeued == 1
    run_worker(app)
    assert app.load(game_id).status is Status.ENDED


def test_a_job_queued_in_no_queue_is_queued_again(app):
    """Redis lost the queue's list but kept the job's record: `Job.exists` alone would
    block the job forever."""
    game_id, job_id = queued_bot_turn(app)
    app.redis.delete(Queue("ai", connection=app.redis).key)
    assert Job.fetch(job_id, connection=app.redis).get_status() == JobStatus.QUEUED
    requeued_and_finished(app, game_id)


def test_a_job_left_started_by_a_dead_worker_is_queued_again(app):
    game_id, job_id = queued_bot_turn(app)
    # What a worker killed with -9 leaves: the job taken off the queue, marked started, its
    # heart no longer beating.
    left_started(app, job_id, "gone-far-away", datetime.now(UTC) - timedelta(minutes=10))
    requeued_and_finished(app, game_id)


def test_a_live_job_is_left_alone_and_a_settled_game_costs_nothing(app):
    game_id = bot_game_whose_dispatch_died(app)
    RQDispatcher(app.redis).after_commit(app.load(game_id))
    assert a_pass(app).requeued == 0  # queued and in its queue: on its way
    assert Queue("ai", connection=app.redis).count == 1
    run_worker(app)
    assert app.load(game_id).status is Status.ENDED
    assert a_pass(app).settled == 1  # scored and done: remembered
    assert a_pass(app).looked_at == 0


def test_a_lost_notification_is_sent_once(app, tmp_path, monkeypatch):
    monkeypatch.setenv("MEEPLE_MAILDIR", str(tmp_path / "mail"))
    monkeypatch.delenv("MEEPLE_SMTP_URL", raising=False)
    alice, bob = Player("p_alice", "alice"), Player("p_bob", "bob")
    for player in (alice, bob):
        confirmed_email(Profiles(app.redis), player.id, f"{player.name}@example.org")
        Profiles(app.redis).update(player.id, {"notify": "email"})
    crashed = Meeple(app.redis, Lost(app.redis))
    table = crashed.create_game(alice, RP, 2, join=True)
    table = crashed.join_game(bob, table.id)
    assert table.actors() == [0] and table.seats_of(alice.id) == [0]  # Res Publica: seat 0
    assert a_pass(app).requeued == 1  # Alice's "your turn", lost with its process
    run_worker(app, "notify")
    assert a_pass(app).requeued == 0  # sent: never again
    [mail] = list((tmp_path / "mail" / "new").iterdir())
    assert "alice@example.org" in mail.read_text()


def test_the_lobby_is_mended(app):
    game_id = bot_game_whose_dispatch_died(app)
    app.redis.hdel("meeple:{lobby}:summary", game_id)
    assert app.lobby.get(game_id) is None
    assert a_pass(app).lobby_mended == 1
    assert app.lobby.get(game_id)["status"] == "active"


def test_a_retry_of_an_applied_move_queues_what_its_first_attempt_lost(app):
    """A move committed and then answered 503: the retry with the same key replays it and
    queues the bot's turn the first attempt never queued."""
    alice = Player("p_alice", "alice")
    table = app.create_game(alice, RP, 2, bots=[1], join=True)
    run_worker(app)
    crashed = Meeple(app.redis, Lost(app.redis))
    for n in range(200):  # the human plays (through a dying process) until the bot must act
        table = app.load(table.id)
        [seat] = table.actors()
        assert table.state is not None and not table.bot_played(seat)
        move = {"id": table.game.legal_moves(table.state, seat)[0]["id"]}
        first = crashed.play_moves(alice, table.id, [move], table.version, seat,
                                   idempotency_key=f"k{n}")
        if any(first.table.bot_played(s) for s in first.table.actors()):
            break
    else:
        pytest.fail("the bot never had to act")
    assert Queue("ai", connection=app.redis).count == 0  # stranded
    retry = app.play_moves(alice, table.id, [move], table.version, seat,
                           idempotency_key=f"k{n}")
    assert retry.replayed and retry.envelopes == first.envelopes
    assert Queue("ai", connection=app.redis).count == 1
    run_worker(app)
    assert app.load(table.id).version > first.table.version


def test_passes_run_on_rqs_scheduler_and_schedule_the_next(app):
    job_id = schedule_pass(app.redis, 0)
    assert schedule_pass(app.redis, 0) == job_id  # one pass per time slot
    result = reconcile()
    assert result["looked_at"] == 0
    scheduled = Queue("scoring", connection=app.redis).scheduled_job_registry.get_job_ids()
    assert any(name.startswith("reconcile-") and name != job_id for name in scheduled)


def test_a_job_of_a_worker_killed_a_moment_ago_is_queued_again_at_once(app):
    """No waiting for a heartbeat to go stale: the worker ran on this host under a pid that
    is gone (what kill -9 of `meeple worker` leaves)."""
    game_id, job_id = queued_bot_turn(app)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    now = datetime.now(UTC)
    app.redis.hset("rq:worker:killed", mapping={
        "pid": dead.pid, "hostname": socket.gethostname(),
        "last_heartbeat": now.strftime("%Y-%m-%dT%H:%M:%S.%fZ")})
    left_started(app, job_id, "killed", now)
    requeued_and_finished(app, game_id)
