"""The `notify` queue's answers to emailed replies that played nothing (events.mail.email_replies):
why, and the player's current moves under a fresh reply token."""

from __future__ import annotations

import os
from email.message import EmailMessage
from email.utils import formatdate
from typing import Any

import structlog

from events.accounts.profiles import Profiles
from events.application.meeple import Meeple
from events.exceptions import GameNotFound
from workers.email_text import header_text, reply_to, turn_lines
from workers.jobs import _app
from workers.notify import _message, deliver_email

log = structlog.get_logger()

SUBJECTS = {
    "forged": "Your emailed reply was not accepted",
    "reused": "Your emailed reply was already used",
    "stale": "Your emailed reply came too late",
    "unreadable": "Your emailed reply could not be read",
}


def answer_reply(to: str, outcome: str, reason: str, game_id: str | None,
                 player_id: str | None, answer_id: str) -> str:
    """Email `to` why their reply played nothing; with the player's current moves in the game
    when the reply was theirs (`player_id`)."""
    app = _app()
    profiles = Profiles(app.redis)
    if profiles.already_sent(answer_id):
        return "already sent"
    message = _current_moves(app, game_id, player_id)
    deliver_email(answer_email(to, outcome, reason, message, answer_id))
    profiles.mark_sent(answer_id)
    return "sent"


def _current_moves(app: Meeple, game_id: str | None, player_id: str | None
                   ) -> dict[str, Any] | None:
    if game_id is None or player_id is None:
        return None
    try:
        table = app.load(game_id)
    except GameNotFound:
        return None
    return _message(table, player_id, "your_turn")


def answer_email(to: str, outcome: str, reason: str, message: dict[str, Any] | None,
                 answer_id: str) -> EmailMessage:
    email = EmailMessage()
    subject = SUBJECTS.get(outcome, "About your emailed reply")
    if message is not None:
        subject += f": {message['title']} (game {message['game_id']})"
    email["Subject"] = header_text(subject)
    email["From"] = os.environ.get("MEEPLE_MAIL_FROM") or "meeple@localhost"
    email["To"] = to
    email["Date"] = formatdate(usegmt=True)
    email["Message-ID"] = f"<{answer_id}@meeple>"
    email["X-Meeple-Delivery"] = answer_id
    email["X-Meeple-Reply-Outcome"] = outcome
    lines = [reason, ""]
    if message is not None and message["moves"]:
        lines += [f"{message['title']}, game {message['game_id']}, version "
                  f"{message['version']}, you are seat {message['seat']}.", "",
                  message["prompt"] or "", "", *turn_lines(message)]
        address = reply_to(message)
        if address:
            email["Reply-To"] = address
    elif message is None:
        lines.append("You have no move to make now; you will get an email when you do.")
    email.set_content("\n".join(lines) + "\n", cte="quoted-printable")
    return email
