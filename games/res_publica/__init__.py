"""Res Publica 2230 AD: trade and display Race and Technology cards (see README.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from games.contract import Fact, IllegalMove, Move, ScoreSheet, Seat, State, find_move
from games.res_publica import describe, evaluate, rules, view
from games.rng import Rng
from games.text import Section

if TYPE_CHECKING:
    from marshmallow import Schema


class ResPublica:
    """The game under one rules version: "1" (as first hosted) or "2" (the rules as printed,
    README "Rules versions"). The version is written into the state at setup, so the rules
    code follows the state it is given."""

    id: str = "res-publica-2230ad"
    title: str = "Res Publica 2230 AD"
    min_players: int = 2
    max_players: int = 5
    take_backs: frozenset[str] = frozenset({"cancel"})

    @property
    def options(self) -> type[Schema]:
        from games.res_publica.options import Options  # here: see options.py

        return Options

    def __init__(self, rules_version: str) -> None:
        self.rules_version: str = rules_version

    def __repr__(self) -> str:
        return f"ResPublica(rules_version={self.rules_version!r})"

    def setup(self, players: int, options: dict[str, Any], rng: Rng) -> State:
        if not self.min_players <= players <= self.max_players:
            raise ValueError(f"{self.title} is for 2 to 5 players, not {players}")
        if options != {}:  # none is always valid, and needs no schema
            self.options().load(options)
        return rules.setup(players, rng, int(self.rules_version))

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
        return rules.play(state, seat, chosen)

    def view(self, state: State, seat: Seat | None) -> dict[str, Any]:
        return view.view(state, seat)

    def describe(self, view: dict[str, Any], seat: Seat | None, names: Sequence[str]
                 ) -> list[Section]:
        return describe.describe(view, seat, names)

    def is_over(self, state: State) -> bool:
        return bool(state["phase"] == "over")

    def score(self, state: State) -> ScoreSheet:
        return rules.score(state)

    def determinize(self, state: State, seat: Seat, rng: Rng) -> State:
        return view.determinize(state, seat, rng)

    def evaluate(self, state: State) -> list[float]:
        return evaluate.evaluate(state)


# Oldest first; a game keeps the rules it was created with (games.registry).
VERSIONS: tuple[ResPublica, ...] = (ResPublica("1"), ResPublica("2"))
GAME = VERSIONS[-1]
