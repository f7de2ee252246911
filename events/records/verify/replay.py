"""Check 6, re-execution: the events against the rules, from setup to the end. Setup with the
seed at GameStarted (which must come exactly when the last seat is taken), then every move
with its random stream: its seat must be an actor, its id a legal move, its facts exactly
the ones the rules produce; GameEnded exactly when the game is over, with the rules' score
sheet (resigned seats last); after SeedRevealed, nothing but one GameScored (older records).
A game that deals by seats (GameCreated "dealing": "seats") is keyed by the seed and every
seat's contribution (games.rng.seats_key), re-derived here. The streams are numbered as
GameCreated says: with "draws": "moves", the setup's is 0 and a move's its number among the
moves; without, the version of the event (games.rng.setup_stream, move_stream).
Check 7 (deadlines.py) runs along, event by event."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from events.domain.deadlines import rank_resigned_last
from events.records.verify.deadlines import Deadlines
from events.records.verify.fields import is_int
from events.records.verify.paths import cut, described, first_difference, json_path
from events.records.verify.verification import Verification
from games.contract import Game, State
from games.rng import DRAWS_BY_MOVE, SEAT_SEED, Rng, move_stream, seats_key, setup_stream

SYSTEM_EVENTS = ("GameCreated", "GameStarted", "GameEnded", "SeedRevealed", "GameScored",
                 "TurnTimedOut")
# Carried in a record but not derived from the rules: the verifier can only count them.
NOT_REDERIVED = {
    "GameScored": "ratings depend on other games; carried, not re-derived",
    "MessagePosted": "table talk; carried, not re-derived",
}
Handler = Callable[[int, dict[str, Any]], bool]  # False stops the re-execution


def replay(v: Verification, game: Game, created: dict[str, Any], seed: bytes) -> None:
    """Re-execute the record's events; what was re-executed goes into `v.checked`."""
    seats = created["seats"]
    if not game.min_players <= seats <= game.max_players:
        # Also what keeps the run's cost bounded: free seats are listed in problems.
        v.findings.add("replay", "events[0].data.seats", f"{game.title} is played by "
                       f"{game.min_players} to {game.max_players}: cannot re-execute",
                       expected=[game.min_players, game.max_players], found=seats)
        return
    Replay(v, game, created, seed).run()


class Replay:
    """The rules' state and the table's as the events are re-executed one by one."""

    def __init__(self, verification: Verification, game: Game, created: dict[str, Any],
                 seed: bytes) -> None:
        self.v = verification
        self.add = verification.findings.add  # short: most of what follows reports problems
        self.add_difference = verification.findings.add_difference
        self.game = game
        self.seed = seed
        self.key = seed  # the rng's key: the seed, or with every seat's contribution
        self.dealing = created.get("dealing", "")
        self.draws = created.get("draws", "")  # "moves": streams numbered by the moves
        self.seat_seeds: dict[int, str] = {}
        self.seat_count: int = created["seats"]
        self.options: dict[str, Any] = created["options"]
        self.players: dict[int, str] = {}  # seat -> player id
        self.bots: set[int] = set()
        self.deadlines = Deadlines(verification.findings, created.get("deadline"))
        self.state: State | None = None
        self.ended_at: int | None = None
        self.revealed_at: int | None = None
        self.scored_at: int | None = None  # an older record's GameScored after SeedRevealed
        self.moves = 0  # the moves re-executed, so far: the MovePlayed events before this one
        self.facts = 0
        self.carried: dict[str, int] = {}
        self.handlers: dict[str, Handler] = {
            "GameCreated": self.created, "SeatTaken": self.seat_taken,
            "GameStarted": self.started, "MovePlayed": self.move, "GameEnded": self.ended,
            "SeedRevealed": self.seed_revealed, "GameScored": self.carried_event,
            "MessagePosted": self.carried_event, "TurnTimedOut": self.deadlines.timed_out,
            "PlayerResigned": self.player_resigned,
        }

    def run(self) -> None:
        # all() stops at the first event that stops the re-execution.
        finished = all(self.step(index, envelope) for index, envelope in enumerate(self.v.events))
        if finished:
            self.check_end()
        self.v.checked.update({
            "moves_reexecuted": self.moves, "facts_compared": self.facts,
            "not_rederived": {kind: f"{count} × {NOT_REDERIVED[kind]}"
                              for kind, count in self.carried.items()},
            "reexecuted_to_the_end": finished,
            # What the deal follows (docs/records.md, section 5): a reader who relies on a
            # seed of her own, or on draws nobody can shift, sees whether this record has them.
            "randomness": {"dealing": "seats" if self.dealing == "seats" else "seed",
                           "draws": "moves" if self.draws == DRAWS_BY_MOVE else "versions"},
        })

    def step(self, index: int, envelope: Any) -> bool:
        """One event checked and the state moved on; False stops the re-execution."""
        if not self.v.usable[index]:
            self.stop(index, "this event is malformed")
            return False
        self.check_author(index, envelope)
        if not self.expect_nothing_after_the_end(index, envelope["type"]):
            return False
        if not self.expect_start(index, envelope["type"]) or \
                not self.expect_end(index, envelope["type"]):
            return False
        if not self.deadlines.expect_resignation(index, envelope):
            return False
        if not self.handlers.get(envelope["type"], self.unknown)(index, envelope):
            return False
        self.tick(envelope)
        return True

    def stop(self, index: int, why: str) -> None:
        self.add("replay", json_path("events", index),
                 f"re-execution stops at version {index + 1}: {why}")

    def path(self, index: int, *keys: str | int) -> str:
        return json_path("events", index, *keys)

    def check_author(self, index: int, envelope: dict[str, Any]) -> None:
        kind, by = envelope["type"], envelope["by"]
        expected: str | None = "system" if kind in SYSTEM_EVENTS else None
        data = envelope["data"]
        if kind == "SeatTaken" and isinstance(data.get("player_id"), str):
            expected = data["player_id"]
        elif kind == "MovePlayed" and is_int(data.get("seat")):
            seat = data["seat"]
            # A resigned seat is its bot's to the end; a timed-out one may come back.
            bot_plays = seat in self.deadlines.resigned or (
                by == "system" and self.deadlines.played_by_system(seat))
            expected = "system" if bot_plays else self.players.get(seat)
        elif kind == "MessagePosted" and is_int(data.get("seat")):
            if data["seat"] in self.bots:
                # A bot holds no API key: no server writes its table talk (which, in a game
                # numbered by versions, would move every later draw unseen).
                self.add("replay", self.path(index, "data", "seat"), "table talk by a bot's "
                         "seat: no server writes it (a bot posts nothing)", found=data["seat"])
                return
            expected = self.players.get(data["seat"])  # a player posts under its own seat
        elif kind == "PlayerResigned" and is_int(data.get("seat")):
            timed_out = self.deadlines.must_resign == data["seat"]
            expected = "system" if timed_out else self.players.get(data["seat"])
        if expected is not None and by != expected:
            self.add("replay", self.path(index, "by"), f"a {kind} event is written by "
                     f"{'the system' if expected == 'system' else 'the seat’s player'}",
                     expected=expected, found=by)

    def expect_nothing_after_the_end(self, index: int, kind: str) -> bool:
        """A record ends at SeedRevealed; one signed before that rule may carry one
        GameScored after it (docs/records.md, section 1), and one whose draws are numbered
        by versions (made before session 38) the table talk after the end too: servers
        then put the whole log in the record. Nothing else."""
        if self.revealed_at is None or (kind == "GameScored" and self.scored_at is None):
            return True
        if kind == "MessagePosted" and self.draws != DRAWS_BY_MOVE:
            return True
        self.add("replay", self.path(index, "type"), "a record ends at SeedRevealed "
                 f"(events[{self.revealed_at}]); an older one may carry one GameScored after "
                 "it, and one without \"draws\": \"moves\" table talk, and nothing else",
                 found=kind)
        return False

    def expect_end(self, index: int, kind: str) -> bool:
        """Over by the rules: GameEnded must come now (the server appends it with the move
        that ends the game, so no resignation or table talk comes in between)."""
        over = self.state is not None and self.ended_at is None and self.game.is_over(self.state)
        if over and kind != "GameEnded":
            self.add("replay", self.path(index, "type"), "the game is over by the rules: "
                     "GameEnded must come now", expected="GameEnded", found=kind)
            return False
        return True

    def expect_start(self, index: int, kind: str) -> bool:
        """GameStarted must follow the SeatTaken that fills the table, at once."""
        full = self.state is None and len(self.players) == self.seat_count
        if full and kind != "GameStarted":
            self.add("replay", self.path(index, "type"), "every seat is taken: GameStarted "
                     "must come now", expected="GameStarted", found=kind)
            return False
        return True

    # -- handlers: False stops the re-execution ---------------------------------------------

    def created(self, index: int, envelope: dict[str, Any]) -> bool:
        if index != 0:
            self.add("replay", self.path(index, "type"), "GameCreated comes once, first")
            return False
        if self.dealing not in ("", "seats"):
            self.add("replay", self.path(index, "data", "dealing"), "unknown dealing",
                     expected="seats", found=self.dealing)
            return False
        if self.draws not in ("", DRAWS_BY_MOVE):
            self.add("replay", self.path(index, "data", "draws"), "unknown draws",
                     expected=DRAWS_BY_MOVE, found=self.draws)
            return False
        return True

    def seat_taken(self, index: int, envelope: dict[str, Any]) -> bool:
        data = envelope["data"]
        seat = data.get("seat")
        if self.state is not None:
            self.add("replay", self.path(index, "type"), "a seat is taken after the start")
            return False
        if not is_int(seat) or not 0 <= seat < self.seat_count or seat in self.players:
            free = [s for s in range(self.seat_count) if s not in self.players]
            self.add("replay", self.path(index, "data", "seat"), "is not a free seat",
                     expected=free, found=seat)
            return False
        if not isinstance(data.get("player_id"), str):
            self.add("replay", self.path(index, "data", "player_id"), "must be a string")
            return False
        if not self.seat_seed(index, seat, data):
            return False
        self.players[seat] = data["player_id"]
        if data.get("bot") is True:
            self.bots.add(seat)
        return True

    def seat_seed(self, index: int, seat: int, data: dict[str, Any]) -> bool:
        """A game that deals by seats has each seat's contribution; others have none."""
        contribution = data.get("seed")
        if self.dealing != "seats":
            if "seed" in data:
                self.add("replay", self.path(index, "data", "seed"), "this game does not deal "
                         "by seats (GameCreated has no dealing): a seat brings no seed")
                return False
            return True
        if not isinstance(contribution, str) or not re.fullmatch(SEAT_SEED, contribution):
            self.add("replay", self.path(index, "data", "seed"), "a seat of a game that deals "
                     "by seats brings a seed of 1 to 64 letters, digits, '-' or '_'",
                     found=contribution)
            return False
        self.seat_seeds[seat] = contribution
        return True

    def started(self, index: int, envelope: dict[str, Any]) -> bool:
        if self.state is not None or len(self.players) != self.seat_count:
            free = [s for s in range(self.seat_count) if s not in self.players]
            self.add("replay", self.path(index, "type"), "GameStarted comes exactly when the "
                     f"last seat is taken (free seats: {free})", found="GameStarted")
            return False
        if self.dealing == "seats":
            self.key = seats_key(self.seed, [self.seat_seeds[s] for s in range(self.seat_count)])
        rng = Rng(self.key, setup_stream(self.draws, index + 1))
        try:
            self.state = self.game.setup(self.seat_count, self.options, rng)
        except Exception as error:  # noqa: BLE001 - the rules refuse this setup
            self.stop(index, f"the rules cannot set this game up: {_described(error)}")
            return False
        return True

    def move(self, index: int, envelope: dict[str, Any]) -> bool:
        state = self.playable_state(index)
        if state is None:
            return False
        data = envelope["data"]
        seat, move, facts = data.get("seat"), data.get("move"), data.get("facts")
        if not self.move_shape(index, data):
            return False
        actors = sorted(self.game.actors(state))
        if seat not in actors:
            self.add("replay", self.path(index, "data", "seat"), "this seat is not asked to "
                     "act at this point", expected=actors, found=seat)
            return False
        try:
            # play() refuses a move that is not legal (games.contract), so the legal moves
            # are listed only then: listing them before every move was a fifth of the time.
            rng = Rng(self.key, move_stream(self.draws, index + 1, self.moves))
            self.state, produced = self.game.play(state, seat, {"id": move["id"]}, rng)
        except Exception as error:  # noqa: BLE001 - a rules bug must not hide the report
            legal = [m["id"] for m in self.game.legal_moves(state, seat)]
            if move["id"] not in legal:
                self.add("replay", self.path(index, "data", "move", "id"), f"illegal move for "
                         f"seat {seat}; the legal ones are listed", expected=legal,
                         found=move["id"])
            else:
                self.stop(index, f"the rules failed on this move: {described(error)}")
            return False
        self.moves += 1
        self.facts += len(produced)
        difference = first_difference(produced, facts, self.path(index, "data", "facts"))
        if difference:
            self.add_difference("replay", difference, "the recorded facts are not what the "
                                "rules produce for this move")
        return True  # go on from the rules' state: later moves are checked against it

    def playable_state(self, index: int) -> State | None:
        if self.state is None:
            self.add("replay", self.path(index, "type"), "a move before the game started")
        elif self.ended_at is not None:
            self.add("replay", self.path(index, "type"), "a move after GameEnded "
                     f"(events[{self.ended_at}])")
        else:
            return self.state
        return None

    def move_shape(self, index: int, data: dict[str, Any]) -> bool:
        fine = True
        if not is_int(data.get("seat")):
            self.add("format", self.path(index, "data", "seat"), "must be a seat number")
            fine = False
        move = data.get("move")
        if not isinstance(move, dict) or set(move) != {"id"} or not isinstance(move["id"], str):
            self.add("format", self.path(index, "data", "move"), 'a recorded move is '
                     '{"id": "<move id>"}', found=move)
            fine = False
        if not isinstance(data.get("facts"), list):
            self.add("format", self.path(index, "data", "facts"), "must be a list of facts")
            fine = False
        extra = sorted(set(data) - {"seat", "move", "facts"})
        if extra:
            self.add("format", self.path(index, "data", extra[0]), "is not a field of a move")
        return fine

    def ended(self, index: int, envelope: dict[str, Any]) -> bool:
        if self.state is None or self.ended_at is not None:
            self.add("replay", self.path(index, "type"), "GameEnded comes once, after the "
                     "game started")
            return False
        if not self.game.is_over(self.state):
            self.add("replay", self.path(index, "type"), "the game is not over by the rules "
                     "at this point", found="GameEnded",
                     expected=sorted(self.game.actors(self.state)))
            return False
        self.ended_at = index
        scores, path = envelope["data"].get("scores"), self.path(index, "data", "scores")
        sheet = self.game.score(self.state)
        difference = first_difference(rank_resigned_last(sheet, self.deadlines.resigned),
                                      scores, path)
        if difference and not first_difference(  # as servers wrote it before ties grouped
                rank_resigned_last(sheet, self.deadlines.resigned, group_ties=False),
                scores, path):
            difference = None
        if difference:
            self.add_difference("replay", difference,
                                "the recorded scores are not the rules' score sheet")
        return True

    def seed_revealed(self, index: int, envelope: dict[str, Any]) -> bool:
        if self.ended_at is None or index != self.ended_at + 1:
            self.add("replay", self.path(index, "type"), "SeedRevealed comes right after "
                     "GameEnded, once")
        else:
            self.revealed_at = index
        return True  # the seed itself is check 5's

    def carried_event(self, index: int, envelope: dict[str, Any]) -> bool:
        kind = envelope["type"]
        self.carried[kind] = self.carried.get(kind, 0) + 1
        if kind == "GameScored":
            if self.revealed_at is None:
                self.add("replay", self.path(index, "type"), "GameScored comes after the end")
            else:
                self.scored_at = index
        return True

    def player_resigned(self, index: int, envelope: dict[str, Any]) -> bool:
        return self.deadlines.resign(index, envelope, self.may_resign)

    def unknown(self, index: int, envelope: dict[str, Any]) -> bool:
        self.add("replay", self.path(index, "type"), "an event type this code does not "
                 "know: it cannot be checked", found=envelope["type"])
        return True

    # -- what check 7 needs to know of the game ------------------------------------------------

    def may_resign(self, seat: int) -> bool:
        playing = self.state is not None and self.ended_at is None
        return playing and seat in self.players and seat not in self.bots

    def human_actors(self) -> list[int]:
        if self.state is None or self.ended_at is not None or self.game.is_over(self.state):
            return []
        return sorted(seat for seat in self.game.actors(self.state)
                      if seat not in self.bots and seat not in self.deadlines.resigned)

    def tick(self, envelope: dict[str, Any]) -> None:
        if self.deadlines.rule is None or envelope["type"] == "MessagePosted":
            return  # no clocks to keep, and table talk moves none
        acting = self.human_actors()
        if self.state is None or self.ended_at is not None:
            turns: dict[int, int] = {}
        else:
            turns = {seat: self.game.turn(self.state, seat)
                     for seat in self.game.actors(self.state)}
        self.deadlines.tick(envelope, acting, turns)

    def check_end(self) -> None:
        if self.state is not None and self.ended_at is None and self.game.is_over(self.state):
            self.add("replay", "events", "the game is over by the rules after the last event, "
                     "but no GameEnded follows", expected="GameEnded")


def _described(error: Exception) -> str:
    """The error, the same at every run: the options schema's messages are a dict in the
    order of a set of field names, which PYTHONHASHSEED changes from run to run."""
    messages = getattr(error, "messages", None)
    if isinstance(messages, dict):
        listed = "; ".join(f"{name}: {messages[name]}" for name in sorted(messages, key=str))
        return cut(f"{type(error).__name__}({listed})")
    return described(error)
