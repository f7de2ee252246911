"""The bots never peek at hidden information, in every game (issue 17):

    "a test plays, for every game, the bot on two true states that its seat cannot tell apart
    (same view, same log for that seat, different hidden cards) with the same bot rng and
    iteration budget, and asserts the same move. A mutation test shows this test fails for a
    bot that reads the true state."

Twins: states of random legal games (several seeds, spread from the start to the end, at 2
and at the most players), each with an acting seat that has a choice (more than one legal
move). Its twin is `game.determinize(state, seat, Rng(b"other", k))`: the game's own account
of a true state the seat cannot tell apart from this one. The twins have the same view and
the same legal moves for the seat (checked), and the same log for it: determinize keeps all
that the log has told the seat, which the view need not show. That is why "same log" matters:
Trappist One keeps the cards the public log names (another seat's cargo ships in hand,
hangar and scrapyard, of which the view shows only how many), so a twin holds the very same
ones. Most twins differ from their state in hidden cards (checked too, else the test would
prove nothing).

On each pair, for that seat:
- `determinize` gives the same world for the same rng: equal as JSON text, key order
  included (the search iterates over the state's dicts, so an order that came from the
  hidden cards would steer it as well);
- the bot plays the same move: `ismcts-60it` and `greedy`, each with `Rng(b"bot", 7)`, and
  the same search as a probe (`PROBE`): 8 iterations, each with random moves to the end or
  200 moves, no greedy prior, no greedy playout. The levels' search plays on greedily for
  about a turn before its evaluation, so a hidden card decides its move only now and then
  (before the greedy playout, a peeking ismcts-60it differed on one of the 16 twins of
  Trappist One and of Trajan); the probe's playouts meet the hidden cards (draws, the
  others' hands), so a peeking probe differs on 6 to 9 of the 16 twins of every game.

The mutation test runs the same move check with a peeking bot, whose game hands the search
the true state instead of a determinization: on at least one pair of every game it plays a
different move on the twins, so the check above can fail.

The game contract only: games come from games.registry, states from random legal play.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from functools import cache
from typing import Any, cast

import pytest

from games.bots import Level, bot_move
from games.contract import Game, Move, Seat, State
from games.registry import GAMES
from games.rng import Rng
from games.search.ismcts import Budget, choose
from tests.games import conformance as conf
from tests.games.conformance import first_difference

MAX_MOVES = 5_000  # far more than any of these random games takes
SEEDS = 2  # random games per game and player count
PER_SEED = 4  # twins taken from each game, spread from its first choice to its end
LEVELS = ("ismcts-60it", "greedy")
PROBE = "probe"  # the search with random playouts (see above)
PROBE_ITERATIONS = 8
PROBE_DEPTH = 200
BOT_RNG = (b"bot", 7)
DETERMINIZE_RNG = (b"d", 1)
DIFFERING_SHARE = 0.5  # of the twins, at least this share must differ in hidden parts


def player_counts(game: Game) -> list[int]:
    return sorted({max(2, game.min_players), game.max_players})


CASES = [(game_id, players) for game_id in sorted(GAMES)
         for players in player_counts(GAMES[game_id])]


@dataclass(frozen=True)
class Twins:
    """A state, a seat to act in it with a choice, and a true state it cannot tell apart."""

    state: State
    other: State
    seat: Seat
    where: str


def choosers(game: Game, state: State) -> list[Seat]:
    """The actors with more than one legal move."""
    return [s for s in sorted(game.actors(state)) if len(game.legal_moves(state, s)) > 1]


def playout(game: Game, players: int, seed: bytes) -> list[tuple[State, Seat]]:
    """(state, a seat with a choice in it) at every such step of one random legal game: a
    harness rng picks each actor and its move; the game's randomness is Rng(seed, version)."""
    pick = Rng(b"no-peek/moves/" + seed, 0)
    state = game.setup(players, {}, Rng(seed, 0))
    steps: list[tuple[State, Seat]] = []
    for version in range(1, MAX_MOVES + 1):
        if game.is_over(state):
            return steps
        seats = choosers(game, state)
        if seats:
            steps.append((state, pick.choice(seats)))
        seat = pick.choice(sorted(game.actors(state)))
        state, _ = game.play(state, seat, pick.choice(game.legal_moves(state, seat)),
                             Rng(seed, version))
    raise AssertionError(f"{game.id} with {players} players did not end in {MAX_MOVES} moves")


@cache
def twins(game_id: str, players: int) -> tuple[Twins, ...]:
    game = GAMES[game_id]
    found: list[Twins] = []
    for n in range(SEEDS):
        seed = f"no-peek/{game_id}/{players}/{n}".encode()
        steps = playout(game, players, seed)
        assert len(steps) >= PER_SEED, f"{game_id}: too few choices in a game"
        for i in range(PER_SEED):
            # The games' choices cut in SEEDS * PER_SEED equal parts, from the very first one:
            # each game takes every SEEDS-th cut, each from another offset.
            index = (SEEDS * i + n) * len(steps) // (SEEDS * PER_SEED)
            state, seat = steps[index]
            other = game.determinize(state, seat, Rng(b"other", len(found)))
            found.append(Twins(state, other, seat, f"seed {n}, choice {index} of {len(steps)}, "
                                                   f"seat {seat}"))
    return tuple(found)


def as_text(value: Any) -> str:
    return json.dumps(value, allow_nan=False)


def bot(game: Game, state: State, seat: Seat, level: str) -> Move:
    if level == PROBE:
        return choose(game, state, seat, Rng(*BOT_RNG), Budget(iterations=PROBE_ITERATIONS),
                      game.evaluate, playout=0, depth=PROBE_DEPTH, prior=0)
    return bot_move(game, state, seat, Rng(*BOT_RNG), Level.parse(level))


def moves_differ(game: Game, pair: Twins) -> list[str]:
    """The levels (and the probe) whose bot plays different moves on the twins (none: it
    cannot tell them apart)."""
    return [level for level in (*LEVELS, PROBE)
            if bot(game, pair.state, pair.seat, level)["id"]
            != bot(game, pair.other, pair.seat, level)["id"]]


# -- the twins look the same to the seat ---------------------------------------------------------


@pytest.mark.parametrize(("game_id", "players"), CASES)
def test_twins_look_the_same_and_differ_in_hidden_parts(game_id: str, players: int) -> None:
    game = GAMES[game_id]
    pairs = twins(game_id, players)
    for pair in pairs:
        shown, twin_shown = game.view(pair.state, pair.seat), game.view(pair.other, pair.seat)
        assert twin_shown == shown, (f"{pair.where}: the twin shows the seat something else "
                                     f"({first_difference(twin_shown, shown)})")
        legal = game.legal_moves(pair.state, pair.seat)
        assert game.legal_moves(pair.other, pair.seat) == legal, (
            f"{pair.where}: the seat's legal moves differ in the twin")
    differing = sum(pair.other != pair.state for pair in pairs)
    assert differing >= DIFFERING_SHARE * len(pairs), (
        f"only {differing} of {len(pairs)} twins differ in hidden parts: the test proves little")


# -- what the bots read of the true state is the same in both ------------------------------------


@pytest.mark.parametrize(("game_id", "players"), CASES)
def test_determinize_depends_on_the_seats_knowledge_alone(game_id: str, players: int) -> None:
    game = GAMES[game_id]
    for pair in twins(game_id, players):
        world = game.determinize(pair.state, pair.seat, Rng(*DETERMINIZE_RNG))
        twin_world = game.determinize(pair.other, pair.seat, Rng(*DETERMINIZE_RNG))
        assert world == twin_world, (f"{pair.where}: determinize differs on the twins "
                                     f"({first_difference(world, twin_world)})")
        assert as_text(world) == as_text(twin_world), (
            f"{pair.where}: determinize orders a dict by hidden cards")


@pytest.mark.parametrize(("game_id", "players"), CASES)
def test_determinize_for_a_seat_that_does_not_act_depends_on_its_knowledge_alone(
        game_id: str, players: int) -> None:
    """The contract holds for every seat, not only the one a bot plays: on the same states,
    each other seat gets a twin of its own (a true state it cannot tell apart) and the same
    worlds on both (Trajan's watching seats once got the loader's true hand)."""
    game = GAMES[game_id]
    for n, pair in enumerate(twins(game_id, players)):
        for seat in [s for s in range(players) if s != pair.seat]:
            other = game.determinize(pair.state, seat, Rng(b"other seat", n))
            assert game.view(other, seat) == game.view(pair.state, seat), pair.where
            world = game.determinize(pair.state, seat, Rng(*DETERMINIZE_RNG))
            assert as_text(world) == as_text(
                game.determinize(other, seat, Rng(*DETERMINIZE_RNG))), (
                f"{pair.where}: determinize for seat {seat} differs on its twins")


@pytest.mark.parametrize(("game_id", "players"), CASES)
def test_the_bot_plays_the_same_move_on_twins(game_id: str, players: int) -> None:
    game = GAMES[game_id]
    told_apart = [(pair.where, levels) for pair in twins(game_id, players)
                  if (levels := moves_differ(game, pair))]
    assert not told_apart, f"the bot tells twins apart: {told_apart}"


# -- the mutation: a bot that reads the true state is caught ---------------------------------------


class Peeking:
    """The mutant: `game`'s rules, but its 'determinization' is the true state itself, so the
    search (and greedy) play on the true hidden cards."""

    def __init__(self, game: Game) -> None:
        self._game = game

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)

    def determinize(self, state: State, seat: Seat, rng: Rng) -> State:
        return copy.deepcopy(state)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_peeking_bot_is_caught(game_id: str) -> None:
    """The move check above fails for the peeker on at least one pair of the game's twins."""
    peeker = cast(Game, Peeking(GAMES[game_id]))
    pairs = [pair for players in player_counts(GAMES[game_id])
             for pair in twins(game_id, players) if pair.other != pair.state]
    assert any(moves_differ(peeker, pair) for pair in pairs), (
        f"{game_id}: a bot that reads the true state plays the same moves on all "
        f"{len(pairs)} twins: the test cannot tell it from a fair one")


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_determinize_of_a_finished_game_keeps_what_its_views_show(game_id: str) -> None:
    """Once a game is over its views show what was hidden (every hand): a world a seat
    cannot tell from the real one keeps it, the contract's "same view" (Trajan's and
    Trappist One's re-dealt the hands they show; outside audits)."""
    game = GAMES[game_id]
    playout = conf.Playout(game, 2, b"finished " + game_id.encode())
    for _ in playout:
        pass
    final = playout.state
    assert game.is_over(final)
    for seat in range(2):
        for n in range(3):
            world = game.determinize(final, seat, Rng(b"over", n))
            for viewer in (0, 1, None):
                assert game.view(world, viewer) == game.view(final, viewer), (seat, viewer)
