"""Moves by email: an emailed reply to a turn email plays the codes it names, all or nothing.

The reply address carries a reply token (`events.mail.reply_tokens`) naming game, seat and the
version the email was written at. A reply is

- forged: no token, a token this server did not sign, or one naming no game or seat;
- reused: its token was used before (each token is used once, whatever the outcome);
- stale: the game moved on since the email (table talk does not count) or the seat has
  nothing to do any more;
- unreadable: no codes, a word that is no code or move id, or a move that is not legal;
- played: every code was played, in one all-or-nothing commit.

A reply from an address other than the seat's player's (a forwarded email) changes nothing
whatever its token (`wrong_sender`), and the player is told at their own address; one whose From
header does not name exactly one address, read strictly, is from nobody and is answered nowhere.
Where the caller knows the SMTP envelope's sender (MAIL FROM), a message whose envelope sender
is not its From address is refused before anything else (`forged`), answered nowhere. A reply to a
table-talk email (a `talk+` address) posts its text at the table (`talked`); an email to a
List-Unsubscribe address (`stop+`) turns the player's notifications off (`stopped`).

Anything but `played` and `talked` changes nothing and is answered by email with the reason
and the current moves under a fresh token; a forged reply only when it comes from a player's
own address, so that strangers get no mail from us. Answers are counted per seat and version in
three budgets (the player's own refused replies, replies from other addresses, reused tokens),
so that strangers and replays never use up the answers the player's own replies get; and the
player's own first refused reply to a notice's token is answered whatever its budget says.
Answers and follow-up turn emails are RQ jobs on the `notify` queue (retried like every
notification), never sent from the caller's thread.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, replace
from email import errors
from email.message import EmailMessage
from typing import Protocol

import redis
import structlog
from rq import Queue, Retry
from rq.job import Job

from events.accounts.profiles import Profiles
from events.application.dispatch import (
    NOTIFY_PLAYER,
    notice_id,
    notice_seat,
    retry_intervals,
)
from events.application.meeple import Meeple, without_hidden_format
from events.domain.table import Status, Table, decide_moves
from events.exceptions import (
    GameNotFound,
    GameOver,
    MeepleError,
    NotYourTurn,
    VersionConflict,
)
from events.mail import reply_tokens
from events.mail.reply_text import (
    MAX_WORDS,
    body_text,
    own_lines,
    parse_message,
    raw_headers,
    reply_words,
)
from games.contract import Move
from games.information import ends_batch

log = structlog.get_logger()

ANSWER_REPLY = "workers.replies.answer_reply"
# A used token is remembered this long; older emails are stale anyway by then.
USED_TTL_SECONDS = 30 * 86400
# Refused replies answered per seat and turn, in each budget; later ones are only logged.
MAX_REFUSALS_PER_TURN = 3
# Times a reply is resolved and played again when another write came first (table talk,
# another seat's pick) before it is called stale.
PLAY_ATTEMPTS = 5
# The budgets: the player's own refused replies, replies from other addresses, reused tokens.
OWN, OTHER_SENDER, REUSED = "own", "other-sender", "reused"
# Defects of a From header that leave its one address intact: "J. Smith <j@x>" (a period in
# the name is obsolete syntax) and a name in raw UTF-8 (bytes the parser calls undecodable).
HARMLESS_FROM_DEFECTS = (errors.ObsoleteHeaderDefect, errors.UndecodableBytesDefect)
RECIPIENT_HEADERS = ("Delivered-To", "X-Original-To", "To", "Cc")
OUTCOMES = ("played", "talked", "stopped", "forged", "reused", "stale", "unreadable",
            "wrong_sender")
_CODE = re.compile(r"[0-9]{1,6}")  # ASCII digits only: str.isdigit() also takes "²"
# A reply is a few KB; a phone's reply with the whole thread quoted in HTML stays well below.
MAX_EMAIL_BYTES = 1024 * 1024
# Table talk by email: the reply's own lines, cut to what a message may hold.
MAX_TALK = 500


@dataclass(frozen=True)
class ReplyResult:
    outcome: str
    reason: str  # in plain words, for the player
    game_id: str | None = None
    seat: int | None = None
    version: int | None = None  # the game's version after handling the reply


class Unreadable(Exception):
    """The reply's words do not name legal moves; the message says why."""


class Mailer(Protocol):
    def answer(self, to: str, result: ReplyResult, player_id: str | None,
               answer_id: str) -> None: ...

    def notify(self, game_id: str, version: int, player_id: str, event: str,
               seat: int | None = None) -> None: ...


class RQMailer:
    """Queues the emails on the `notify` queue, as the dispatcher queues notifications."""

    def __init__(self, client: redis.Redis) -> None:
        self._redis = client
        self.queue = Queue("notify", connection=client)
        intervals = retry_intervals()
        self._retry = Retry(max=len(intervals), interval=intervals) if intervals else None

    def answer(self, to: str, result: ReplyResult, player_id: str | None,
               answer_id: str) -> None:
        self._enqueue(ANSWER_REPLY, answer_id, to, result.outcome, result.reason,
                      result.game_id, player_id, answer_id, result.seat)

    def notify(self, game_id: str, version: int, player_id: str, event: str,
               seat: int | None = None) -> None:
        # The dispatcher's job id and arguments: if it queued the same notice, this adds
        # nothing. `seat` only for a player at several seats (dispatch.notice_seat).
        job_id = notice_id(game_id, version, player_id, seat)
        named = () if seat is None else (seat,)
        self._enqueue(NOTIFY_PLAYER, job_id, game_id, version, player_id, event, *named)

    def _enqueue(self, func: str, job_id: str, *args: object) -> None:
        if Job.exists(job_id, connection=self._redis):
            return
        # RQ logs the description: the job and its id, not the address or the reason.
        self.queue.enqueue(func, *args, job_id=job_id, result_ttl=60, failure_ttl=86400,
                           retry=self._retry, description=f"{func} {job_id}")


class EmailReplies:
    def __init__(self, app: Meeple, secret: bytes, mailer: Mailer,
                 prefix: str = "meeple") -> None:
        self.app = app
        self.secret = secret
        self.mailer = mailer
        self.profiles = Profiles(app.redis, prefix)
        self._prefix = prefix

    def handle(self, raw: bytes, recipients: list[str] | None = None,
               envelope_sender: str | None = None) -> ReplyResult:
        """Act on one raw RFC 5322 reply; `recipients` and `envelope_sender` (MAIL FROM): the
        SMTP envelope's, if known."""
        message = parse_message(raw)
        if envelope_sender is not None and not same_address(envelope_sender,
                                                            sender_of(message)):
            # The From header is what says whose reply it is: a sender that does not stand
            # behind it (its own MAIL FROM differs) is not believed, and gets no mail from us.
            log.warning("email reply refused: the envelope sender is not the From address")
            return ReplyResult("forged", "The envelope sender of this email is not the address "
                                         "in its From header, so nothing was done.")
        # One answer per message: a provider's retry or a replay of the same bytes is not
        # answered again (the worker remembers sent ids for 30 days).
        answer_id = "answer-" + hashlib.sha256(raw).hexdigest()[:24]
        addresses = [*(recipients or []), *raw_headers(message, RECIPIENT_HEADERS)]
        kind, text = reply_tokens.address_in(addresses) or ("play", None)
        token = reply_tokens.read(self.secret, text, kind) if text else None
        if token is None:
            why = ("This email has no reply address of ours" if text is None else
                   "The reply address of this email was not made by this server")
            return self._forged(message, f"{why}, so nothing was played.", answer_id)
        try:
            table = self.app.load(token.game_id)
        except GameNotFound:
            return self._forged(message, "The game of this reply does not exist here.",
                                answer_id)
        placed = table.seat_of(token.seat)
        if placed is None or placed.bot:
            return self._forged(message, "Nobody plays the seat of this reply.", answer_id)
        if kind == "stop":  # anyone holding the email may stop its emails: no sender check
            return self._stop(token, placed.player_id, answer_id)
        own = self.profiles.get(placed.player_id).email
        sender = sender_of(message)
        try:
            if not own or not same_address(sender, own):
                result = self._wrong_sender(token, table, sender)
            elif kind == "talk":
                result = self._talk(message, token, table, placed.player_id)
            else:
                result = self._decide(message, token, table, placed.player_id)
        except MeepleError as err:  # e.g. the game's rules are no longer on this server
            result = ReplyResult("unreadable", f"{err.detail}. Nothing was played.", table.id,
                                 token.seat, table.version)
        log.info("email reply", outcome=result.outcome, game_id=token.game_id,
                 seat=token.seat, token_version=token.version, kind=kind,
                 sender_read=bool(sender))
        if result.outcome in ("played", "talked"):
            # Its answer is the move itself: the same bytes again (a provider's retry after
            # a timeout) are then "reused", and must not be told "nothing was played".
            self.profiles.mark_sent(answer_id)
        elif own and self._answers(result, token, kind, sender, table.version):
            self.mailer.answer(own, result, placed.player_id, answer_id)
        return result

    def _answers(self, result: ReplyResult, token: reply_tokens.ReplyToken, kind: str,
                 sender: str, version: int) -> bool:
        """Whether the player is told of this reply, counted in the budget of its kind."""
        if result.outcome in ("played", "talked"):
            return False
        if result.outcome == "wrong_sender":
            # A From header we could not read names nobody: answering would let anyone
            # have us mail the player about a reply we cannot tell apart from a forgery.
            return bool(sender) and self._within_budget(OTHER_SENDER, token, version)
        if result.outcome == "reused":
            return self._within_budget(REUSED, token, version)
        within = self._within_budget(OWN, token, version)
        # The token of a notice (not of an answer) is refused here for the first time: the
        # player learns why at least once, however many answers went out before.
        first_of_notice = kind == "play" and not self._issued_by_answer(token)
        return within or first_of_notice

    def _within_budget(self, budget: str, token: reply_tokens.ReplyToken, version: int
                       ) -> bool:
        """At most MAX_REFUSALS_PER_TURN replies of a seat are answered per turn in each
        budget: each answer carries a fresh token, and a reply is an attempt, so answering
        without end would let one seat probe without end (or an auto-responder loop)."""
        name = "reply-refused" if budget == OWN else f"reply-refused-{budget}"
        key = f"{self._prefix}:{name}:{token.game_id}:{token.seat}:{version}"
        pipe = self.app.redis.pipeline()
        pipe.incr(key)
        pipe.expire(key, USED_TTL_SECONDS)
        count, _ = pipe.execute()
        return int(count) <= MAX_REFUSALS_PER_TURN

    def _issued_by_answer(self, token: reply_tokens.ReplyToken) -> bool:
        return bool(self.app.redis.exists(answer_token_key(token, self._prefix)))

    # --- outcomes -------------------------------------------------------------------------

    def _decide(self, message: EmailMessage, token: reply_tokens.ReplyToken, table: Table,
                player_id: str) -> ReplyResult:
        at = ReplyResult("", "", table.id, token.seat, table.version)
        words = reply_words(message)  # read before the address is used up: bad bytes lose nothing
        if not self._first_use(token):
            return replace(at, outcome="reused", reason=(
                "This reply's address was used already: each email's codes can be played "
                "once. Nothing was played."))
        for _ in range(PLAY_ATTEMPTS):
            stale = self._staleness(token, table)
            if stale:
                return replace(at, outcome="stale", reason=stale + " Nothing was played.")
            try:
                moves = self._resolve(table, player_id, token.seat, words)
            except Unreadable as why:
                return replace(at, outcome="unreadable", reason=f"{why} Nothing was played.")
            try:
                return self._play(at, table, player_id, moves)
            except VersionConflict:
                # Another write landed between the reading and the append (table talk,
                # another seat's pick): look again, as a reply arriving now would.
                table = self.app.load(table.id)
        return replace(at, outcome="stale", reason=(
            "The game moved on while your reply was on its way. Nothing was played."))

    def _wrong_sender(self, token: reply_tokens.ReplyToken, table: Table, sender: str
                      ) -> ReplyResult:
        """A reply from another address than the player's: its token stays unused, so the
        player can still answer the email themselves."""
        return ReplyResult("wrong_sender", (
            f"A reply to your email about game {table.id} came from "
            f"{sender or 'an address we could not read'}, not from the address your notices "
            "go to, so nothing was done. If it was you, reply from your own address; if you "
            "forwarded the email, whoever has it cannot play for you."),
            table.id, token.seat, table.version)

    def _talk(self, message: EmailMessage, token: reply_tokens.ReplyToken, table: Table,
              player_id: str) -> ReplyResult:
        """A reply to a table-talk email: its own lines (no quote, no signature) are posted."""
        at = ReplyResult("", "", table.id, token.seat, table.version)
        text = without_hidden_format(" ".join(own_lines(body_text(message))))[:MAX_TALK]
        if not text:
            return replace(at, outcome="unreadable", reason=(
                "Your reply held no text of its own (quoted text and your signature are "
                "ignored). Nothing was posted."))
        if not self._first_use(token):
            return replace(at, outcome="reused", reason=(
                "This reply's address was used already: each email can be answered once. "
                "Nothing was posted."))
        posted = self.app.post_message(self.app.players.get(player_id), table.id, text)
        return replace(at, outcome="talked", version=posted.table.version,
                       reason="Your reply was posted at the table.")

    def _stop(self, token: reply_tokens.ReplyToken, player_id: str, answer_id: str
              ) -> ReplyResult:
        """List-Unsubscribe: the player's notifications off, and one last email saying so."""
        before = self.profiles.get(player_id)
        self.profiles.update(player_id, {"notify": "none"})
        result = ReplyResult("stopped", (
            "You will get no more emails from Meeple. To have them again, set \"notify\" "
            "to \"email\" with PATCH /v1/players/me."), token.game_id, token.seat)
        log.info("email reply", outcome="stopped", game_id=token.game_id, seat=token.seat)
        if before.notify == "email" and before.email:
            self.mailer.answer(before.email, result, None, answer_id)
        return result

    def _play(self, at: ReplyResult, table: Table, player_id: str,
              moves: list[Move]) -> ReplyResult:
        assert at.seat is not None
        try:
            played = self.app.play_moves(self.app.players.get(player_id), table.id, moves,
                                         expected_version=table.version, seat=at.seat).table
        except VersionConflict:
            raise  # `_decide` looks again
        except (NotYourTurn, GameOver):
            return replace(at, outcome="stale", reason=(
                "The game moved on while your reply was on its way. Nothing was played."))
        except MeepleError as err:
            return replace(at, outcome="unreadable",
                           reason=f"Your moves were refused: {err.detail}. Nothing was played.")
        # The dispatcher tells nobody of their own move: by email, the mover needs the next
        # turn email (a fresh token) for each of their seats that still or now has to act
        # (a player may hold several: "hot seat"), or the end of the game.
        if played.status is Status.ENDED:
            self.mailer.notify(table.id, played.version, player_id, "game_ended")
        for seat in own_actor_seats(played, player_id):
            self.mailer.notify(table.id, played.version, player_id, "your_turn",
                               notice_seat(played, player_id, seat))
        return replace(at, outcome="played", version=played.version,
                       reason=f"{len(moves)} move(s) played.")

    def _forged(self, message: EmailMessage, reason: str, answer_id: str) -> ReplyResult:
        """Answer only a sender whose address is some player's: never mail a stranger."""
        sender = sender_of(message)
        player_id = self.profiles.player_by_email(sender) if sender else None
        log.info("email reply", outcome="forged", sender_is_player=player_id is not None)
        result = ReplyResult("forged", reason)
        if player_id is not None:
            self.mailer.answer(sender, result, None, answer_id)
        return result

    # --- checks ---------------------------------------------------------------------------

    def _first_use(self, token: reply_tokens.ReplyToken) -> bool:
        key = f"{self._prefix}:reply-used:{token.key}"
        return bool(self.app.redis.set(key, 1, nx=True, ex=USED_TTL_SECONDS))

    def _staleness(self, token: reply_tokens.ReplyToken, table: Table) -> str | None:
        """Why the email this reply answers is out of date, or None if it is current."""
        if table.status is Status.ENDED:
            return "The game has ended."
        if token.version > table.version:
            return "This reply names a version the game never had."
        if token.seat not in table.actors():
            return "Your seat has nothing to do now."
        if token.version < table.version and not self._same_choice(token, table):
            return (f"The game moved on since that email (it was written at version "
                    f"{token.version}; the game is at {table.version}).")
        return None

    def _same_choice(self, token: reply_tokens.ReplyToken, table: Table) -> bool:
        """Whether the codes of the email still mean what they meant: since it was written
        this seat has not moved and its moves are listed exactly as then. Where several seats
        act at once (a secret choice, answers to a trade) another seat's move, or table talk,
        leaves the email good. Both lists are this seat's own, so the answer tells it nothing
        it could not see."""
        later = self.app.events(table.id, token.version + 1, table.version)
        if any(envelope["type"] != "MessagePosted"
               and envelope["data"].get("seat") == token.seat for envelope in later):
            return False
        then = self.app.table_at(table.id, token.version)
        if then.state is None or table.state is None:
            return False
        return bool(then.game.legal_moves(then.state, token.seat)
                    == table.game.legal_moves(table.state, token.seat))

    def _resolve(self, table: Table, player_id: str, seat: int, words: list[str]
                 ) -> list[Move]:
        """The moves the words name. Each word is resolved against the moves legal at its
        point in the sequence, numbered as an email would list them then."""
        if not words:
            raise Unreadable("No codes were found in your reply (quoted text and your "
                             "signature are ignored).")
        if len(words) > MAX_WORDS:
            raise Unreadable(f"A reply may hold at most {MAX_WORDS} codes.")
        seed = self.app.store.get_seed(table.id) or b""
        moves: list[Move] = []
        current = table
        for index, word in enumerate(words, start=1):
            if current.status is not Status.ACTIVE or seat not in current.actors():
                raise Unreadable(f"Your turn ends before '{word}' (word {index}).")
            assert current.state is not None
            legal = current.game.legal_moves(current.state, seat)
            move = pick(legal, word)
            if move is None:
                # Only the first word's list is the one the player saw: say nothing of later
                # ones, which may depend on what the earlier moves drew.
                listed = f" (the email lists codes 1 to {len(legal)})" if index == 1 else ""
                raise Unreadable(f"'{word}' (word {index}) is not one of your moves at that "
                                 f"point{listed}.")
            moves.append({"id": move["id"]})
            if index < len(words):
                # The API's rule for moves sent together: one that shows the player something
                # new must be the last, or what the later codes are answered would tell it.
                if ends_batch(current.game, current.state, seat, move, current.rng_key(seed),
                              current.version + 1):
                    raise Unreadable(f"'{word}' (word {index}) shows you something you cannot "
                                     "know yet (a draw, a hidden card): it must be the last "
                                     "code of a reply. Send the rest once you have seen it.")
                current = decide_moves(current, player_id, seat, [moves[-1]], seed).table
        return moves


def sender_of(message: EmailMessage) -> str:
    """The one address of the one From header, read strictly ("" if there is not exactly
    one, or the header does not parse cleanly). `email.utils.parseaddr` is lenient: it reads
    "bob@example.org <mallory@evil.test>" as bob (CVE-2023-27043), so the header registry
    of `policy.default` reads it here, and a defect beyond HARMLESS_FROM_DEFECTS refuses it."""
    try:
        headers = message.get_all("From") or []
        if len(headers) != 1:
            return ""
        addresses = headers[0].addresses
        defects = headers[0].defects
    except Exception:  # noqa: BLE001 - the header parser raises assorted errors on bad input
        return ""
    if len(addresses) != 1 or any(not isinstance(defect, HARMLESS_FROM_DEFECTS)
                                  for defect in defects):
        return ""
    address: str = addresses[0].addr_spec
    return address if "@" in address else ""


def own_actor_seats(table: Table, player_id: str) -> list[int]:
    """The seats of this player that must act now (none once the game has ended)."""
    return [seat for seat in table.human_actors()
            if (placed := table.seat_of(seat)) is not None and placed.player_id == player_id]


def same_address(one: str, other: str) -> bool:
    """Whether two addresses are one mailbox, in any case ("" is nobody's)."""
    return bool(one) and one.strip().lower() == other.strip().lower()


def answer_token_key(token: reply_tokens.ReplyToken, prefix: str = "meeple") -> str:
    """Where a token written into an answer email (workers.replies) is remembered as such."""
    return f"{prefix}:reply-answer-token:{token.key}"


def remember_answer_token(client: redis.Redis, address: str, prefix: str = "meeple") -> None:
    """Mark the token of an answer's reply address, so that a refused reply to the answer is
    counted in the budget rather than answered anyway (which would never end)."""
    found = reply_tokens.address_in([address])
    if found is None:
        return
    token = reply_tokens.read(reply_tokens.default_secret(), found[1], found[0])
    if token is not None:
        client.set(answer_token_key(token, prefix), 1, ex=USED_TTL_SECONDS)


def pick(legal: list[Move], word: str) -> Move | None:
    """The move a word names: a code (1 = the first legal move) or a move id, in any case."""
    if _CODE.fullmatch(word):
        code = int(word)
        return legal[code - 1] if 1 <= code <= len(legal) else None
    exact = [move for move in legal if move["id"] == word]
    folded = [move for move in legal if str(move["id"]).lower() == word.lower()]
    found = exact or folded
    return found[0] if len(found) == 1 else None


