"""Webhook attempts run on a queue of their own (`webhooks`), so that a slow receiver holds up
neither the deadlines nor the emails of the `notify` queue: a webhook player's notices are
queued there, and a job of `notify` that finds a webhook to call (a deadline's reminder, a
digest, a notice queued before its player chose a webhook) hands the attempt over. Real RQ
workers, real Redis, real HTTP receivers."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from flask import Flask
from rq import Queue, SimpleWorker
from rq.job import Job

from events.accounts.players import Player
from events.accounts.profiles import Profiles
from events.application.digests import SEND_DIGEST, Digests
from events.application.dispatch import NOTIFY_PLAYER, REMIND, RQDispatcher
from events.application.meeple import Meeple
from events.application.reconciler import GRACE_SECONDS, Reconciler
from events.domain.deadlines import TurnClock
from events.domain.table import Table
from games.rng import Rng
from tests.workers.helpers import Receiver, caller, emails, one_move

RP = "res-publica-2230ad"


class Silent:
    """A webhook receiver that accepts connections and never answers: any attempt made to it
    lasts the attempt's whole deadline."""

    def __init__(self) -> None:
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen()
        self.url = f"http://127.0.0.1:{self.server.getsockname()[1]}/hook"
        self.connections: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            self.connections.append(conn)

    def close(self) -> None:
        self.server.close()
        for conn in self.connections:
            conn.close()


@pytest.fixture()
def silent() -> Iterator[Silent]:
    made = Silent()
    yield made
    made.close()


def work(meeple: Meeple, *names: str) -> None:
    """A real RQ worker on the queues `names`, until they are empty."""
    SimpleWorker([Queue(name, connection=meeple.redis) for name in names],
                 connection=meeple.redis).work(burst=True)


def job_ids(meeple: Meeple, name: str, func: str) -> list[str]:
    return [job.id for job in Queue(name, connection=meeple.redis).jobs if job.func_name == func]


def recipients(meeple: Meeple, name: str) -> set[str]:
    return {job.args[2] for job in Queue(name, connection=meeple.redis).jobs
            if job.func_name == NOTIFY_PLAYER}


def test_a_slow_webhook_never_holds_up_an_email_on_the_notify_queue(
    flask_app: Flask, meeple: Meeple, maildir: Path, silent: Silent
) -> None:
    _, alice, _ = caller(flask_app, "alice", webhook_url=silent.url, notify="webhook")
    _, bob, _ = caller(flask_app, "bob", email="bob@example.org", notify="email")
    table = meeple.join_game(bob, meeple.create_game(alice, RP, 2).id)
    meeple.post_message(bob, table.id, "Your move, Alice?")  # each is told of the other's
    meeple.post_message(alice, table.id, "Thinking, Bob.")
    assert recipients(meeple, "webhooks") == {alice.id}
    assert recipients(meeple, "notify") == {bob.id}
    work(meeple, "notify")  # what the notify worker does: bob's emails, nothing of alice's
    assert {m["To"] for m in emails(maildir)} == {"bob@example.org"}
    assert silent.connections == []
    assert recipients(meeple, "webhooks") == {alice.id}  # left to the webhooks worker


def test_a_webhook_players_notice_is_delivered_by_the_webhooks_worker(
    flask_app: Flask, meeple: Meeple, receiver: Receiver
) -> None:
    _, alice, _ = caller(flask_app, "alice", webhook_url=receiver.url, notify="webhook")
    _, bob, _ = caller(flask_app, "bob", webhook_url=receiver.url, notify="webhook")
    table = meeple.join_game(bob, meeple.create_game(alice, RP, 2).id)
    [first] = [s.player_id for s in table.seats if s.seat in table.actors()]
    work(meeple, "webhooks")
    assert [(p["event"], p["game_id"]) for p in receiver.delivered()] == [
        ("your_turn", table.id)]
    delivery = receiver.requests[0][0]["X-Meeple-Delivery"]
    assert delivery == f"notify-{table.id}-{table.version}-{first}"


def reminder_handed_over(flask_app: Flask, meeple: Meeple, receiver: Receiver
                         ) -> tuple[Table, int, TurnClock, str]:
    """A table with a deadline whose first actor takes webhooks, and that turn's reminder
    run on `notify` (as RQ's scheduler queues it at its time): (table, seat, clock, player)."""
    _, alice, _ = caller(flask_app, "alice")
    _, bob, _ = caller(flask_app, "bob")
    table = meeple.create_game(alice, RP, 2, deadline={"hours": 1, "on_expiry": "bot"})
    table = meeple.join_game(bob, table.id)
    seat = table.actors()[0]
    placed, clock = table.seat_of(seat), table.clock_of(seat)
    assert placed is not None and clock is not None
    Profiles(meeple.redis).update(placed.player_id, {"webhook_url": receiver.url,
                                                     "notify": "webhook"})
    Queue("notify", connection=meeple.redis).enqueue(REMIND, table.id, seat, clock.version)
    work(meeple, "notify")
    return table, seat, clock, placed.player_id


def test_a_reminder_hands_its_webhook_to_the_webhooks_queue(
    flask_app: Flask, meeple: Meeple, receiver: Receiver
) -> None:
    table, seat, clock, player = reminder_handed_over(flask_app, meeple, receiver)
    assert receiver.requests == []
    reminder = f"notify-{table.id}-{clock.version}-{player}-reminder"
    assert job_ids(meeple, "webhooks", REMIND) == [f"handed-{reminder}"]
    work(meeple, "webhooks")
    [(headers, body, _)] = receiver.requests
    assert headers["X-Meeple-Delivery"] == reminder  # the same id a receiver dedupes on
    assert json.loads(body)["event"] == "deadline_reminder"


def test_a_handed_over_reminder_checks_again_that_its_turn_is_still_running(
    flask_app: Flask, meeple: Meeple, receiver: Receiver
) -> None:
    """The webhooks worker may reach a reminder late: the turn played meanwhile, it says
    nothing (outside audit: the handed job was a bare notice, sent about the next turn)."""
    table, seat, _, _ = reminder_handed_over(flask_app, meeple, receiver)
    players = {s.seat: Player(s.player_id, s.name) for s in table.seats}
    while seat in table.actors():  # the seat plays its turn before the webhooks worker runs
        table = one_move(meeple, table, seat, players, Rng(b"late", table.version))
    work(meeple, "webhooks")
    assert [json.loads(body)["event"] for _, body, _ in receiver.requests] == []


def test_a_notice_queued_before_its_player_chose_a_webhook_is_handed_over_once(
    flask_app: Flask, meeple: Meeple, receiver: Receiver
) -> None:
    _, alice, _ = caller(flask_app, "alice", email="alice@example.org", notify="email")
    _, bob, _ = caller(flask_app, "bob", email="bob@example.org", notify="email")
    table = meeple.join_game(bob, meeple.create_game(alice, RP, 2).id)
    notify = Queue("notify", connection=meeple.redis)
    [job] = [job for job in notify.jobs if job.func_name == NOTIFY_PLAYER]
    Profiles(meeple.redis).update(job.args[2], {"webhook_url": receiver.url,
                                                "notify": "webhook"})
    notify.enqueue_job(job)  # RQ runs a job at least once: here twice
    work(meeple, "notify")
    assert receiver.requests == []
    assert job_ids(meeple, "webhooks", NOTIFY_PLAYER) == [f"handed-{job.id}"]
    work(meeple, "webhooks")
    assert [p["game_id"] for p in receiver.delivered()] == [table.id]


def test_a_webhook_digest_is_sent_from_the_webhooks_queue(
    flask_app: Flask, meeple: Meeple, receiver: Receiver
) -> None:
    _, alice, _ = caller(flask_app, "alice", webhook_url=receiver.url, notify="webhook",
                         digest="daily")
    Digests(meeple.redis).hold(alice.id, {"event": "message", "game_id": "g", "version": 3,
                                          "from_seat": 1, "from_name": "bob", "text": "hi"})
    day = "2026-12-06"
    Queue("notify", connection=meeple.redis).enqueue(SEND_DIGEST, alice.id, day)
    work(meeple, "notify")
    assert receiver.requests == [] and Digests(meeple.redis).held(alice.id)
    work(meeple, "webhooks")
    [payload] = receiver.delivered()
    assert payload["event"] == "digest" and payload["messages"][0]["text"] == "hi"
    assert Digests(meeple.redis).held(alice.id) == []  # released once sent


def test_a_failed_attempt_is_retried_on_the_webhooks_queue(
    flask_app: Flask, meeple: Meeple
) -> None:
    failing = Receiver([500])
    try:
        _, alice, _ = caller(flask_app, "alice", webhook_url=failing.url, notify="webhook")
        _, bob, _ = caller(flask_app, "bob")
        meeple.join_game(bob, meeple.create_game(alice, RP, 2).id)
        work(meeple, "webhooks")  # retries at once here (MEEPLE_NOTIFY_RETRY_INTERVALS 0)
        assert [status for _, _, status in failing.requests] == [500, 200]
        assert Profiles(meeple.redis).get(alice.id).webhook_failures == 0
    finally:
        failing.close()



def a_pass(meeple: Meeple) -> None:
    Reconciler(meeple, RQDispatcher(meeple.redis)).run_once(
        datetime.now(UTC) + timedelta(seconds=GRACE_SECONDS + 1))


def test_a_handed_over_notice_lost_there_is_queued_again_by_the_reconciler(
    flask_app: Flask, meeple: Meeple, receiver: Receiver
) -> None:
    """The notice job that handed its delivery over finished; the one it handed it to was
    lost (its worker killed): the commit is not settled until the notice is delivered
    (outside audit: it was settled at once, the notice never sent)."""
    _, alice, _ = caller(flask_app, "alice", email="alice@example.org", notify="email")
    _, bob, _ = caller(flask_app, "bob", email="bob@example.org", notify="email")
    table = meeple.join_game(bob, meeple.create_game(alice, RP, 2).id)
    [job] = [j for j in Queue("notify", connection=meeple.redis).jobs
             if j.func_name == NOTIFY_PLAYER]
    Profiles(meeple.redis).update(job.args[2], {"webhook_url": receiver.url,
                                                "notify": "webhook"})
    work(meeple, "notify")  # hands the delivery over to `webhooks`
    Job.fetch(f"handed-{job.id}", connection=meeple.redis).delete()  # lost there
    a_pass(meeple)
    a_pass(meeple)
    work(meeple, "webhooks", "notify")
    assert [p["game_id"] for p in receiver.delivered()] == [table.id]


def test_a_notice_on_the_webhooks_queue_whose_player_chose_email_is_handed_to_notify(
    flask_app: Flask, meeple: Meeple, maildir: Path, silent: Silent
) -> None:
    """An email never waits behind the webhook attempts queued ahead of it (outside audit:
    a notice routed to `webhooks` whose player then chose email waited there)."""
    players = {name: caller(flask_app, name, email=f"{name}@example.org",
                            webhook_url=silent.url, notify="webhook")[1]
               for name in ("alice", "bob")}
    meeple.join_game(players["bob"], meeple.create_game(players["alice"], RP, 2).id)
    [job] = [j for j in Queue("webhooks", connection=meeple.redis).jobs
             if j.func_name == NOTIFY_PLAYER]
    Profiles(meeple.redis).update(job.args[2], {"notify": "email"})
    SimpleWorker([Queue("webhooks", connection=meeple.redis)], connection=meeple.redis).work(
        burst=True, max_jobs=1)  # that notice only: the webhooks worker's next job
    assert silent.connections == [] and emails(maildir) == []
    assert job_ids(meeple, "notify", NOTIFY_PLAYER) == [f"handed-{job.id}"]
    work(meeple, "notify")
    [mail] = emails(maildir)
    assert mail["X-Meeple-Delivery"] == job.id  # the notice's own id, as if sent at once
