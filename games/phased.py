"""What the four hosted games' classes share, so that each says only what is its own.

Every game here keeps its rules as a state machine of named phases: `rules.MOVES[phase]`
lists a seat's legal moves in that phase and `rules.actors` says who is asked to act. Its
view (with `determinize`), its words, its final scoring and its evaluation are modules of
their own. `PhasedGame` answers the `Game` contract (games.contract) from those modules; a
game's class names them and writes `setup` (its options), `turn` and `apply` (how its rules
play a move once it is known to be legal)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from games.contract import Fact, IllegalMove, Move, ScoreSheet, Seat, State, find_move
from games.rng import Rng

if TYPE_CHECKING:
    from games.text import Section


class PhasedRules(Protocol):
    @property
    def MOVES(self) -> Mapping[str, Callable[[State, int], list[Move]]]: ...  # noqa: N802

    def actors(self, state: State) -> set[int]: ...


class Views(Protocol):
    def view(self, state: State, seat: int | None) -> dict[str, Any]: ...

    def determinize(self, state: State, seat: int, rng: Rng) -> State: ...


class Words(Protocol):
    def describe(self, view: dict[str, Any], seat: int | None, names: Sequence[str]
                 ) -> list[Section]: ...


class Scoring(Protocol):
    def score(self, state: State) -> dict[str, Any]: ...


class Evaluation(Protocol):
    def evaluate(self, state: State) -> list[float]: ...


class PhasedGame:
    # The game's modules, named by each game's class.
    RULES: PhasedRules
    VIEWS: Views
    WORDS: Words
    SCORING: Scoring
    EVALUATION: Evaluation

    id: str
    title: str
    min_players: int
    max_players: int
    take_backs: frozenset[str] = frozenset()  # nothing to take back, unless a game says so
    search_tree_depth: int | None = None  # the bots' tree grows as deep as it likes

    def __init__(self, rules_version: str) -> None:
        self.rules_version: str = rules_version

    def __repr__(self) -> str:
        return f"{type(self).__name__}(rules_version={self.rules_version!r})"

    def check_players(self, players: int) -> None:
        if not self.min_players <= players <= self.max_players:
            raise ValueError(f"{self.title} is for {self.min_players} to {self.max_players}"
                             f" players, not {players}")

    def actors(self, state: State) -> set[Seat]:
        return self.RULES.actors(state)

    def legal_moves(self, state: State, seat: Seat) -> list[Move]:
        if seat not in self.RULES.actors(state):
            return []
        return self.RULES.MOVES[state["phase"]](state, seat)

    def play(self, state: State, seat: Seat, move: Move, rng: Rng) -> tuple[State, list[Fact]]:
        if seat not in self.RULES.actors(state):
            raise IllegalMove("not_your_turn", f"seat {seat} is not asked to act now")
        chosen = find_move(self.RULES.MOVES[state["phase"]](state, seat), move)
        return self.apply(state, seat, chosen, rng)

    def apply(self, state: State, seat: Seat, move: Move, rng: Rng) -> tuple[State, list[Fact]]:
        """Play `move`, one of the seat's legal moves (`play` has checked it, or the caller
        took it from `legal_moves`: games.contract)."""
        raise NotImplementedError

    def view(self, state: State, seat: Seat | None) -> dict[str, Any]:
        return self.VIEWS.view(state, seat)

    def describe(self, view: dict[str, Any], seat: Seat | None, names: Sequence[str]
                 ) -> list[Section]:
        return self.WORDS.describe(view, seat, names)

    def is_over(self, state: State) -> bool:
        return bool(state["phase"] == "over")

    def score(self, state: State) -> ScoreSheet:
        return self.SCORING.score(state)

    def determinize(self, state: State, seat: Seat, rng: Rng) -> State:
        return self.VIEWS.determinize(state, seat, rng)

    def evaluate(self, state: State) -> list[float]:
        return self.EVALUATION.evaluate(state)

    def search_value(self, state: State) -> list[float]:
        return self.evaluate(state)  # unless the game has a better one (contract.py)
