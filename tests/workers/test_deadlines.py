"""The acceptance test of deadlines (issue 5.5): a seat lets its deadline pass, gets its
reminder, and then the table's consequence happens, with the worker restarted in between.

Real processes throughout: `meeple worker --with-scheduler` on the test redis, emails into a
maildir. The worker is stopped after the reminder and the deadline passes with no worker at
all; a new worker process must find the scheduled expiry and carry it out.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
import redis
from rq.registry import ScheduledJobRegistry

from events.accounts.players import Player
from events.accounts.profiles import Profiles
from events.application.dispatch import RQDispatcher
from events.application.meeple import Meeple
from events.domain.deadlines import parse_time
from events.domain.table import Table
from tests.conftest import free_port, start_redis
from tests.workers.helpers import confirmed_email, of_game, text_of
from tests.workers.helpers import emails as in_maildir

ROOT = Path(__file__).resolve().parents[2]
MEEPLE = Path(sys.executable).parent / "meeple"
RP = "res-publica-2230ad"
SECONDS_PER_MOVE = 10  # the reminder goes out 2.5 s before the deadline
DURABLE = ("--appendonly", "yes", "--appendfsync", "always")


class Workers:
    """`meeple worker --with-scheduler` processes, each in its own process group."""

    def __init__(self, redis_url: str, maildir: Path) -> None:
        self.env = {**os.environ, "MEEPLE_REDIS_URL": redis_url, "MEEPLE_MAILDIR": str(maildir),
                    "MEEPLE_NOTIFY_RETRY_INTERVALS": "0", "PYTHONPATH": str(ROOT)}
        self.running: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.running = subprocess.Popen([str(MEEPLE), "worker", "--with-scheduler"], cwd=ROOT,
                                        env=self.env, start_new_session=True)

    def stop(self, hard: bool = False) -> None:
        proc = self.running
        assert proc is not None
        if hard:  # a crash: the worker and its scheduler die at once, the lock stays behind
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.send_signal(signal.SIGTERM)  # warm shutdown: the scheduler releases its lock
        proc.wait(20)
        self.running = None

    def close(self) -> None:
        if self.running is not None and self.running.poll() is None:
            os.killpg(self.running.pid, signal.SIGKILL)
            self.running.wait(10)


@pytest.fixture()
def workers(redis_url: str, redis_client: redis.Redis, tmp_path: Path) -> Iterator[Workers]:
    made = Workers(redis_url, tmp_path / "mail")
    yield made
    made.close()


def wait_until(what: str, check: Callable[[], Any], seconds: float = 20) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"waited {seconds} s for {what}")


def mails(maildir: Path, to: str | None = None) -> list[EmailMessage]:
    """The emails in `maildir` (those to `to`), oldest first."""
    return [m for m in in_maildir(maildir) if to is None or m["To"] == to]


def deadline_table(client: redis.Redis, on_expiry: str, seconds: int = SECONDS_PER_MOVE
                   ) -> tuple[Meeple, Table, dict[int, str]]:
    """A started 3-seat table of people with email notices and seconds per move."""
    app = Meeple(client, RQDispatcher(client), min_move_seconds=1)
    names = ("alice", "bob", "carol")
    players = [Player(f"p_{name}", name) for name in names]
    for player in players:
        confirmed_email(Profiles(client), player.id, f"{player.name}@example.org")
        Profiles(client).update(player.id, {"notify": "email"})
    rule = {"hours": seconds / 3600, "on_expiry": on_expiry}
    table = app.create_game(players[0], RP, 3, deadline=rule)
    for player in players[1:]:
        table = app.join_game(player, table.id)
    emails = {seat.seat: f"{seat.name}@example.org" for seat in table.seats}
    return app, table, emails


@pytest.mark.parametrize(("on_expiry", "hard"), [("bot", False), ("resign", True)])
def test_a_deadline_passes_reminder_then_consequence_across_a_worker_restart(
    workers: Workers, redis_client: redis.Redis, tmp_path: Path, on_expiry: str, hard: bool
) -> None:
    maildir = tmp_path / "mail"
    workers.start()
    app, table, emails = deadline_table(redis_client, on_expiry)
    seat = table.actors()[0]
    placed = table.seat_of(seat)
    clock = table.clock_of(seat)
    assert placed is not None and clock is not None and table.deadline is not None
    due = parse_time(clock.at).timestamp() + SECONDS_PER_MOVE

    # 1. The reminder reaches the seat's player before the deadline.
    reminders = wait_until("the reminder", lambda: of_game(
        mails(maildir), table.id, "deadline_reminder"))
    assert len(reminders) == 1
    (reminder,) = reminders
    # To the seat's player: the last email it got.
    assert mails(maildir, emails[seat])[-1]["Message-ID"] == reminder["Message-ID"]
    assert reminder["Subject"] == (f"Reminder: your move in {table.game.title} "
                                   f"#{table.id[:6]} is due at {table.due_at(seat)}")
    body = text_of(reminder)
    then = "a bot plays this turn for you" if on_expiry == "bot" else "your seat resigns"
    assert f"Your move is due at {table.due_at(seat)}; after that, {then}" in body
    assert time.time() < due
    # 2. The worker stops (gracefully, or killed with its scheduler), and the deadline
    #    passes with no worker running: nothing happens meanwhile.
    workers.stop(hard=hard)
    time.sleep(max(0.0, due - time.time()) + 1.5)
    assert app.load(table.id).version == table.version
    # 3. A new worker process carries out the consequence.
    workers.start()
    timed_out = wait_until("TurnTimedOut", lambda: [
        e for e in app.events(table.id) if e["type"] == "TurnTimedOut"])
    assert timed_out[0]["data"] == {"seat": seat, "started": clock.version}
    after = wait_until("the next seat's turn", lambda: _next_turn(app, table.id, seat))
    log = app.events(table.id, timed_out[0]["v"])
    if on_expiry == "bot":
        assert log[1]["type"] == "MovePlayed" and log[1]["by"] == "system"
        assert after.resigned == ()
    else:
        assert log[1]["type"] == "PlayerResigned" and log[1]["data"] == {"seat": seat}
        assert after.resigned == (seat,) and after.bot_played(seat)
        moved = [e for e in log if e["type"] == "MovePlayed" and e["data"]["seat"] == seat]
        assert moved and all(e["by"] == "system" for e in moved)  # the ai queue plays it
    # The player who must act next hears of it (their turn), and gets their own deadline.
    nxt = after.human_actors()[0]
    (notice, *_) = wait_until("the next player's notice", lambda: of_game(
        mails(maildir, emails[nxt]), table.id, "your_turn"))
    assert f"our turn in {table.game.title} #{table.id[:6]}" in notice["Subject"]
    assert after.clock_of(nxt) is not None


def _next_turn(app: Meeple, game_id: str, seat: int) -> Table | None:
    """The table once a person other than `seat` must act (bot turns are done)."""
    table = app.load(game_id)
    humans = table.human_actors()
    return table if humans and seat not in humans else None


def test_a_scheduled_deadline_survives_a_crash_of_redis_and_of_the_worker(
    tmp_path: Path,
) -> None:
    """Every process goes: the worker with its scheduler (SIGKILL) and redis-server (SIGKILL;
    appendfsync always). The scheduled expiry comes back from the AOF and is carried out."""
    port, data = free_port(), tmp_path / "redis"
    server = start_redis(data, port, *DURABLE)
    url = f"redis://127.0.0.1:{port}/0"
    workers = Workers(url, tmp_path / "mail")
    try:
        workers.start()
        app, table, _ = deadline_table(redis.Redis.from_url(url), "bot", seconds=3)
        seat = table.actors()[0]
        clock = table.clock_of(seat)
        assert clock is not None
        workers.stop(hard=True)
        server.kill()
        server.wait(10)
        server = start_redis(data, port, *DURABLE)  # the same directory: replays the AOF
        expiry = f"expire-{table.id}-{seat}-{clock.version}"
        kept = ScheduledJobRegistry("notify", connection=redis.Redis.from_url(url))
        assert expiry in kept.get_job_ids()  # from the AOF, before any resync
        time.sleep(max(0.0, parse_time(clock.at).timestamp() + 3 - time.time()))
        workers.start()
        app = Meeple(redis.Redis.from_url(url), RQDispatcher(redis.Redis.from_url(url)))
        timed_out = wait_until("TurnTimedOut", lambda: [
            e for e in app.events(table.id) if e["type"] == "TurnTimedOut"])
        assert timed_out[0]["data"] == {"seat": seat, "started": clock.version}
    finally:
        workers.close()
        server.terminate()
        server.wait(10)
