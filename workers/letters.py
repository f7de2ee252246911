"""What each email says (issue 16), written once and sent twice: as plain text and as HTML
(multipart/alternative; the HTML for mail clients, no remote images, no scripts).

A `Letter` is a subject and blocks of lines. The turn email opens with what happened since
the seat's last turn, then the table in the game's own words (`Game.describe`, the same
sections `GET /v1/games/{id}/table` and `meeple replay` show), the numbered moves and how to
reply. Every email of one game to one player is one thread in a mail client
(`In-Reply-To`/`References` name the game's thread) and carries `List-Unsubscribe`.
"""

from __future__ import annotations

import html
import os
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import formatdate
from typing import Any

from events.mail import reply_tokens
from games.text import named, seat_name

HOW_TO_REPLY = (
    "Reply with the codes of your moves: one code plays one move; several codes (one per "
    "line, or separated by spaces or commas) are played in order, all or nothing, each "
    "numbered as the moves legal at its point would be listed. A move id (e.g. `done`) "
    "works too. Quoted text and your signature are ignored. Only a reply from your own "
    "address is played.")
STOP = ("To stop these emails, send any email to the List-Unsubscribe address of this one, "
        "or set \"notify\" to \"none\" with PATCH /v1/players/me.")
SUBJECT_NEWS_LENGTH = 60


@dataclass(frozen=True)
class Block:
    """A titled list of lines ("Your moves"), or, untitled, paragraphs."""

    title: str
    lines: tuple[str, ...]
    numbered: bool = False  # the lines are "<code>. <text>" items (the moves)


@dataclass
class Letter:
    subject: str
    blocks: list[Block] = field(default_factory=list)

    def add(self, title: str, lines: Sequence[str], numbered: bool = False) -> None:
        if lines:
            self.blocks.append(Block(title, tuple(lines), numbered))

    def text(self) -> str:
        parts = []
        for block in self.blocks:
            if block.title:
                parts.append("\n".join([block.title + ":", *(f"  {line}" for line in block.lines)]))
            else:
                parts.append("\n\n".join(block.lines))
        return "\n\n".join(parts) + "\n"

    def html(self) -> str:
        body = []
        for block in self.blocks:
            if not block.title:
                body += [f"<p>{html.escape(line)}</p>" for line in block.lines]
                continue
            body.append(f"<h3>{html.escape(block.title)}</h3>")
            tag = "ol" if block.numbered else "ul"
            items = [html.escape(line.split(". ", 1)[1] if block.numbered else line)
                     for line in block.lines]
            body.append(f"<{tag}>" + "".join(f"<li>{item}</li>" for item in items) + f"</{tag}>")
        return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
                f"<title>{html.escape(self.subject)}</title></head>\n"
                "<body style=\"font-family: sans-serif; max-width: 40em\">\n"
                + "\n".join(body) + "\n</body></html>\n")


# --- turn, end and table-talk emails --------------------------------------------------------


def short_id(game_id: str) -> str:
    return "#" + game_id[:6]


def names_of(message: dict[str, Any]) -> list[str]:
    return list(message.get("names") or [])


def turn_letter(message: dict[str, Any]) -> Letter:
    """`your_turn` and `deadline_reminder`: news, the table, the moves, how to reply."""
    names, seat = names_of(message), message["seat"]
    game = f"{message['title']} {short_id(message['game_id'])}"
    if message["event"] == "deadline_reminder":
        subject = f"Reminder: your move in {game} is due at {message['due_at']}"
    elif message.get("news"):
        news = message["news"].rstrip(".")
        news = news if len(news) <= SUBJECT_NEWS_LENGTH else news[:57] + "..."
        subject = f"{news}, your turn in {game}"
    else:
        subject = f"Your turn in {game}"
    letter = Letter(subject)
    letter.add("", [f"{message['title']}, game {message['game_id']} (version "
                    f"{message['version']}). You play {seat_name(names, seat)} (seat {seat}).",
                    named(message.get("prompt") or "", names)])
    if message.get("due_at"):
        then = ("a bot plays this turn for you" if message.get("on_expiry") == "bot"
                else "your seat resigns: a bot plays it on, and it ranks last")
        letter.add("", [f"Your move is due at {message['due_at']}; after that, {then}."])
    letter.add("Since your last turn", message.get("since") or [])
    letter.blocks += [Block(part["title"], tuple(part["lines"]))
                      for part in message.get("table") or []]
    add_moves(letter, message)
    letter.add("", [STOP])
    return letter


def add_moves(letter: Letter, message: dict[str, Any]) -> None:
    """The numbered moves (a reply's codes) and how to reply with them."""
    if not message["moves"]:
        return
    names = names_of(message)
    letter.add("Your moves", [
        f"{move['code']}. {named(str(move.get('label') or move['id']), names)}  [{move['id']}]"
        for move in message["moves"]], numbered=True)
    letter.add("", [HOW_TO_REPLY])


def ended_letter(message: dict[str, Any]) -> Letter:
    """`game_ended`: who won, each seat's points and breakdown, the record's address."""
    names = names_of(message)
    sheet = message.get("result") or {}
    rows = sorted(sheet.get("seats", []), key=lambda row: (row.get("rank", 0), row["seat"]))
    winners = [seat_name(names, row["seat"]) for row in rows if row.get("rank") == 1]
    game = f"{message['title']} {short_id(message['game_id'])}"
    won = f": {' and '.join(winners)} won" if winners else ""
    letter = Letter(f"{game} has ended{won}")
    letter.add("", [f"{message['title']}, game {message['game_id']}, has ended."])
    letter.add("Final standings", [
        f"{row.get('rank')}. {seat_name(names, row['seat'])}: {row.get('total')} points"
        for row in rows])
    letter.add("Score sheet", [f"{seat_name(names, row['seat'])}: {breakdown(row)}"
                               for row in rows if row.get("breakdown")])
    link = f"{public_url()}/v1/games/{message['game_id']}/record"
    letter.add("", [f"The signed record of the game, to replay or verify offline "
                    f"(`meeple verify`): {link}", STOP])
    return letter


def breakdown(row: dict[str, Any]) -> str:
    parts = row.get("breakdown") or {}
    if isinstance(parts, dict):
        return ", ".join(f"{key.replace('_', ' ')} {value}" for key, value in parts.items())
    return str(parts)


def talk_letter(message: dict[str, Any]) -> Letter:
    """`message`: who wrote what at the table; a reply is posted at the table."""
    game = f"{message['title']} {short_id(message['game_id'])}"
    letter = Letter(f"{message['from_name']} wrote at the table of {game}")
    letter.add("", [f"{message['from_name']} wrote at the table of {message['title']}, game "
                    f"{message['game_id']}:", f"\u201c{message['text']}\u201d",
                    "Reply to this email to answer at the table (your reply's first lines, "
                    "up to 500 characters, without the quoted text).", STOP])
    return letter


# --- the email itself -----------------------------------------------------------------------


def email_message(letter: Letter, to: str, delivery: str, *,
                  reply_address: str | None = None, thread: str | None = None,
                  unsubscribe: str | None = None, game_id: str | None = None,
                  event: str | None = None) -> EmailMessage:
    """The letter as a multipart/alternative email (plain text first, then HTML). The
    X-Meeple-Game and X-Meeple-Event headers let mail filters (and tests) sort them."""
    email = EmailMessage()
    email["Subject"] = header_text(letter.subject)
    email["From"] = os.environ.get("MEEPLE_MAIL_FROM") or "meeple@localhost"
    email["To"] = to
    email["Date"] = formatdate(usegmt=True)
    email["Message-ID"] = f"<{delivery}@meeple>"  # the same on a retry: one message
    email["X-Meeple-Delivery"] = delivery
    if game_id:
        email["X-Meeple-Game"] = game_id
    if event:
        email["X-Meeple-Event"] = event
    if reply_address:
        email["Reply-To"] = reply_address
    if thread:
        email["In-Reply-To"] = thread
        email["References"] = thread
    if unsubscribe:
        email["List-Unsubscribe"] = f"<mailto:{unsubscribe}?subject=unsubscribe>"
    email.set_content(letter.text(), cte="quoted-printable")
    email.add_alternative(letter.html(), subtype="html", cte="quoted-printable")
    return email


def thread_of(game_id: str, player_id: str) -> str:
    """The Message-ID every email of this game to this player refers to."""
    return f"<game-{game_id}-{player_id}@meeple>"


def reply_to(message: dict[str, Any], kind: str = "play") -> str | None:
    """A new reply address for this seat at this version (each email gets its own token);
    None for a game id that no address can carry (only imported games have such ids)."""
    try:
        token = reply_tokens.issue(reply_tokens.default_secret(), message["game_id"],
                                   message["seat"], message["version"], kind)
    except ValueError:
        return None
    return reply_tokens.reply_address(token, kind=kind)


def public_url() -> str:
    """Where players reach the API (MEEPLE_PUBLIC_URL), for links in emails."""
    return (os.environ.get("MEEPLE_PUBLIC_URL") or "http://127.0.0.1:8000").rstrip("/")


def header_text(text: str) -> str:
    """`text` fit for a header: control, format and line-separator characters (a CR/LF, a
    U+2028 in a player's name or a prompt) become spaces, so no value can start a header
    of its own or break the message; the email library encodes what is not ASCII."""
    cleaned = "".join(" " if unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp") else char
                      for char in text)
    return " ".join(cleaned.split())
