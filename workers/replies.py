"""The `notify` queue's answers to emailed replies that played nothing (events.mail.email_replies):
why, and the player's current moves under a fresh reply token.

An answer about a game is an email of that game like the others: it names the game in its
subject, belongs to the game's thread (In-Reply-To/References) and carries List-Unsubscribe."""

from __future__ import annotations

from dataclasses import dataclass
from email.message import EmailMessage
from typing import Any

import structlog

from events.accounts.profiles import Profiles
from events.application.meeple import Meeple
from events.domain.table import Status, Table
from events.exceptions import GameNotFound
from events.mail.email_replies import remember_answer_token
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


@dataclass(frozen=True)
class AboutGame:
    """The game an answer is about, as the player's seat in it sees it."""

    game_id: str
    title: str
    seat: int
    version: int
    ended: bool
    player_id: str


def answer_reply(to: str, outcome: str, reason: str, game_id: str | None,
                 player_id: str | None, answer_id: str, seat: int | None = None) -> str:
    """Email `to` why their reply played nothing; with the player's current moves in the game
    when the reply was theirs (`player_id`): those of the reply's `seat` when it acts (a
    player may hold several), else of a seat of theirs that does."""
    app = _app()
    profiles = Profiles(app.redis)
    if profiles.already_sent(answer_id):
        return "already sent"
    table = _table(app, game_id)
    message = None
    if table and player_id:
        message = (_message(table, player_id, "your_turn", seat=seat) if seat is not None
                   else None) or _message(table, player_id, "your_turn")
    about = _about(table, player_id, message["seat"] if message else seat) \
        if outcome != "stopped" else None
    email = answer_email(to, outcome, reason, message, answer_id, game_id, about)
    if email["Reply-To"]:
        # A refused reply to this answer is counted, not answered whatever the count.
        remember_answer_token(app.redis, str(email["Reply-To"]))
    deliver_email(email)
    profiles.mark_sent(answer_id)
    return "sent"


def _table(app: Meeple, game_id: str | None) -> Table | None:
    if game_id is None:
        return None
    try:
        return app.load(game_id)
    except GameNotFound:
        return None


def _about(table: Table | None, player_id: str | None, seat: int | None = None
           ) -> AboutGame | None:
    """The game and the player's seat in it: `seat` if it is theirs, else their first."""
    if table is None or player_id is None:
        return None
    seats = [s.seat for s in table.seats if s.player_id == player_id and not s.bot]
    if not seats:
        return None
    return AboutGame(table.id, table.game.title, seat if seat in seats else seats[0],
                     table.version,
                     table.status is Status.ENDED, player_id)


def answer_email(to: str, outcome: str, reason: str, message: dict[str, Any] | None,
                 answer_id: str, game_id: str | None = None,
                 about: AboutGame | None = None) -> EmailMessage:
    subject = SUBJECTS.get(outcome, "About your emailed reply")
    if about is not None:
        subject += f": {about.title} {letters.short_id(about.game_id)}"
    letter = letters.Letter(subject)
    letter.add("", [reason])
    if message is not None and message["moves"]:
        add_current_moves(letter, message)
    elif outcome != "stopped":
        letter.add("", [nothing_to_do(about)])
    email = letters.email_message(
        letter, to, answer_id,
        reply_address=letters.reply_to(message) if message and message["moves"] else None,
        thread=letters.thread_of(about.game_id, about.player_id) if about else None,
        unsubscribe=unsubscribe_address(about),
        game_id=message["game_id"] if message else game_id, event="reply_answer")
    email["X-Meeple-Reply-Outcome"] = outcome
    return email


def add_current_moves(letter: letters.Letter, message: dict[str, Any]) -> None:
    names = letters.names_of(message)
    letter.add("", [f"{message['title']}, game {message['game_id']} (version "
                    f"{message['version']}). You play {seat_name(names, message['seat'])}.",
                    named(message["prompt"] or "", names)])
    letter.blocks += [letters.Block(part["title"], tuple(part["lines"]))
                      for part in message.get("table") or []]
    letters.add_moves(letter, message)


def nothing_to_do(about: AboutGame | None) -> str:
    """Why the answer lists no moves: an ended game is never "your turn" again."""
    if about is not None and about.ended:
        return (f"{about.title}, game {about.game_id}, has ended: nothing more can be played "
                "in it.")
    return "You have no move to make now; you will get an email when you do."


def unsubscribe_address(about: AboutGame | None) -> str | None:
    """A List-Unsubscribe address for the player's seat in the game (no game: none can be
    made, since a stop token names a game and a seat)."""
    if about is None:
        return None
    return letters.reply_to({"game_id": about.game_id, "seat": about.seat,
                             "version": about.version}, "stop")
