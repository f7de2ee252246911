"""The one interface every game implements (DESIGN §2).

A game is a pure, deterministic state machine: no I/O, no clock, no
`random`. State is plain JSON-able data (dicts, lists, str, int, bool, None);
`play` never mutates the state it is given. Randomness comes only from the
`rng` argument (see `games.rng`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Protocol, TypedDict, runtime_checkable

if TYPE_CHECKING:  # the rules need no marshmallow to run: `meeple verify` loads none
    from collections.abc import Sequence

    from marshmallow import Schema

    from games.text import Section

from games.rng import Rng

Seat = int
State = dict[str, Any]
# A move is a small JSON object: {"id": "<unique at this point>", "label": "<human text>",
# ...optional structured fields for clients}. A client may send just {"id": ...};
# `play` looks the id up among `legal_moves`, so the id alone decides.
Move = dict[str, Any]
# A score sheet: {"ranking": [...], "seats": [{"seat", "total", "breakdown", "rank", ...}]}
ScoreSheet = dict[str, Any]


class Fact(TypedDict):
    """One line of the game log. `to` is "all" or the seats allowed to read it."""

    text: str
    data: dict[str, Any]
    to: Literal["all"] | list[int]


class IllegalMove(Exception):
    """The move is not legal for this seat now. `code` is stable and machine-readable."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(f"{code}: {detail}")
        self.code = code
        self.detail = detail


@runtime_checkable
class Game(Protocol):
    id: str
    title: str
    min_players: int
    max_players: int
    rules_version: str
    # The kinds of move that only take back the mover's own unfinished choice (Res Publica's
    # "cancel" of a trade draft or of a New Colony's use): a thinking bot never plays one
    # while anything else is legal, or it could choose and take back for ever.
    take_backs: frozenset[str]
    # How many moves deep the bots' search tree grows (None: no limit); below it, greedy
    # playouts (games.search.ismcts). Res Publica's is 1 (bench/README.md, session 41).
    search_tree_depth: int | None

    @property
    def options(self) -> type[Schema]:
        """The variants a table may choose (a marshmallow schema)."""
        ...

    def setup(self, players: int, options: dict[str, Any], rng: Rng) -> State: ...

    def actors(self, state: State) -> set[Seat]: ...

    def turn(self, state: State, seat: Seat) -> int:
        """Which turn of `seat` this is, as a number that changes when the seat begins a new
        turn without ceasing to act (Trappist One: the last to make the secret starting
        choice is the starting player, whose first turn follows at once). The platform gives
        each turn its own clock and a timed-out turn's bot plays that turn only. A game whose
        seats always stop acting between turns may answer 0."""
        ...

    def legal_moves(self, state: State, seat: Seat) -> list[Move]: ...

    def play(self, state: State, seat: Seat, move: Move, rng: Rng) -> tuple[State, list[Fact]]:
        """The state after `move`, and its facts. Raises IllegalMove for any move that is not
        one of legal_moves(state, seat) (test_conformance holds every game to it; `meeple
        verify` relies on it)."""
        ...

    def apply(self, state: State, seat: Seat, move: Move, rng: Rng) -> tuple[State, list[Fact]]:
        """`play` for a move that is one of legal_moves(state, seat), the very dict, unchecked
        (the same state and facts as `play`). The bots' search plays thousands of moves a
        second that it has just listed for that state; checking one lists them all again.
        Anything else (a client's move, a record's) goes through `play`."""
        ...

    def view(self, state: State, seat: Seat | None) -> dict[str, Any]: ...

    def describe(self, view: dict[str, Any], seat: Seat | None, names: Sequence[str]
                 ) -> list[Section]:
        """The table in words, from `view` (what `view(state, seat)` gave) alone: the seat's
        own holdings first, then each other seat by name (`names[seat]`), then the boards
        and what is on offer, each card named as the moves name it (games.text)."""
        ...

    def is_over(self, state: State) -> bool: ...

    def score(self, state: State) -> ScoreSheet: ...

    def determinize(self, state: State, seat: Seat, rng: Rng) -> State:
        """A full state `seat` cannot tell from `state` (same view, same log for it), its
        hidden parts dealt anew by `rng` from what the seat knows alone: two states the seat
        cannot tell apart give the same result for the same rng (the bots' search relies
        on it: tests/games/test_no_peek.py)."""
        ...

    def evaluate(self, state: State) -> list[float]:
        """Each seat's expected final standing in [0, 1] (1: sure to win), estimated from
        the board: greedy chooses by it, and so do the search's playouts (games.standings)."""
        ...

    def search_value(self, state: State) -> list[float]:
        """What a position the bots' search reaches is worth to each seat, in [0, 1]: its
        cut-off playouts, and its first look one move ahead, are scored by it. `evaluate`
        unless the game has a better one (Res Publica at two players: win_chance.py)."""
        ...


def find_move(legal: list[Move], move: Move) -> Move:
    """The legal move the client meant, by id; IllegalMove if there is none."""
    wanted = move.get("id") if isinstance(move, dict) else None
    if not isinstance(wanted, str):
        raise IllegalMove("bad_move", "a move is an object with a string 'id'")
    for candidate in legal:
        if candidate["id"] == wanted:
            # A client may echo the whole listed move; any field it sends must match.
            differing = sorted(k for k, v in move.items() if candidate.get(k) != v)
            if differing:
                raise IllegalMove(
                    "move_mismatch", f"'{wanted}' is legal, but not with these {differing}"
                )
            return candidate
    raise IllegalMove("illegal_move", f"'{wanted}' is not a legal move now")


def fact(text: str, to: Literal["all"] | list[int] = "all", **data: Any) -> Fact:
    return {"text": text, "data": data, "to": to}
