"""Res Publica 2230 AD: trade and display Race and Technology cards (see README.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from games.contract import Fact, Move, Seat, State
from games.phased import PhasedGame
from games.res_publica import describe, evaluate, rules, view, win_chance
from games.rng import Rng

if TYPE_CHECKING:
    from marshmallow import Schema


class ResPublica(PhasedGame):
    """The game under one rules version (README "Rules versions"): "1" (as first hosted), "2"
    (the rules as printed), "3" (an "or" names as many cards on each side), "4" (an answer
    once begun is given, not passed; draw options count what they draw) or "5" (as "4", and
    seats sharing a rank are one list in the score sheet's ranking). The version is written
    into the state at setup, so the rules code follows the state it is given."""

    id = "res-publica-2230ad"
    title = "Res Publica 2230 AD"
    min_players = 2
    max_players = 5
    take_backs = frozenset({"cancel"})
    # The bots' tree is the root's moves alone: deeper, UCB1's exploration of poor moves
    # weighs in its nodes' means where the values differ by hundredths, and more search
    # played worse (bench/README.md, session 41).
    search_tree_depth: int | None = 1
    RULES = rules
    VIEWS = view
    WORDS = describe
    SCORING = rules  # the final scoring is short enough to stay with the rules
    EVALUATION = evaluate

    @property
    def options(self) -> type[Schema]:
        from games.res_publica.options import Options  # here: see options.py

        return Options

    def setup(self, players: int, options: dict[str, Any], rng: Rng) -> State:
        self.check_players(players)
        if options != {}:  # none is always valid, and needs no schema
            self.options().load(options)
        return rules.setup(players, rng, int(self.rules_version))

    def turn(self, state: State, seat: Seat) -> int:
        return 0  # a seat always stops acting between its turns

    def apply(self, state: State, seat: Seat, move: Move, rng: Rng) -> tuple[State, list[Fact]]:
        return rules.play(state, seat, move)  # no chance after the deal: the rng goes unused

    def search_value(self, state: State) -> list[float]:
        # At two players, the chance to win fitted to games (win_chance.py).
        return win_chance.win_chance(state)


# Oldest first; a game keeps the rules it was created with (games.registry).
# "5" plays and deals as "4"; only its score sheet groups tied seats (board.ties_as_lists).
VERSIONS: tuple[ResPublica, ...] = (
    ResPublica("1"), ResPublica("2"), ResPublica("3"), ResPublica("4"), ResPublica("5"),
)
GAME = VERSIONS[-1]
