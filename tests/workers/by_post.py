"""What the play-by-post tests share: the players' mail provider (a real SMTP server that
keeps what it receives), the emails as a person reads them, a reply as a mail client sends
it, and a real RQ worker run until its queues are empty. The fixtures that start the
provider and `meeple smtpd` are in conftest.py."""

from __future__ import annotations

import re
import smtplib
import threading
import time
from dataclasses import dataclass
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

import redis
from rq import Queue, SimpleWorker

from events.accounts.players import Player
from events.accounts.profiles import Profiles
from events.application.meeple import Meeple
from events.domain.table import Table
from games.text import named
from tests.workers.helpers import confirmed_email, text_of

NAMES = ("alice", "bob", "carol")
# "  3. Place solar, solar, titanium under Capital One  [pick:solar-solar-titanium]"
MOVE_LINE = re.compile(r"^  (\d+)\. (.*)  \[([^\]]+)\]$", re.MULTILINE)


@dataclass
class Mail:
    to: list[str]
    message: EmailMessage

    @property
    def subject(self) -> str:
        # A subject folded right after "Subject:" (the whole value on the next line) keeps
        # the fold's space in the stdlib parser; a mail client shows it without.
        return str(self.message["Subject"]).lstrip()

    @property
    def text(self) -> str:
        return text_of(self.message)  # lines as they came over SMTP, with "\n"

    def is_about(self, game_id: str, event: str) -> bool:
        """Whether the email is about `game_id` (any game if "") for `event`."""
        return (self.message["X-Meeple-Event"] == event
                and (not game_id or self.message["X-Meeple-Game"] == game_id))

    def listed(self) -> list[tuple[int, str]]:
        """(code, move id) of every move the email lists."""
        return [(int(code), move_id) for code, _, move_id in MOVE_LINE.findall(self.text)]


class Provider:
    """The players' mail provider: an SMTP server that keeps every message it receives."""

    def __init__(self) -> None:
        self.mails: list[Mail] = []
        self._lock = threading.Lock()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        message = message_from_bytes(envelope.content, policy=policy.default)
        assert isinstance(message, EmailMessage)
        with self._lock:
            self.mails.append(Mail(list(envelope.rcpt_tos), message))
        return "250 OK"

    def to(self, address: str, since: int = 0) -> list[Mail]:
        with self._lock:
            return [mail for mail in self.mails[since:] if address in mail.to]

    def count(self) -> int:
        with self._lock:
            return len(self.mails)


def run_worker(client: redis.Redis, scheduler: bool = False) -> None:
    """A real RQ worker on our queues until they are empty (with RQ's scheduler: the jobs
    whose time has come are queued first)."""
    queues = [Queue(name, connection=client) for name in ("ai", "scoring", "notify")]
    SimpleWorker(queues, connection=client).work(burst=True, with_scheduler=scheduler)


def people(client: redis.Redis, app: Meeple) -> dict[int, tuple[Player, str]]:
    """alice, bob and carol, each with a confirmed address and email notices; by seat."""
    found = {}
    for seat, name in enumerate(NAMES):
        player, _ = app.players.register(name)
        address = f"{name}@example.org"
        confirmed_email(Profiles(client), player.id, address)
        Profiles(client).update(player.id, {"notify": "email"})
        found[seat] = (player, address)
    return found


def turn_emails(provider: Provider, address: str, since: int = 0,
                game_id: str = "") -> list[Mail]:
    """The turn emails to `address` (about `game_id`, if given) with a reply address."""
    return [mail for mail in provider.to(address, since)
            if mail.is_about(game_id, "your_turn")
            and str(mail.message["Reply-To"] or "").startswith("play+")]


def assert_is_a_turn_email(mail: Mail, table: Table, seat: int) -> None:
    """The email is the turn email of `seat` at the table's version: its headers, its
    subject ("<what happened>, your turn in <title> #<id>" or "Your turn in ..."), its first
    line, and the seat's prompt, seats named as the table names them."""
    assert table.state is not None
    assert mail.is_about(table.id, "your_turn")
    game = f"{table.game.title} #{table.id[:6]}"
    assert mail.subject == f"Your turn in {game}" \
        or mail.subject.endswith(f", your turn in {game}"), mail.subject
    names = table.names()
    first = mail.text.splitlines()[0]
    assert first == (f"{table.game.title}, game {table.id} (version {table.version}). "
                     f"You play {names[seat]} (seat {seat}).")
    prompt = table.game.view(table.state, seat)["prompt"]
    assert prompt and f"\n{named(prompt, names)}\n" in mail.text


def reply(port: int, mail: Mail, sender: str, words: str, mail_from: str | None = None) -> str:
    """Answer `mail` as a mail client does (the codes, then the quoted email), by SMTP to
    `meeple smtpd`; the outcome it answers with ("played", "stale", ...). `mail_from`: the
    envelope sender, if not `sender`."""
    answer = EmailMessage()
    answer["From"] = sender
    answer["To"] = str(mail.message["Reply-To"])
    answer["Subject"] = "Re: " + mail.subject
    answer["In-Reply-To"] = str(mail.message["Message-ID"])
    quoted = "\n".join("> " + line for line in mail.text.splitlines())
    answer.set_content(f"{words}\n\nOn Tue, 1 Dec 2026, Meeple wrote:\n{quoted}\n")
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
        smtp.ehlo()
        smtp.mail(mail_from or sender)
        code, _ = smtp.rcpt(str(mail.message["Reply-To"]))
        assert code == 250
        code, said = smtp.data(answer.as_bytes(policy=policy.SMTP))  # CRLF lines
    assert code == 250, said
    return said.decode().split()[-1]


def sleep_until(moment: float) -> None:
    time.sleep(max(0.0, moment - time.time()))
