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
from html.parser import HTMLParser
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
from games.text import named
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


# --- issue 16: what every email of the game says ---------------------------------------------

CARDS = json.loads((ROOT / "games" / "res_publica" / "cards.json").read_text())["cards"]
CARD_NAMES = sorted((card["name"] for card in CARDS.values()), key=len, reverse=True)
# The data's short ids that are not the printed name ("mining" for "Asteroid Mining"): none
# may appear in an email, which names every card as the rulebook and the moves do.
SHORT_IDS = [key for key, card in CARDS.items() if key != card["name"].lower()]
FIRST_LINE = re.compile(r"^(.+), game (\w+) \(version (\d+)\)\. You play (\w+) \(seat (\d)\)\.$",
                        re.MULTILINE)
NAMES = ["alice", "bob", "carol"]


def cards_in(text: str) -> set[str]:
    """The printed card names in `text`."""
    found = set()
    for name in CARD_NAMES:
        if re.search(rf"\b{re.escape(name)}\b", text):
            found.add(name)
            text = text.replace(name, "")
    return found


def blocks(text: str) -> dict[str, list[str]]:
    """An email's titled blocks, title (no colon) to lines (no indent)."""
    found = {}
    for block in text.split("\n\n"):
        head, *lines = block.strip("\n").split("\n")
        if head.endswith(":") and lines and all(line.startswith("  ") for line in lines):
            found[head[:-1]] = [line[2:] for line in lines]
    return found


class Rendered(HTMLParser):
    """What an HTML part shows: its headings, list items and paragraphs, as text."""

    def __init__(self) -> None:
        super().__init__()
        self.items: list[tuple[str, str]] = []
        self._open: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        assert tag not in ("img", "script", "link"), f"<{tag}> in an email"
        if tag in ("h3", "li", "p"):
            self._open = tag
            self.items.append((tag, ""))

    def handle_endtag(self, tag: str) -> None:
        if tag == self._open:
            self._open = None

    def handle_data(self, data: str) -> None:
        if self._open:
            tag, text = self.items[-1]
            self.items[-1] = (tag, text + data)


def check_thread(message: EmailMessage, game_id: str, player_id: str) -> None:
    """One game is one thread in a mail client; every email can turn the notices off."""
    thread = f"<game-{game_id}-{player_id}@meeple>"
    assert message["In-Reply-To"] == thread and message["References"] == thread
    if message["X-Meeple-Event"] != "reply_answer":
        assert str(message["List-Unsubscribe"]).startswith("<mailto:stop+")
    assert message.get_content_type() == "multipart/alternative"


def check_turn_email(message: EmailMessage, text: str, subject: str, app: Meeple,
                     game_id: str) -> int:
    """The acceptance of issue 16 for one turn email; 1 once checked."""
    first = FIRST_LINE.search(text)
    assert first, text[:300]
    title, _, version, me, seat = first.groups()
    seat_no, version_no = int(seat), int(version)
    assert me == NAMES[seat_no]
    shown = blocks(text)
    # Names, not seats: the reader's own part first, then the other two players by name.
    titles = list(shown)
    assert titles.index(f"You ({me})") < titles.index("Your moves"), titles
    assert all(name in titles for name in NAMES if name != me), titles
    assert not re.search(r"\b[Ss]eat [0-9]\b", text.replace(f"(seat {seat})", ""))
    # It opens with what happened since this seat's last move, as this seat may read it.
    since = [line for line in shown.get("Since your last turn", [])  # the moves' lines
             if line != "The game began." and not line.startswith("(")]
    log = app.events(game_id, 1, version_no)
    last_own = max((e["v"] for e in log if e["type"] == "MovePlayed"
                    and e["data"]["seat"] == seat_no), default=0)
    expected = [named(fact["text"], NAMES) for e in log if e["v"] > last_own
                and e["type"] == "MovePlayed" for fact in e["data"]["facts"]
                if fact["to"] == "all" or seat_no in fact["to"]]
    assert since[-len(expected):] == expected[-len(since):] if expected else not since, (
        since, expected)
    if since:
        assert titles.index("Since your last turn") < titles.index(f"You ({me})")
    # The subject says who did what (the latest move of another player), or only that it is
    # this player's turn.
    assert subject.startswith("Your turn") or any(
        subject.startswith(line.rstrip(".")[:40]) for line in expected), (subject, expected)
    assert subject.lower().endswith(f"your turn in {title} #{game_id[:6]}".lower()), subject
    # One name per card: the hand and the moves spell them alike, never by the data's ids.
    hand = next(line for line in shown[f"You ({me})"] if line.startswith("Hand"))
    moves = "\n".join(line.rsplit("  [", 1)[0] for line in shown["Your moves"])  # labels
    assert not any(re.search(rf"\b{key}\b", hand + moves) for key in SHORT_IDS), hand
    named_in_moves = cards_in(moves)
    assert named_in_moves <= set(CARD_NAMES)
    # The HTML part shows the same: each title a heading, each line an item or paragraph.
    html = message.get_body(preferencelist=("html",))
    assert html is not None
    rendered = Rendered()
    rendered.feed(html.get_content())
    headings = [t for tag, t in rendered.items if tag == "h3"]
    assert headings == titles, (headings, titles)
    items = [" ".join(t.split()) for tag, t in rendered.items if tag == "li"]
    lines = [" ".join(line.split(". ", 1)[1].split()) if title == "Your moves"
             else " ".join(line.split()) for title, block in shown.items() for line in block]
    assert items == lines
    return 1


def check_end_email(message: EmailMessage, table: Any, subject: str) -> None:
    """The end: names, points, the score sheet and where the record is."""
    plain = message.get_body(preferencelist=("plain",))
    assert plain is not None
    text = plain.get_content().replace("\r\n", "\n")
    shown = blocks(text)
    rows = sorted(table.result["seats"], key=lambda row: (row["rank"], row["seat"]))
    assert shown["Final standings"] == [
        f"{row['rank']}. {NAMES[row['seat']]}: {row['total']} points" for row in rows]
    assert all(any(line.startswith(f"{name}: ") for line in shown["Score sheet"])
               for name in NAMES)
    winners = [NAMES[row["seat"]] for row in rows if row["rank"] == 1]
    assert subject.endswith(" won") and all(name in subject for name in winners), subject
    assert f"/v1/games/{table.id}/record" in text


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
    replies = checked = 0
    outcomes: dict[str, int] = {}
    with smtplib.SMTP("127.0.0.1", smtpd_port, timeout=30) as smtp:
        while ended != set(people):
            assert time.monotonic() - started < TIME_LIMIT, f"stuck after {replies} replies"
            received = sink.inbox.get(timeout=30)
            to = received.recipients[0]
            subject = str(received.message["Subject"]).lstrip()  # lstrip: a folded subject
            event = received.message["X-Meeple-Event"]
            assert received.message["X-Meeple-Game"] == table.id, subject
            outcome = received.message.get("X-Meeple-Reply-Outcome")
            if outcome:
                assert event == "reply_answer", (event, subject)
                outcomes[outcome] = outcomes.get(outcome, 0) + 1
            check_thread(received.message, table.id, people[to].id)
            if event == "game_ended":
                assert f"{table.game.title} #{table.id[:6]} has ended" in subject, subject
                check_end_email(received.message, app.load(table.id), subject)
                ended.add(to)
                continue
            if not str(received.message["Reply-To"] or "").startswith("play+"):
                continue  # "you have nothing to do now": no reply possible, none needed
            plain = received.message.get_body(preferencelist=("plain",))
            assert plain is not None
            text = plain.get_content().replace("\r\n", "\n")  # as it came over SMTP
            codes = CODE_LINE.findall(text.split("\nYour moves:\n", 1)[1].split("\n\n")[0])
            assert codes, text
            if event == "your_turn":
                checked += check_turn_email(received.message, text, subject, app, table.id)
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
    assert checked >= len(moves) * 0.9  # nearly every move was answered to a turn email
    record = sign(build_record(table, envelopes, app.store.get_seed(table.id), []))
    report = verify_record(json.loads(json.dumps(record)))
    assert report.ok, [problem.describe() for problem in report.problems]
    print(f"\n{len(moves)} moves by {replies} emailed replies "
          f"({outcomes.get('stale', 0)} stale) in {elapsed:.1f}s")
