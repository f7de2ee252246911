"""What the notification tests share: a webhook receiver, a real RQ worker run, callers
with a profile, one random move."""

from __future__ import annotations

import hashlib
import hmac
import json
import mailbox
import os
import threading
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
    queues = [Queue(name, connection=app.redis) for name in ("ai", "scoring", "notify")]
    SimpleWorker(queues, connection=app.redis).work(burst=True)


def emails(path: Path) -> list[Any]:
    return list(mailbox.Maildir(str(path), create=True)) if path.exists() else []


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
    assert answer.json["email"] == address and answer.json["email_pending"] is None
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


def newly_actors(before: Table | None, after: Table, mover: str) -> set[str]:
    return human_actors(after) - human_actors(before) - {mover}
