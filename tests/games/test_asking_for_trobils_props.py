"""Property tests: random legal games of Asking for Trobils, checked after every move."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.asking_for_trobils import GAME
from games.asking_for_trobils.board import ship_total
from games.asking_for_trobils.cards import CONNECTIONS, LOCATIONS, SETUP, is_city
from games.contract import IllegalMove
from games.rng import Rng
from tests.games.test_asking_for_trobils import FULL, all_cards, ships

State = dict[str, Any]
MAX_MOVES = 10_000
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
PLAYERS = st.integers(min_value=2, max_value=7)


def assert_invariants(state: State) -> None:
    assert json.loads(json.dumps(state)) == state, "state is not plain JSON"
    assert all_cards(state) == FULL, "a card appeared or vanished"
    players = state["players"]
    for seat, player in enumerate(state["seats"]):
        assert all(n >= 0 for n in player["res"].values()), f"seat {seat}: negative resource"
        assert min(player["hand"], player["wormhole"]) >= 0
        assert ships(state, seat) == ship_total(players), f"seat {seat}: a ship appeared/vanished"
        assert player["hand"] + sum(s.count(seat) for s in state["board"].values()) >= 1
    for loc, seats in state["board"].items():
        assert len(seats) <= LOCATIONS[loc]["spaces"], f"{loc} holds {len(seats)} ships"
    assert len(state["stands"]) <= SETUP["stands"]
    assert all(not LOCATIONS[loc].get("no_stand") for loc in state["stands"]), "a stand on the Star"
    assert len(state["display"]) == players + 1
    assert len(state["connections"]["offer"]) <= 3
    mixed = 2 * (players + 1)
    assert not any(is_city(c) for c in state["deck"][mixed:]), "a City above the mixed cards"
    cities_out = sum(is_city(c) for c in state["display"])
    assert GAME.is_over(state) == (cities_out == players + 1), "the end is not all Cities shown"


def assert_moves(state: State) -> None:
    actors = GAME.actors(state)
    assert actors or GAME.is_over(state)
    for seat in range(state["players"]):
        moves = GAME.legal_moves(state, seat)
        assert bool(moves) == (seat in actors)
        assert len({m["id"] for m in moves}) == len(moves)
        for move in moves:
            if move["id"].startswith("buy:"):
                assert_price(state, seat, move)


def assert_price(state: State, seat: int, move: dict[str, Any]) -> None:
    """"Each Connection Card costs 2 Credits plus 1 Credit for every Connection Card already on
    the same Ship Card Location." - and only what the player can pay is offered."""
    player = state["seats"][seat]
    price = 2 + len(player["ship_card"][move["loc"]])
    assert move["price"] == price <= player["res"]["credit"]
    assert move["card"] in state["connections"]["offer"] and move["card"] in CONNECTIONS


def assert_no_leak(state: State, seat: int | None) -> None:
    """Another seat's face-down Trobils are shown as a count only, until the end."""
    view = GAME.view(state, seat)
    text = json.dumps(view)
    over = GAME.is_over(state)
    for other, shown in enumerate(view["players"]):
        player = state["seats"][other]
        assert ("flipped" in shown) == (other == seat or over)
        assert shown["face_down"] == len(player["flipped"])
        if not over and other != seat:
            assert not any(f'"{card}"' in text for card in player["flipped"]), "a flip leaks"
    assert isinstance(view["deck"], int) and isinstance(view["riffraff"]["deck"], int)
    assert ("deck_cards" in view) == over


def assert_score(state: State) -> None:
    sheet = GAME.score(state)
    assert sorted(sheet["ranking"]) == list(range(state["players"]))
    for entry in sheet["seats"]:
        assert entry["total"] == sum(entry["breakdown"].values()), "score is not its parts"
        assert entry["tiebreak"][0] == entry["breakdown"]["trobils"]


def playout(players: int, seed: int, short_game: bool = False, every_move_each: int = 0
            ) -> State:
    """Play a random game; every `every_move_each` steps, also try every legal move."""
    rng = Rng(b"props-%d" % seed, 0)
    state = GAME.setup(players, {"short_game": short_game}, rng)
    for step in range(MAX_MOVES):
        assert_invariants(state)
        assert_moves(state)
        for seat in [*range(players), None]:
            assert_no_leak(state, seat)
        if GAME.is_over(state):
            assert_score(state)
            return state
        seat = rng.choice(sorted(GAME.actors(state)))
        with pytest.raises(IllegalMove):
            GAME.play(state, seat, {"id": f"nonsense:{rng.randbelow(1000)}"}, rng)
        if every_move_each and step % every_move_each == 0:
            for move in GAME.legal_moves(state, seat):
                assert_invariants(GAME.play(state, seat, {"id": move["id"]}, rng)[0])
        move = rng.choice(GAME.legal_moves(state, seat))
        state, _ = GAME.play(state, seat, {"id": move["id"]}, rng)
    raise AssertionError(f"no end after {MAX_MOVES} moves")


@pytest.mark.parametrize("players", range(2, 8))
@settings(max_examples=2, deadline=None)
@given(seed=SEEDS, short_game=st.booleans())
def test_random_games_keep_the_invariants(players: int, seed: int, short_game: bool) -> None:
    final = playout(players, seed, short_game)
    assert all("flipped" in p for p in GAME.view(final, None)["players"])  # all shown at the end


@settings(max_examples=2, deadline=None)
@given(seed=SEEDS, players=PLAYERS)
def test_every_legal_move_plays(seed: int, players: int) -> None:
    playout(players, seed, every_move_each=40)


@settings(max_examples=10, deadline=None)
@given(data=st.data(), players=PLAYERS)
def test_hypothesis_chosen_moves(data: st.DataObject, players: int) -> None:
    """Moves chosen by hypothesis itself (so failures shrink), for the first 300 moves."""
    state = GAME.setup(players, {}, Rng(b"chosen", data.draw(SEEDS)))
    for _ in range(300):
        if GAME.is_over(state):
            break
        seat = data.draw(st.sampled_from(sorted(GAME.actors(state))))
        move = data.draw(st.sampled_from(GAME.legal_moves(state, seat)))
        state, facts = GAME.play(state, seat, {"id": move["id"]}, Rng(b"x", 0))
        assert all(f["to"] == "all" or f["to"] == [seat] for f in facts)
        assert_invariants(state)


@pytest.mark.parametrize("players", [2, 4, 7])
def test_determinize_keeps_counts_and_plays_on(players: int) -> None:
    rng = Rng(b"det-props", players)
    state = GAME.setup(players, {}, rng)
    for _ in range(600):
        if GAME.is_over(state):
            break
        for seat in range(players):
            other = GAME.determinize(state, seat, rng)
            assert_invariants(other)
            assert GAME.view(other, seat) == GAME.view(state, seat)
            assert GAME.view(other, None) == GAME.view(state, None)
            assert GAME.legal_moves(other, seat) == GAME.legal_moves(state, seat)
        seat = rng.choice(sorted(GAME.actors(state)))
        state, _ = GAME.play(state, seat, rng.choice(GAME.legal_moves(state, seat)), rng)
