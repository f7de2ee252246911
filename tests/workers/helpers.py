"""What the notification tests share: a webhook receiver, a real RQ worker run, callers
with a profile, one random move, and reading the emails (workers/letters.py) as a mail
client does."""

from __future__ import annotations

import hashlib
import hmac
import json
import mailbox
import os
import threading
from email import message_from_bytes, policy
from email.message import EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from flask import Flask
from rq import Queue, SimpleWorker

from events.accounts.players import Player
from events.accounts.profiles import Profiles
from events.application.dispatch import human_actors
from events.application.meeple import Meeple
from events.domain.table import Table
from games.bots import random_move
from games.rng import Rng
from tests.responses import body_of
from tests.service.conftest import Caller


class Receiver:
    """A webhook endpoint on a free port: answers the statuses in `script` in turn (then 200)
    and records every request."""

    def __init__(self, script: list[int] | None = None) -> None:
        self.script = list(script or [])
        self.requests: list[tuple[dict[str, str], bytes, int]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the http.server API)
                body = self.rfile.read(int(self.headers["Content-Length"]))
                status = receiver.script.pop(0) if receiver.script else 200
                receiver.requests.append((dict(self.headers), body, status))
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def delivered(self) -> list[dict[str, Any]]:
        """The payloads answered 2xx, after checking every request's signature."""
        return [json.loads(body) for _, body, status in self.requests if status < 300]

    def check_signatures(self, secret: str) -> None:
        for headers, body, _ in self.requests:
            expected = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
            assert hmac.compare_digest(headers["X-Meeple-Signature"], expected)
            assert headers["X-Meeple-Delivery"].startswith(("notify-", "digest-"))


def run_worker(app: Meeple) -> None:
    queues = [Queue(name, connection=app.redis)
              for name in ("ai", "scoring", "notify", "webhooks")]
    SimpleWorker(queues, connection=app.redis).work(burst=True)


def emails(path: Path) -> list[EmailMessage]:
    """The emails in the maildir at `path`, oldest delivery first, parsed as a mail client
    does (`policy.default`: `get_body`, headers as text)."""
    if not path.exists():
        return []
    box = mailbox.Maildir(str(path), create=True)
    keys = sorted(box.keys(), key=lambda key: box[key].get_date())
    return [parsed(box.get_bytes(key)) for key in keys]


def parsed(raw: bytes) -> EmailMessage:
    message = message_from_bytes(raw, policy=policy.default)
    assert isinstance(message, EmailMessage)
    return message


def text_of(message: EmailMessage) -> str:
    """The plain-text part of an email (every email is multipart/alternative, text first);
    lines end in "\n", as they came in a maildir or over SMTP."""
    body = message.get_body(preferencelist=("plain",))
    assert body is not None and body.get_content_type() == "text/plain"
    content: str = body.get_content()
    return content.replace("\r\n", "\n")


def html_of(message: EmailMessage) -> str:
    """The HTML part of an email."""
    body = message.get_body(preferencelist=("html",))
    assert body is not None and body.get_content_type() == "text/html"
    content: str = body.get_content()
    return content.replace("\r\n", "\n")


def sections(text: str) -> dict[str, list[str]]:
    """The titled blocks of an email's text ("You (alice)", "bob", "Since your last turn",
    "Your moves", the game's boards): each title, without its colon, to its lines, without
    their first indent. Untitled paragraphs are left out."""
    found: dict[str, list[str]] = {}
    for block in text.split("\n\n"):
        head, *lines = block.strip("\n").split("\n")
        if head.endswith(":") and not head.startswith(" ") and lines \
                and all(line.startswith("  ") for line in lines):
            assert head[:-1] not in found, f"two sections {head!r}"
            found[head[:-1]] = [line[2:] for line in lines]
    return found


def of_game(messages: list[EmailMessage], game_id: str, event: str) -> list[EmailMessage]:
    """The emails about `game_id` for `event` ("your_turn", "deadline_reminder",
    "game_ended", "message", "reply_answer"), by their X-Meeple-Game and X-Meeple-Event."""
    return [m for m in messages
            if m["X-Meeple-Game"] == game_id and m["X-Meeple-Event"] == event]


def caller(flask_app: Flask, name: str, **profile: Any) -> tuple[Caller, Player, Any]:
    """A registered player with `profile`; an email address in it is confirmed as a person
    would, with the code mailed to it (that email is then taken out of the maildir)."""
    who = Caller(flask_app.test_client(), name)
    answer = who.client.patch("/v1/players/me", json=profile, headers=who.headers)
    assert answer.status_code == 200, answer.json
    if profile.get("email"):
        answer = confirm_by_code(flask_app, who, profile["email"])
    return who, Player(who.id, name), answer.json


def confirm_by_code(flask_app: Flask, who: Caller, address: str) -> Any:
    """Run the notify queue, read the code mailed to `address`, enter it, drop that email."""
    run_worker(flask_app.extensions["meeple"])
    box = mailbox.Maildir(os.environ["MEEPLE_MAILDIR"], create=True)
    key, mail = next((key, mail) for key, mail in box.items()
                     if mail["To"] == address and "confirmation code" in mail["Subject"])
    code = str(mail["Subject"]).rsplit(" ", 1)[1]
    box.remove(key)
    answer = who.client.post("/v1/players/me/email/confirm", json={"code": code},
                             headers=who.headers)
    assert answer.status_code == 200, answer.json
    profile = body_of(answer)
    assert profile["email"] == address and profile["email_pending"] is None
    return answer


def confirmed_email(profiles: Profiles, player_id: str, address: str) -> None:
    """Give a player a confirmed address straight in the store (for tests of other things)."""
    code = profiles.request_email(player_id, address)
    if code is not None:
        profiles.confirm_email(player_id, code)


def one_move(app: Meeple, table: Table, seat: int, players: dict[int, Player],
             rng: Rng) -> Table:
    assert table.state is not None
    move = random_move(table.game, table.state, seat, rng)
    return app.play_moves(players[seat], table.id, [move], table.version, seat).table


def first_legal_move(table: Table, seat: int) -> dict[str, Any]:
    """The first move `seat` may play now: a move its player could pick."""
    assert table.state is not None, "not started"
    return table.game.legal_moves(table.state, seat)[0]


def newly_actors(before: Table | None, after: Table, mover: str) -> set[str]:
    return human_actors(after) - human_actors(before) - {mover}
