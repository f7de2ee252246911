"""The `notify` queue's answers to emailed replies that played nothing (events.mail.email_replies):
why, and the player's current moves under a fresh reply token."""

from __future__ import annotations

from email.message import EmailMessage
from typing import Any

import structlog

from events.accounts.profiles import Profiles
from events.application.meeple import Meeple
from events.exceptions import GameNotFound
from games.text import named, seat_name
from workers import letters
from workers.jobs import _app
from workers.notify import _message, deliver_email

log = structlog.get_logger()

SUBJECTS = {
    "forged": "Your emailed reply was not accepted",
    "reused": "Your emailed reply was already used",
    "stale": "Your emailed reply came too late",
    "unreadable": "Your emailed reply could not be read",
    "wrong_sender": "A reply to your turn email came from another address",
    "stopped": "Meeple will send you no more emails",
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
    deliver_email(answer_email(to, outcome, reason, message, answer_id, game_id))
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
                 answer_id: str, game_id: str | None = None) -> EmailMessage:
    subject = SUBJECTS.get(outcome, "About your emailed reply")
    if message is not None:
        subject += f": {message['title']} {letters.short_id(message['game_id'])}"
    letter = letters.Letter(subject)
    letter.add("", [reason])
    if message is not None and message["moves"]:
        names = letters.names_of(message)
        letter.add("", [f"{message['title']}, game {message['game_id']} (version "
                        f"{message['version']}). You play "
                        f"{seat_name(names, message['seat'])}.",
                        named(message["prompt"] or "", names)])
        letter.blocks += [letters.Block(part["title"], tuple(part["lines"]))
                          for part in message.get("table") or []]
        letters.add_moves(letter, message)
    elif message is None and outcome != "stopped":
        letter.add("", ["You have no move to make now; you will get an email when you do."])
    email = letters.email_message(
        letter, to, answer_id,
        reply_address=letters.reply_to(message) if message and message["moves"] else None,
        game_id=message["game_id"] if message else game_id, event="reply_answer")
    email["X-Meeple-Reply-Outcome"] = outcome
    return email
