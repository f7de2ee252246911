"""Issue 5 point 3, acceptance (a): "A test plays a full 3-player game in which the humans act
only by replying to the emails that a real SMTP server (aiosmtpd) received, through
`meeple smtpd`, to the end."

The outside world's mail server is an aiosmtpd sink; the notify worker (`meeple worker`,
a real process) sends every turn email to it over SMTP; the test reads only those emails and
answers each by SMTP to `meeple smtpd` (a real process), choosing a listed code at random.
"""

from __future__ import annotations

import json
import os
import queue
import random
import re
import smtplib
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
import redis
from aiosmtpd.controller import Controller

from events.accounts.players import Players
from events.accounts.profiles import Profiles
from events.application.dispatch import RQDispatcher
from events.application.meeple import Meeple
from events.domain.table import Status
from events.records.record import build_record
from events.records.verify import verify_record
from tests.conftest import free_port
from tests.e2e.conftest import BIN, ROOT
from tests.records.helpers import sign
from tests.workers.helpers import confirmed_email

RP = "res-publica-2230ad"
TIME_LIMIT = 240  # seconds for the whole game: a stuck game fails instead of hanging
CODE_LINE = re.compile(r"^  (\d+)\. ", re.MULTILINE)


@dataclass
class Received:
    recipients: list[str]
    message: EmailMessage


class Sink:
    """The players' mail server: every message it receives goes into `inbox`."""

    def __init__(self) -> None:
        self.inbox: queue.Queue[Received] = queue.Queue()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        message = message_from_bytes(envelope.content, policy=policy.default)
        assert isinstance(message, EmailMessage)
        self.inbox.put(Received(list(envelope.rcpt_tos), message))
        return "250 OK"


def wait_for_port(port: int, proc: subprocess.Popen[bytes], seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"process exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on {port} after {seconds}s")


@pytest.fixture()
def mail_world(redis_url: str, redis_client: redis.Redis, tmp_path: Path
               ) -> Iterator[tuple[Sink, int, dict[str, str]]]:
    """The sink, `meeple smtpd` and `meeple worker`; yields (sink, smtpd port, env)."""
    sink = Sink()
    sink_port, smtpd_port = free_port(), free_port()
    controller = Controller(sink, hostname="127.0.0.1", port=sink_port)
    controller.start()
    env = {**os.environ, "MEEPLE_REDIS_URL": redis_url,
           "MEEPLE_KEYS_DIR": str(tmp_path / "keys"),
           "MEEPLE_SMTP_URL": f"smtp://127.0.0.1:{sink_port}",
           "MEEPLE_MAIL_REPLY_DOMAIN": "meeple.test",
           "MEEPLE_NOTIFY_RETRY_INTERVALS": "0,0,0"}
    smtpd = subprocess.Popen([str(BIN / "meeple"), "smtpd", "--port", str(smtpd_port)],
                             cwd=ROOT, env=env)
    worker = subprocess.Popen([str(BIN / "meeple"), "worker"], cwd=ROOT, env=env)
    try:
        wait_for_port(smtpd_port, smtpd)
        yield sink, smtpd_port, env
    finally:
        for proc in (smtpd, worker):
            proc.terminate()
        for proc in (smtpd, worker):
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
        controller.stop()


def reply(received: EmailMessage, sender: str, code: str) -> EmailMessage:
    """What a mail client makes: the code, then the quoted email and a signature."""
    answer = EmailMessage()
    answer["From"] = sender
    answer["To"] = received["Reply-To"]
    answer["Subject"] = "Re: " + str(received["Subject"])
    answer["In-Reply-To"] = received["Message-ID"]
    body = received.get_body(preferencelist=("plain",))
    assert body is not None
    quoted = "\n".join("> " + line for line in body.get_content().splitlines())
    answer.set_content(f"{code}\n\nOn Mon, 30 Nov 2026, Meeple <{received['From']}> wrote:\n"
                       f"{quoted}\n\n-- \n{sender}\nSent from my phone\n")
    return answer


def test_three_people_play_a_whole_game_by_email(
    mail_world: tuple[Sink, int, dict[str, str]], redis_client: redis.Redis,
    monkeypatch: pytest.MonkeyPatch
) -> None:
    sink, smtpd_port, env = mail_world
    monkeypatch.setenv("MEEPLE_KEYS_DIR", env["MEEPLE_KEYS_DIR"])
    app = Meeple(redis_client, RQDispatcher(redis_client))
    players = Players(redis_client)
    people = {}
    for name in ("alice", "bob", "carol"):
        player, _ = players.register(name)
        email = f"{name}@example.org"
        confirmed_email(Profiles(redis_client), player.id, email)
        Profiles(redis_client).update(player.id, {"notify": "email"})
        people[email] = player
    alice, bob, carol = people.values()
    started = time.monotonic()
    table = app.create_game(alice, RP, 3)
    app.join_game(bob, table.id)
    app.join_game(carol, table.id)

    rng = random.Random(20261130)
    ended: set[str] = set()
    replies = 0
    outcomes: dict[str, int] = {}
    with smtplib.SMTP("127.0.0.1", smtpd_port, timeout=30) as smtp:
        while ended != set(people):
            assert time.monotonic() - started < TIME_LIMIT, f"stuck after {replies} replies"
            received = sink.inbox.get(timeout=30)
            to = received.recipients[0]
            subject = str(received.message["Subject"])
            outcome = received.message.get("X-Meeple-Reply-Outcome")
            if outcome:
                outcomes[outcome] = outcomes.get(outcome, 0) + 1
            if "has ended" in subject:
                ended.add(to)
                continue
            if received.message["Reply-To"] is None:
                continue  # "you have nothing to do now": no reply possible, none needed
            text = received.message.get_body(preferencelist=("plain",)).get_content()
            codes = CODE_LINE.findall(text)
            assert codes, text
            smtp.send_message(reply(received.message, to, rng.choice(codes)))
            replies += 1
    elapsed = time.monotonic() - started

    table = app.load(table.id)
    assert table.status is Status.ENDED
    envelopes = app.events(table.id)
    human_ids = {p.id for p in people.values()}
    moves = [e for e in envelopes if e["type"] == "MovePlayed"]
    assert moves and all(e["by"] in human_ids for e in moves)
    # Stale answers may come (two seats act at once in trades); every reply is accounted for.
    assert set(outcomes) <= {"stale"}, outcomes
    assert replies == len(moves) + sum(outcomes.values())
    record = sign(build_record(table, envelopes, app.store.get_seed(table.id), []))
    report = verify_record(json.loads(json.dumps(record)))
    assert report.ok, [problem.describe() for problem in report.problems]
    print(f"\n{len(moves)} moves by {replies} emailed replies "
          f"({outcomes.get('stale', 0)} stale) in {elapsed:.1f}s")
