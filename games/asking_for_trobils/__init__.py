"""Asking for Trobils: hunt Trobils with ships, resources and Connections (see README.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from games.asking_for_trobils import describe, evaluate, rules, scoring, view
from games.asking_for_trobils.board import RULES as RULES_VERSIONS
from games.contract import Fact, Move, Seat, State
from games.phased import PhasedGame
from games.rng import Rng

if TYPE_CHECKING:
    from marshmallow import Schema


class AskingForTrobils(PhasedGame):
    """The game under one rules version (one of board.RULES; README.md, "Rules versions").
    Only `setup` reads the version: it marks a version 2 or 3 state, and the rules branch on
    the state (board.bumps_while_free, board.ties_as_lists), so a table keeps the rules it was
    dealt with."""

    id = "asking-for-trobils"
    title = "Asking for Trobils"
    min_players = 2
    max_players = 7
    RULES = rules
    VIEWS = view
    WORDS = describe
    SCORING = scoring
    EVALUATION = evaluate

    @property
    def options(self) -> type[Schema]:
        from games.asking_for_trobils.options import Options  # here: see options.py

        return Options

    def __init__(self, rules_version: str) -> None:
        if rules_version not in RULES_VERSIONS:
            raise ValueError(
                f"{self.title} has rules versions {RULES_VERSIONS}, not {rules_version!r}")
        super().__init__(rules_version)

    def setup(self, players: int, options: dict[str, Any], rng: Rng) -> State:
        self.check_players(players)
        if set(options) <= {"short_game"} and all(type(v) is bool for v in options.values()):
            short = bool(options.get("short_game", False))  # what the schema would load
        else:
            short = bool(self.options().load(options)["short_game"])
        return rules.setup(players, short, rng, self.rules_version)

    def turn(self, state: State, seat: Seat) -> int:
        return 0  # a seat always stops acting between its turns

    def apply(self, state: State, seat: Seat, move: Move, rng: Rng) -> tuple[State, list[Fact]]:
        return rules.play(state, seat, move, rng)


# Oldest first; a game keeps the rules it was created with (games.registry).
# "1": bumping only on a full location; "2": also on Paradise and the Star while a space is free;
# "3": as "2", and seats sharing a rank are one list in the score sheet's ranking.
VERSIONS: tuple[AskingForTrobils, ...] = tuple(AskingForTrobils(v) for v in RULES_VERSIONS)
GAME = VERSIONS[-1]
