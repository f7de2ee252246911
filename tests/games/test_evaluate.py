"""The bots' evaluation (issue 17): every game's `evaluate(state)`, each seat's expected final
standing in [0, 1], held to its promises on random legal games, 2 to max players:
- one float in [0, 1] per seat, at every state, and on the states `determinize` samples;
- deterministic, and it changes nothing in the state it is given;
- at the end it agrees with the score sheet: the seats ranked first get the highest value, a
  better rank always a higher value, a shared rank the same value;
- a seat given a clear material lead mid-game (an edited copy of a real mid-game state) is
  valued higher than before.
"""

from __future__ import annotations

import copy
import json
import random
from functools import cache
from typing import Any, Protocol, runtime_checkable

import pytest

from games.contract import Game, State
from games.registry import GAMES, RULES
from games.rng import Rng

CASES = [(game_id, players) for game_id in sorted(GAMES)
         for players in range(GAMES[game_id].min_players, GAMES[game_id].max_players + 1)]
MAX_MOVES = 5_000  # far more than any of these random games takes


def seed_of(game_id: str, players: int) -> bytes:
    return f"evaluate/{game_id}/{players}".encode()


@cache
def playout(game_id: str, players: int) -> tuple[State, ...]:
    """Every state of one random legal game, from setup to the end: a seeded `random.Random`
    picks an actor and one of its legal moves; the game's randomness is `Rng(seed, version)`."""
    game = GAMES[game_id]
    seed = seed_of(game_id, players)
    pick = random.Random(seed)
    state = game.setup(players, {}, Rng(seed, 0))
    states = [state]
    for version in range(1, MAX_MOVES + 1):
        if game.is_over(state):
            return tuple(states)
        seat = pick.choice(sorted(game.actors(state)))
        move = pick.choice(game.legal_moves(state, seat))
        state, _ = game.play(state, seat, move, Rng(seed, version))
        states.append(state)
    raise AssertionError(f"{game_id} with {players} players did not end in {MAX_MOVES} moves")


@runtime_checkable
class Evaluates(Protocol):
    def evaluate(self, state: State) -> list[float]: ...


def evaluate(game: Game, state: State) -> list[float]:
    assert isinstance(game, Evaluates), f"{game!r} has no evaluate"
    return game.evaluate(state)


def assert_values(game: Game, state: State) -> list[float]:
    values = evaluate(game, state)
    assert isinstance(values, list) and len(values) == state["players"], values
    assert all(type(v) is float and 0.0 <= v <= 1.0 for v in values), values
    return list(values)


@pytest.mark.parametrize(("game_id", "players"), CASES)
def test_values_in_range_deterministic_and_pure(game_id: str, players: int) -> None:
    game = GAMES[game_id]
    states = playout(game_id, players)
    for index, state in enumerate(states):
        values = assert_values(game, state)
        if index % 10 == 0:
            before = json.dumps(state, sort_keys=True)
            assert evaluate(game, state) == values
            assert json.dumps(state, sort_keys=True) == before, "evaluate changed the state"


@pytest.mark.parametrize(("game_id", "players"), CASES)
def test_values_on_determinized_states(game_id: str, players: int) -> None:
    """The search evaluates the states `determinize` samples."""
    game = GAMES[game_id]
    states = [s for s in playout(game_id, players) if not game.is_over(s)]
    for k, state in enumerate(states[:: max(1, len(states) // 12)]):
        for seat in range(players):
            assert_values(game, game.determinize(state, seat, Rng(b"determinize", k)))


@pytest.mark.parametrize(("game_id", "players"), CASES)
def test_the_end_agrees_with_the_ranking(game_id: str, players: int) -> None:
    game = GAMES[game_id]
    final = playout(game_id, players)[-1]
    assert game.is_over(final)
    values = assert_values(game, final)
    ranks = {entry["seat"]: entry["rank"] for entry in game.score(final)["seats"]}
    best = max(values)
    for seat in range(players):
        assert (ranks[seat] == 1) == (values[seat] == best), (ranks, values)
        for other in range(players):
            if ranks[seat] < ranks[other]:
                assert values[seat] > values[other], (ranks, values)
            elif ranks[seat] == ranks[other]:
                assert values[seat] == values[other], (ranks, values)


# --- a clear material lead is worth more ---------------------------------------------------------


def lead_res_publica(state: State) -> None:
    """Seat 0 gains two Cities off the top of the pile (9 to 4 points each)."""
    for _ in range(2):
        pile = state["piles"]["city"]
        state["seats"][0]["cities"].append(pile.pop(0) if pile else 4)


def lead_trobils(state: State) -> None:
    """Seat 0 captures the two biggest Trobils still in the deck."""
    from games.asking_for_trobils.cards import is_city, points

    trobils = sorted((c for c in state["deck"] if not is_city(c)), key=points)[-2:]
    for card in trobils:
        state["deck"].remove(card)
        state["seats"][0]["trobils"].append(card)


def lead_trappist(state: State) -> None:
    """Seat 0 gains 4 stargold and the investment card worth most that is still in the deck."""
    from games.trappist_one.board import INVESTMENT

    cards = [c for c in state["investment_deck"] if INVESTMENT[c]["kind"] != "worker"]
    card = max(cards, key=lambda c: int(INVESTMENT[c]["vp"]))
    state["investment_deck"].remove(card)
    state["seats"][0]["scrapyard"].append(card)
    state["seats"][0]["stargold"] += 4


def lead_trajan(state: State) -> None:
    """Seat 0 scores 20 points more on the track."""
    state["seats"][0]["points"] += 20


LEADS: dict[str, Any] = {
    "res-publica-2230ad": lead_res_publica,
    "asking-for-trobils": lead_trobils,
    "trappist-one": lead_trappist,
    "trajan": lead_trajan,
}


def test_every_game_has_a_lead() -> None:
    assert set(LEADS) == set(GAMES)


@pytest.mark.parametrize(("game_id", "players"), CASES)
def test_a_material_lead_raises_the_value(game_id: str, players: int) -> None:
    game = GAMES[game_id]
    states = playout(game_id, players)
    middle = states[len(states) // 3: 2 * len(states) // 3]
    # A mid-game state in which seat 0 is not yet sure to win (its value can still rise).
    candidates = [s for s in middle if not game.is_over(s) and evaluate(game, s)[0] < 0.9]
    assert candidates, "no mid-game state leaves seat 0 room to rise"
    state = candidates[len(candidates) // 2]
    edited = copy.deepcopy(state)
    LEADS[game_id](edited)
    assert game.score(edited)["seats"][0]["total"] > game.score(state)["seats"][0]["total"]
    before, after = assert_values(game, state), assert_values(game, edited)
    assert after[0] > before[0], (before, after)


def test_every_rules_version_evaluates() -> None:
    """A table under an older rules version is evaluated by the same code."""
    for versions in RULES.values():
        for game in versions.values():
            state = game.setup(game.min_players, {}, Rng(b"versions", 0))
            assert_values(game, state)
