"""Bot levels, and the move a bot of each level plays: pure functions of what a seat may know.

A level is written as a short id, which is also the bot's player id after "bot:" (so the
leaderboard lists bots by level, and records name each bot's level):
- `random`: a uniformly random legal move;
- `greedy`: one ply, the best evaluation (games.search.ismcts.greedy);
- `ismcts-200ms`, `ismcts-5000it`: information-set search with a budget in milliseconds or
  iterations (`ismcts` alone is `ismcts-200ms`). An iteration budget plays the same move
  on any machine (but for a move cut at MAX_MS, see `_budget`); a time budget plays as well
  as the machine allows.

Every policy sees the seat's knowledge only: the search reads the true state through
`game.determinize` and the seat's own `legal_moves`, never otherwise (tests/games/test_no_peek.py).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass

from games.contract import Game, Move, Seat, State
from games.rng import Rng
from games.search import ismcts

DEFAULT_MS = 200
MAX_MS = 5000  # a bot's move may cost a worker this long at most
MAX_ITERATIONS = 20_000
LEVEL_RULE = ("random, greedy, or ismcts with an optional budget: ismcts-<10 to 5000>ms or "
              "ismcts-<1 to 20000>it (ismcts alone: ismcts-200ms)")
_ISMCTS = re.compile(r"ismcts(?:-(\d{1,6})(ms|it))?")

Clock = Callable[[], float]  # seconds, monotonic (time.monotonic); passed in: the rules read none
FLOOR_MS = 250  # greedy's and an iteration search's moves come no sooner (see `move_floor`)
# A move that takes longer than this share of its time budget has missed it (logged and
# counted by the workers); it is also the floor of a time budget's moves (`move_floor`).
OVER_BUDGET = 1.2


@dataclass(frozen=True)
class Level:
    """How a bot plays: `kind` random, greedy or ismcts; an ismcts budget in `ms` or
    `iterations` (exactly one of them)."""

    kind: str
    ms: int | None = None
    iterations: int | None = None

    @classmethod
    def parse(cls, text: str) -> Level:
        """The level `text` names; ValueError (saying what is allowed) for anything else."""
        if text in ("random", "greedy"):
            return cls(text)
        match = _ISMCTS.fullmatch(text) if isinstance(text, str) else None
        if match is None:
            raise ValueError(f"unknown bot level {text!r}: {LEVEL_RULE}")
        if match[1] is None:
            return cls("ismcts", ms=DEFAULT_MS)
        amount = int(match[1])
        if match[2] == "ms" and 10 <= amount <= MAX_MS:
            return cls("ismcts", ms=amount)
        if match[2] == "it" and 1 <= amount <= MAX_ITERATIONS:
            return cls("ismcts", iterations=amount)
        raise ValueError(f"bot level {text!r} is out of range: {LEVEL_RULE}")

    @property
    def id(self) -> str:
        """The canonical text: `ismcts` is written `ismcts-200ms`."""
        if self.kind != "ismcts":
            return self.kind
        return f"ismcts-{self.ms}ms" if self.ms is not None else f"ismcts-{self.iterations}it"

    @property
    def replays_exactly(self) -> bool:
        """Whether the same game and seed always give the same move (no clock involved)."""
        return self.ms is None


RANDOM = Level("random")
GREEDY = Level("greedy")


def level_of_player(player_id: str) -> Level | None:
    """The level of a bot's player id ("bot:greedy"); None for anyone else. Bots seated before
    levels existed are "bot:random"."""
    if not player_id.startswith("bot:"):
        return None
    try:
        return Level.parse(player_id[len("bot:"):])
    except ValueError:
        return RANDOM


def bot_rng(seed: bytes, version: int, seat: Seat) -> Rng:
    """The bot's own randomness for `seat` at game version `version`: derived from the game
    seed so that simulations replay exactly, under a separate key so that it never repeats
    the game's own draws."""
    return Rng(hashlib.sha256(b"bot/" + seed).digest(), version * 16 + seat)


def random_move(game: Game, state: State, seat: Seat, rng: Rng) -> Move:
    """A uniformly random legal move for `seat`."""
    moves = game.legal_moves(state, seat)
    if not moves:
        raise ValueError(f"seat {seat} has no legal move")
    return rng.choice(moves)


def move_floor(level: Level) -> float:
    """The seconds a bot's move at a table with people must not come sooner than, so that
    when it comes does not tell what the bot's seat holds (a hand with no card of a clan
    leaves one legal move, played at once; greedy's time grows with its choices): for a time
    budget OVER_BUDGET times it, even for a seat's only move (a search with a choice runs
    past its budget by its last iteration: at the budget alone, a move that came later than
    it told a real choice); FLOOR_MS for greedy and an iteration budget (whose longer
    searches still take longer); nothing for random, whose time does not depend on the
    hand."""
    if level.kind == "random":
        return 0.0
    return level.ms * OVER_BUDGET / 1000 if level.ms is not None else FLOOR_MS / 1000


def bot_move(game: Game, state: State, seat: Seat, rng: Rng, level: Level,
             clock: Clock | None = None) -> Move:
    """The move a bot of `level` plays for `seat` (one of the actors). A time budget needs
    `clock`, read only to stop the search."""
    if level.kind == "random":
        return random_move(game, state, seat, rng)
    # Both return a seat's only move at once, without thinking.
    if level.kind == "greedy":
        return ismcts.greedy(game, state, seat, rng, game.evaluate)
    return ismcts.choose(game, state, seat, rng, _budget(level, clock), game.evaluate,
                         value=game.search_value, tree_depth=game.search_tree_depth)


def _budget(level: Level, clock: Clock | None) -> ismcts.Budget:
    """The search's budget. With a clock (a worker, `meeple simulate`), an iteration budget
    also stops at MAX_MS: an iteration's cost grows with the table (a 5-player Res Publica
    iteration plays out some 20 one-ply choices), and 20,000 of them could otherwise hold a
    worker for minutes, past its job's timeout. Only a move cut there depends on the machine."""
    if level.ms is None:
        if clock is None:
            return ismcts.Budget(iterations=level.iterations)
        cap = clock() + MAX_MS / 1000
        return ismcts.Budget(iterations=level.iterations, time_left=lambda: cap - clock())
    if clock is None:
        raise ValueError(f"{level.id} needs a clock")
    stop = clock() + level.ms / 1000
    return ismcts.Budget(time_left=lambda: stop - clock())
