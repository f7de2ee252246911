"""Trappist One: mega-factories, Biocultist ships and a secret simultaneous start (README.md).

Registered in games/registry.py as "trappist-one" (README "Status")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from games.contract import Fact, IllegalMove, Move, ScoreSheet, Seat, State, find_move
from games.rng import Rng
from games.trappist_one import describe, evaluate, rules, scoring, view

if TYPE_CHECKING:
    from collections.abc import Sequence

    from marshmallow import Schema

    from games.text import Section


class TrappistOne:
    id: str = "trappist-one"
    title: str = "Trappist One"
    min_players: int = 2
    max_players: int = 4
    take_backs: frozenset[str] = frozenset()  # nothing to take back

    @property
    def options(self) -> type[Schema]:
        from games.trappist_one.options import Options  # here: see options.py

        return Options

    def __init__(self, rules_version: str) -> None:
        self.rules_version: str = rules_version

    def __repr__(self) -> str:
        return f"TrappistOne(rules_version={self.rules_version!r})"

    def setup(self, players: int, options: dict[str, Any], rng: Rng) -> State:
        if not self.min_players <= players <= self.max_players:
            raise ValueError(f"{self.title} is for 2 to 4 players, not {players}")
        loaded = dict(self.options().load(options)) if options else {}
        return rules.setup(players, loaded, rng)

    def actors(self, state: State) -> set[Seat]:
        return rules.actors(state)

    def turn(self, state: State, seat: Seat) -> int:
        # The last seat to make the starting choice (turn 0) may be the starting player, who
        # acts on in turn 1; every other turn has a break in between.
        return int(state["turn"])

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
        return scoring.score(state)

    def determinize(self, state: State, seat: Seat, rng: Rng) -> State:
        return view.determinize(state, seat, rng)

    def evaluate(self, state: State) -> list[float]:
        return evaluate.evaluate(state)


# Oldest first; a game keeps the rules it was created with (games.registry).
VERSIONS: tuple[TrappistOne, ...] = (TrappistOne("1"),)
GAME = VERSIONS[-1]
