"""Trappist One: mega-factories, Biocultist ships and a secret simultaneous start (README.md).

Registered in games/registry.py as "trappist-one" (README "Status")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from games.contract import Fact, Move, Seat, State
from games.phased import PhasedGame
from games.rng import Rng
from games.trappist_one import describe, evaluate, rules, scoring, view

if TYPE_CHECKING:
    from marshmallow import Schema


class TrappistOne(PhasedGame):
    id = "trappist-one"
    title = "Trappist One"
    min_players = 2
    max_players = 4
    RULES = rules
    VIEWS = view
    WORDS = describe
    SCORING = scoring
    EVALUATION = evaluate

    @property
    def options(self) -> type[Schema]:
        from games.trappist_one.options import Options  # here: see options.py

        return Options

    def setup(self, players: int, options: dict[str, Any], rng: Rng) -> State:
        self.check_players(players)
        loaded = dict(self.options().load(options)) if options else {}
        return rules.setup(players, loaded, rng, self.rules_version)

    def turn(self, state: State, seat: Seat) -> int:
        # The last seat to make the starting choice (turn 0) may be the starting player, who
        # acts on in turn 1; every other turn has a break in between.
        return int(state["turn"])

    def apply(self, state: State, seat: Seat, move: Move, rng: Rng) -> tuple[State, list[Fact]]:
        return rules.play(state, seat, move, rng)


# Oldest first; a game keeps the rules it was created with (games.registry).
VERSIONS: tuple[TrappistOne, ...] = (TrappistOne("1"), TrappistOne("2"))
GAME = VERSIONS[-1]
