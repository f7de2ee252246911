"""Asking for Trobils: hunt Trobils with ships, resources and Connections (see README.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from games.asking_for_trobils import describe, evaluate, rules, view
from games.asking_for_trobils.board import RULES
from games.asking_for_trobils.scoring import score
from games.contract import Fact, IllegalMove, Move, ScoreSheet, Seat, State, find_move
from games.rng import Rng

if TYPE_CHECKING:
    from collections.abc import Sequence

    from marshmallow import Schema

    from games.text import Section


class AskingForTrobils:
    """The game under one rules version (board.RULES; README.md, "Rules versions"). Only
    `setup` reads the version: it marks a version 2 state, and the rules branch on the state
    (board.bumps_while_free), so a table keeps the rules it was dealt with."""

    id: str = "asking-for-trobils"
    title: str = "Asking for Trobils"
    min_players: int = 2
    max_players: int = 7
    take_backs: frozenset[str] = frozenset()  # nothing to take back
    rules_version: str

    @property
    def options(self) -> type[Schema]:
        from games.asking_for_trobils.options import Options  # here: see options.py

        return Options

    def __init__(self, rules_version: str) -> None:
        if rules_version not in RULES:
            raise ValueError(f"{self.title} has rules versions {RULES}, not {rules_version!r}")
        self.rules_version = rules_version

    def __repr__(self) -> str:
        return f"AskingForTrobils({self.rules_version!r})"

    def setup(self, players: int, options: dict[str, Any], rng: Rng) -> State:
        if not self.min_players <= players <= self.max_players:
            raise ValueError(f"{self.title} is for 2 to 7 players, not {players}")
        if set(options) <= {"short_game"} and all(type(v) is bool for v in options.values()):
            short = bool(options.get("short_game", False))  # what the schema would load
        else:
            short = bool(self.options().load(options)["short_game"])
        return rules.setup(players, short, rng, self.rules_version)

    def actors(self, state: State) -> set[Seat]:
        return rules.actors(state)

    def turn(self, state: State, seat: Seat) -> int:
        return 0  # a seat always stops acting between its turns

    def legal_moves(self, state: State, seat: Seat) -> list[Move]:
        if seat not in rules.actors(state):
            return []
        return rules.MOVES[state["phase"]](state, seat)

    def play(self, state: State, seat: Seat, move: Move, rng: Rng) -> tuple[State, list[Fact]]:
        if seat not in rules.actors(state):
            raise IllegalMove("not_your_turn", f"seat {seat} is not asked to act now")
        chosen = find_move(rules.MOVES[state["phase"]](state, seat), move)
        return rules.play(state, seat, chosen, rng)

    def view(self, state: State, seat: Seat | None) -> dict[str, Any]:
        return view.view(state, seat)

    def describe(self, view: dict[str, Any], seat: Seat | None, names: Sequence[str]
                 ) -> list[Section]:
        return describe.describe(view, seat, names)

    def is_over(self, state: State) -> bool:
        return bool(state["phase"] == "over")

    def score(self, state: State) -> ScoreSheet:
        return score(state)

    def determinize(self, state: State, seat: Seat, rng: Rng) -> State:
        return view.determinize(state, seat, rng)

    def evaluate(self, state: State) -> list[float]:
        return evaluate.evaluate(state)


# Oldest first; a game keeps the rules it was created with (games.registry).
# "1": bumping only on a full location; "2": also on Paradise and the Star while a space is free.
VERSIONS: tuple[AskingForTrobils, ...] = (AskingForTrobils("1"), AskingForTrobils("2"))
GAME = VERSIONS[-1]
