"""Moves by email, end to end: how fast a reply to a turn email becomes the next turn email.

    .venv/bin/python -m bench.email_replies [--games 1] [--json FILE]

Starts a private redis-server, a real `meeple smtpd` and a real `meeple worker`, and an
aiosmtpd server standing for the players' mail provider (the worker sends every turn email
to it over SMTP). Three people play whole 3-player Res Publica games only by replying, each
reply a listed code picked at random, sent by SMTP to `meeple smtpd`. Reported:

- reply: the SMTP DATA round trip of a reply, which `meeple smtpd` answers only once the
  move is played (or refused): parsing, token check, the move, the commit;
- turn: from sending a reply to receiving the next email at the provider (the notify job on
  the worker, the email built and sent over SMTP);
- replies, moves and emails per second over the whole run.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import random
import re
import smtplib
import subprocess
import sys
import tempfile
import time
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import redis
from aiosmtpd.controller import Controller

from bench.harness import (
    format_latency,
    latency_summary,
    machine,
    print_machine,
    private_redis,
    progress,
)
from cli.embedded_redis import free_port
from events.accounts.players import Players
from events.accounts.profiles import Profiles
from events.application.dispatch import RQDispatcher
from events.application.meeple import Meeple
from events.domain.table import Status

BIN = Path(sys.executable).parent
GAME = "res-publica-2230ad"
CODE_LINE = re.compile(r"^  (\d+)\. ", re.MULTILINE)


class Provider:
    """The players' mail server: each message received goes into `inbox` with its time."""

    def __init__(self) -> None:
        self.inbox: queue.Queue[tuple[float, str, EmailMessage]] = queue.Queue()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        message = message_from_bytes(envelope.content, policy=policy.default)
        assert isinstance(message, EmailMessage)
        self.inbox.put((time.perf_counter(), envelope.rcpt_tos[0], message))
        return "250 OK"


def answer(received: EmailMessage, sender: str, code: str) -> EmailMessage:
    reply = EmailMessage()
    reply["From"], reply["To"] = sender, received["Reply-To"]
    reply["Subject"] = "Re: " + str(received["Subject"])
    reply.set_content(f"{code}\n\n-- \n{sender}\n")
    return reply


def play_games(games: int, redis_url: str, smtpd_port: int, provider: Provider
               ) -> dict[str, Any]:
    client = redis.Redis.from_url(redis_url)
    app = Meeple(client, RQDispatcher(client))
    rng = random.Random(20261130)
    reply_s: list[float] = []
    turn_s: list[float] = []
    moves = emails = 0
    started = time.perf_counter()
    with smtplib.SMTP("127.0.0.1", smtpd_port, timeout=60) as smtp:
        for number in range(games):
            people = {}
            for name in ("alice", "bob", "carol"):
                player, _ = Players(client).register(f"{name}{number}")
                address = f"{name}{number}@example.org"
                profiles = Profiles(client)
                code = profiles.request_email(player.id, address)  # the code is not mailed
                if code is not None:
                    profiles.confirm_email(player.id, code)
                profiles.update(player.id, {"notify": "email"})
                people[address] = player
            first, *others = people.values()
            table = app.create_game(first, GAME, 3)
            for player in others:
                app.join_game(player, table.id)
            ended: set[str] = set()
            sent_at: float | None = None
            while ended != set(people):
                at, to, message = provider.inbox.get(timeout=60)
                emails += 1
                if sent_at is not None:
                    turn_s.append(at - sent_at)
                    sent_at = None
                if "has ended" in str(message["Subject"]):
                    ended.add(to)
                    continue
                if message["Reply-To"] is None:
                    continue
                body = message.get_body(preferencelist=("plain",))
                codes = CODE_LINE.findall(body.get_content() if body else "")
                sent_at = time.perf_counter()
                smtp.send_message(answer(message, to, rng.choice(codes)))
                reply_s.append(time.perf_counter() - sent_at)
            table = app.load(table.id)
            assert table.status is Status.ENDED
            moves += sum(1 for e in app.events(table.id) if e["type"] == "MovePlayed")
            progress(f"game {number + 1}/{games}: ended, {moves} moves so far")
    seconds = time.perf_counter() - started
    return {"games": games, "replies": len(reply_s), "moves": moves, "emails": emails,
            "seconds": seconds, "replies_per_s": len(reply_s) / seconds,
            "reply": latency_summary(reply_s), "turn": latency_summary(turn_s)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()
    info = machine()
    provider = Provider()
    provider_port, smtpd_port = free_port(), free_port()
    controller = Controller(provider, hostname="127.0.0.1", port=provider_port)
    controller.start()
    with tempfile.TemporaryDirectory(prefix="meeple-bench-email-") as tmp, \
            private_redis(Path(tmp) / "redis") as server:
        env = {**os.environ, "MEEPLE_REDIS_URL": server.url,
               "MEEPLE_KEYS_DIR": str(Path(tmp) / "keys"),
               "MEEPLE_SMTP_URL": f"smtp://127.0.0.1:{provider_port}",
               "MEEPLE_MAIL_REPLY_DOMAIN": "meeple.bench"}
        os.environ["MEEPLE_KEYS_DIR"] = env["MEEPLE_KEYS_DIR"]
        processes = [subprocess.Popen([str(BIN / "meeple"), "smtpd", "--port", str(smtpd_port)],
                                      env=env, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL),
                     subprocess.Popen([str(BIN / "meeple"), "worker"], env=env,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
        try:
            wait_for_smtp(smtpd_port)
            results = play_games(args.games, server.url, smtpd_port, provider)
        finally:
            for process in processes:
                process.terminate()
                process.wait(20)
            controller.stop()
    print_machine(info)
    print(f"games {results['games']}  moves {results['moves']}  replies {results['replies']}  "
          f"emails {results['emails']}  in {results['seconds']:.1f} s  "
          f"({results['replies_per_s']:.1f} replies/s, one at a time)")
    print(f"reply (SMTP DATA, played)   {format_latency(results['reply'])}")
    print(f"turn (reply -> next email)  {format_latency(results['turn'])}")
    if args.json:
        args.json.write_text(json.dumps({"machine": info, **results}, indent=2))


def wait_for_smtp(port: int, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with smtplib.SMTP("127.0.0.1", port, timeout=2):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"meeple smtpd did not listen on {port}")


if __name__ == "__main__":
    main()
