"""How soon a person hears it is their turn, and how late a deadline fires, while bot games
keep the workers busy (issue 16 point 5).

A private Redis (production AOF settings), an SMTP sink (aiosmtpd) standing for the players'
mail provider, and the RQ workers as `meeple run` starts them (`--layout split`: `meeple
worker ai` and `meeple worker --with-scheduler notify scoring`) or as it did before
(`--layout single`: one `meeple worker --with-scheduler` on ai, scoring and notify). `--bot-games`
Res Publica games of 4 bots (`--bot-level`, default ismcts-200ms) play on meanwhile (a bot
game queues one `ai` job per move).

1. Turn emails: alice and bob (email notices) play a 2-seat game through the use case; after
   each move that makes it the other's turn, the time from the append to the sink receiving
   that player's turn email (`notify-<game>-<version>-<player>`).
2. Deadlines: `--deadlines` 3-seat games of people on a 3-second clock (on expiry: a bot
   plays the turn); the time from each turn's due time to its TurnTimedOut event.

Printed: both latencies' p50/p95/max and the machine.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from email import message_from_bytes, policy
from pathlib import Path
from typing import Any

import redis
from aiosmtpd.controller import Controller

from bench.harness import machine, percentile, print_machine, private_redis, progress
from cli.embedded_redis import die_with_parent, free_port
from events.accounts.players import Player
from events.accounts.profiles import Profiles
from events.application.dispatch import RQDispatcher
from events.application.meeple import Meeple
from events.domain.deadlines import parse_time
from events.domain.table import Status, Table

RP = "res-publica-2230ad"
LAYOUTS = {
    "split": [["ai"], ["--with-scheduler", "notify", "scoring"]],
    "single": [["--with-scheduler"]],
}
DEADLINE_SECONDS = 3


class Sink:
    """The players' mail provider: when each delivery id arrived."""

    def __init__(self) -> None:
        self.arrived: dict[str, float] = {}
        self._changed = threading.Condition()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        message = message_from_bytes(envelope.content, policy=policy.default)
        with self._changed:
            self.arrived[str(message["X-Meeple-Delivery"])] = time.time()
            self._changed.notify_all()
        return "250 OK"

    def wait(self, delivery: str, seconds: float) -> float | None:
        with self._changed:
            self._changed.wait_for(lambda: delivery in self.arrived, seconds)
            return self.arrived.get(delivery)


@contextmanager
def workers(layout: str, env: dict[str, str]) -> Iterator[None]:
    meeple = str(Path(sys.executable).parent / "meeple")
    procs = [subprocess.Popen([meeple, "worker", *queues], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, preexec_fn=die_with_parent)
             for queues in LAYOUTS[layout]]
    try:
        time.sleep(2)  # the workers' start-up
        yield
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(30)


def person(app: Meeple, name: str) -> Player:
    player, _ = app.players.register(name)
    profiles = Profiles(app.redis)
    code = profiles.request_email(player.id, f"{name}@bench.example")
    if code is not None:
        profiles.confirm_email(player.id, code)
    profiles.update(player.id, {"notify": "email"})
    return player


def turn_email_delays(app: Meeple, sink: Sink, samples: int, rng: random.Random
                      ) -> list[float]:
    alice, bob = person(app, "alice"), person(app, "bob")
    table = app.join_game(bob, app.create_game(alice, RP, 2).id)
    players = {0: alice, 1: bob}
    delays: list[float] = []
    while len(delays) < samples:
        if table.status is not Status.ACTIVE:
            table = app.join_game(bob, app.create_game(alice, RP, 2).id)
        (seat,) = table.actors()
        assert table.state is not None
        move = rng.choice(table.game.legal_moves(table.state, seat))
        table = app.play_moves(players[seat], table.id, [{"id": move["id"]}], table.version,
                               seat).table
        appended = time.time()
        if table.status is Status.ACTIVE and table.actors() == [1 - seat]:
            other = players[1 - seat]
            arrived = sink.wait(f"notify-{table.id}-{table.version}-{other.id}", 60)
            if arrived is None:
                raise RuntimeError(f"no turn email for version {table.version} in 60 s")
            delays.append(arrived - appended)
            progress(f"turn email {len(delays)}/{samples}: {delays[-1] * 1000:.0f} ms")
    return delays


def deadline_delays(app: Meeple, count: int) -> list[float]:
    tables: list[Table] = []
    for index in range(count):
        people = [person(app, f"late-{index}-{seat}") for seat in range(3)]
        table = app.create_game(people[0], RP, 3, deadline={
            "hours": DEADLINE_SECONDS / 3600, "on_expiry": "bot"})
        for seat in (1, 2):
            table = app.join_game(people[seat], table.id, seat)
        tables.append(table)
    delays = []
    for table in tables:
        due = table.due_at(table.actors()[0])
        assert due is not None
        for _ in range(600):
            timed_out = [e for e in app.events(table.id) if e["type"] == "TurnTimedOut"]
            if timed_out:
                delays.append(parse_time(timed_out[0]["at"]).timestamp()
                              - parse_time(due).timestamp())
                break
            time.sleep(0.05)
        else:
            raise RuntimeError(f"the deadline of {table.id} did not fire in 30 s")
        progress(f"deadline {len(delays)}/{count}: {delays[-1] * 1000:.0f} ms late")
    return delays


def summary(name: str, values: list[float]) -> str:
    ordered = sorted(values)
    return (f"{name:<12} n={len(ordered)}  p50 {percentile(ordered, 0.50) * 1000:7.0f} ms  "
            f"p95 {percentile(ordered, 0.95) * 1000:7.0f} ms  max {ordered[-1] * 1000:7.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--layout", choices=sorted(LAYOUTS), default="split")
    parser.add_argument("--bot-games", type=int, default=16)
    parser.add_argument("--bot-level", default="ismcts-200ms",
                        help="the bot games' level (games.bots); the deadlines' stand-in is "
                             "greedy, the default")
    parser.add_argument("--turns", type=int, default=30, help="turn emails to time")
    parser.add_argument("--deadlines", type=int, default=5, help="deadlines to time")
    parser.add_argument("--seed", type=int, default=16)
    args = parser.parse_args()
    info = machine()
    sink, port = Sink(), free_port()
    controller = Controller(sink, hostname="127.0.0.1", port=port)
    controller.start()
    with tempfile.TemporaryDirectory(prefix="meeple-bench-") as tmp, \
            private_redis(Path(tmp) / "redis") as server:
        env = {**os.environ, "MEEPLE_REDIS_URL": server.url,
               "MEEPLE_SMTP_URL": f"smtp://127.0.0.1:{port}",
               "MEEPLE_KEYS_DIR": str(Path(tmp) / "keys"),
               "MEEPLE_NOTIFY_RETRY_INTERVALS": "1,1,1"}
        os.environ["MEEPLE_KEYS_DIR"] = env["MEEPLE_KEYS_DIR"]
        client = redis.Redis.from_url(server.url)
        app = Meeple(client, RQDispatcher(client), min_move_seconds=1)
        app.max_bot_games = None  # one host runs all the bot games, on purpose
        with workers(args.layout, env):
            host = person(app, "host")
            for _ in range(args.bot_games):
                app.create_game(host, RP, 4, join=False, bots=[
                    {"seat": seat, "level": args.bot_level} for seat in range(4)])
            progress(f"{args.bot_games} bot games playing; timing turn emails ...")
            time.sleep(2)
            turns = turn_email_delays(app, sink, args.turns, random.Random(args.seed))
            progress("timing deadlines ...")
            late = deadline_delays(app, args.deadlines)
            queued = {name: client.llen(f"rq:queue:{name}") for name in ("ai", "notify")}
    controller.stop()
    print_machine(info)
    pools = " + ".join(f"worker {' '.join(queues)}" for queues in LAYOUTS[args.layout])
    print(f"  shape        {args.layout}: {pools}; {args.bot_games} bot games of 4 seats, "
          f"bots {args.bot_level}")
    print(f"  queued at the end: {queued}")
    print()
    print(summary("turn email", turns))
    print(summary("deadline", late))


if __name__ == "__main__":
    main()
