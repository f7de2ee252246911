"""Res Publica's `search_value` (games/res_publica/win_chance.py): at two players each seat's
chance to win from the fitted model, the value the bots' search gives the positions it
reaches; at more players, and once the game is over, `evaluate`'s. Held to the promises of
tests/games/test_evaluate.py on random legal games, and to the model's own: its features
are the ones its data names, and which seat is which does not change the chances."""

from __future__ import annotations

import copy
import json

import pytest

from games.contract import State
from games.registry import GAMES
from games.res_publica import win_chance
from games.res_publica.evaluate import evaluate
from games.rng import Rng
from tests.games.test_evaluate import lead_res_publica, playout

GAME_ID = "res-publica-2230ad"
GAME = GAMES[GAME_ID]


def chances(state: State) -> list[float]:
    values = GAME.search_value(state)
    assert isinstance(values, list) and len(values) == state["players"], values
    assert all(type(v) is float and 0.0 <= v <= 1.0 for v in values), values
    return values


def test_every_state_of_a_two_player_game_has_two_chances_that_add_up() -> None:
    for index, state in enumerate(playout(GAME_ID, 2)):
        values = chances(state)
        if GAME.is_over(state):
            assert values == evaluate(state)  # the score sheet's ranks
            continue
        assert values[0] + values[1] == pytest.approx(1.0)
        if index % 10 == 0:
            before = json.dumps(state, sort_keys=True)
            assert GAME.search_value(state) == values
            assert json.dumps(state, sort_keys=True) == before, "search_value changed the state"


def test_the_chances_on_the_worlds_the_search_deals() -> None:
    states = [s for s in playout(GAME_ID, 2) if not GAME.is_over(s)]
    for k, state in enumerate(states[:: len(states) // 12]):
        for seat in range(2):
            values = chances(GAME.determinize(state, seat, Rng(b"worlds", k)))
            assert values[0] + values[1] == pytest.approx(1.0)


@pytest.mark.parametrize("players", [3, 4, 5])
def test_more_players_are_valued_by_evaluate(players: int) -> None:
    """The model was fitted to two-player games only."""
    for state in playout(GAME_ID, players)[::7]:
        assert chances(state) == evaluate(state)


def test_the_models_features_are_the_ones_the_code_computes() -> None:
    """win_chance.json names its weights; the code computes the features by those names, in
    that order (a renamed or added feature cannot pair with another's weight)."""
    state = playout(GAME_ID, 2)[40]
    t = win_chance.projection.table(state)
    _, later = win_chance.projection.forecast(state)
    names = list(win_chance.seat_features(state, t, later[0], 0, pending=True))
    assert names == win_chance.FEATURES
    assert len(win_chance.features(state)) == len(win_chance.WEIGHTS) == 2 * len(names) + 2
    assert list(win_chance.MODEL["weights"]["difference_by_share_left"]) == names


def mirrored(state: State) -> State:
    """The same position with the two seats' places swapped."""
    swapped = copy.deepcopy(state)
    swapped["seats"].reverse()
    swapped["active"] = 1 - state["active"]
    swapped["locations"] = {name: 1 - owner if owner in (0, 1) else owner
                            for name, owner in state["locations"].items()}
    return swapped


def test_which_seat_is_which_does_not_change_the_chances() -> None:
    """Seat 0's chance in a position is seat 1's once the seats swap places."""
    states = [s for s in playout(GAME_ID, 2)
              if s["phase"] not in ("reveal", "over") and s["trade"] is None
              and s["colony"] is None]
    assert len(states) > 20
    for state in states[:: len(states) // 20]:
        first, second = chances(state), chances(mirrored(state))
        assert first[0] == pytest.approx(second[1], abs=1e-9), state["turn"]


def test_a_material_lead_raises_the_chance() -> None:
    """Seat 0 given two Cities mid-game (tests/games/test_evaluate.py's lead) has the better
    chance to win."""
    states = playout(GAME_ID, 2)
    middle = [s for s in states[len(states) // 3: 2 * len(states) // 3]
              if chances(s)[0] < 0.9]
    assert middle
    state = middle[len(middle) // 2]
    edited = copy.deepcopy(state)
    lead_res_publica(edited)
    assert chances(edited)[0] > chances(state)[0]
