"""Trajan: the mancala of action markers, six actions, quarters and the people's demands
(README.md).

Registered in games/registry.py as "trajan" (README "Status")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from games.contract import Fact, Move, Seat, State
from games.phased import PhasedGame
from games.rng import Rng
from games.trajan import describe, evaluate, rules, scoring, view

if TYPE_CHECKING:
    from marshmallow import Schema


class Trajan(PhasedGame):
    id = "trajan"
    title = "Trajan"
    min_players = 2
    max_players = 4
    RULES = rules
    VIEWS = view
    WORDS = describe
    SCORING = scoring
    EVALUATION = evaluate

    @property
    def options(self) -> type[Schema]:
        from games.trajan.options import Options  # here: see options.py

        return Options

    def setup(self, players: int, options: dict[str, Any], rng: Rng) -> State:
        self.check_players(players)
        if options:
            self.options().load(options)  # no options: anything named is refused
        return rules.setup(players, rng, self.rules_version)

    def turn(self, state: State, seat: Seat) -> int:
        # Counts every turn (setup steps and the senate's bonus choice included): a seat that
        # acts on, e.g. the senate's winner who is also the next player, starts a new one.
        return int(state["turn"])

    def apply(self, state: State, seat: Seat, move: Move, rng: Rng) -> tuple[State, list[Fact]]:
        return rules.play(state, seat, move, rng)


# Oldest first; a game keeps the rules it was created with (games.registry).
VERSIONS: tuple[Trajan, ...] = (Trajan("1"), Trajan("2"))
GAME = VERSIONS[-1]
