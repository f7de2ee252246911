"""Property tests: random legal games of Asking for Trobils, checked after every move, under
every rules version in VERSIONS. Each test runs once per version, with example counts per
version kept low for the run time."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.asking_for_trobils import GAME, VERSIONS, AskingForTrobils
from games.asking_for_trobils.board import ship_total
from games.asking_for_trobils.cards import CONNECTIONS, LOCATIONS, SETUP, is_city
from games.contract import IllegalMove
from games.rng import Rng
from tests.games.test_asking_for_trobils import FULL, all_cards, ships

State = dict[str, Any]
MAX_MOVES = 10_000
DETERMINIZED_MOVES = 300  # per game of test_determinize_keeps_counts_and_plays_on
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
PLAYERS = st.integers(min_value=2, max_value=7)
EVERY_VERSION = pytest.mark.parametrize("game", VERSIONS, ids=lambda g: f"v{g.rules_version}")
# The random whole games: the newest rules at every player count; an older version, whose
# rules are frozen (tests/golden pins them), at three counts only - for the run time.
RANDOM_TABLES = [(game, players) for game in VERSIONS
                 for players in (range(2, 8) if game is GAME else (2, 4, 7))]
RANDOM_TABLE_IDS = [f"v{game.rules_version}-{players}p" for game, players in RANDOM_TABLES]


def assert_invariants(game: AskingForTrobils, state: State) -> None:
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
    assert game.is_over(state) == (cities_out == players + 1), "the end is not all Cities shown"


def assert_moves(game: AskingForTrobils, state: State) -> None:
    actors = game.actors(state)
    assert actors or game.is_over(state)
    for seat in range(state["players"]):
        moves = game.legal_moves(state, seat)
        assert bool(moves) == (seat in actors)
        assert len({m["id"] for m in moves}) == len(moves)
        for move in moves:
            if move["id"].startswith("buy:"):
                assert_price(state, seat, move)
        if state["phase"] in ("turn", "extra_turn") and seat in actors:
            assert_bumps(game, state, {m["id"] for m in moves})


def assert_bumps(game: AskingForTrobils, state: State, offered: set[str]) -> None:
    """A free space is offered; any ship on a full location may be bumped ("There is no
    blocking."), and under rules version 2 also one on a location with a space free ("a Player
    may Place a Ship in the available space instead of Bumping")."""
    if offered == {"take-back"}:
        return
    leaving = state["visit"]["loc"] if state["phase"] == "extra_turn" else None
    for loc, seats in state["board"].items():
        if loc == leaving:
            continue
        free = len(seats) < LOCATIONS[loc]["spaces"]
        bumpable = not free or game.rules_version != "1"
        bumps = {i for i in offered if i.startswith(f"place:{loc}:bump:")}
        assert bumps == ({f"place:{loc}:bump:{s}" for s in seats} if bumpable else set()), loc
        assert (f"place:{loc}" in offered) == free, loc


def assert_price(state: State, seat: int, move: dict[str, Any]) -> None:
    """"Each Connection Card costs 2 Credits plus 1 Credit for every Connection Card already on
    the same Ship Card Location." - and only what the player can pay is offered."""
    player = state["seats"][seat]
    price = 2 + len(player["ship_card"][move["loc"]])
    assert move["price"] == price <= player["res"]["credit"]
    assert move["card"] in state["connections"]["offer"] and move["card"] in CONNECTIONS


def assert_no_leak(game: AskingForTrobils, state: State, seat: int | None) -> None:
    """Another seat's face-down Trobils are shown as a count only, until the end."""
    view = game.view(state, seat)
    text = json.dumps(view)
    over = game.is_over(state)
    for other, shown in enumerate(view["players"]):
        player = state["seats"][other]
        assert ("flipped" in shown) == (other == seat or over)
        assert shown["face_down"] == len(player["flipped"])
        if not over and other != seat:
            assert not any(f'"{card}"' in text for card in player["flipped"]), "a flip leaks"
    assert isinstance(view["deck"], int) and isinstance(view["riffraff"]["deck"], int)
    assert ("deck_cards" in view) == over
    assert ("deck_cards" in view["riffraff"]) == over == ("deck_cards" in view["connections"])


def assert_score(game: AskingForTrobils, state: State) -> None:
    sheet = game.score(state)
    places = [p if isinstance(p, list) else [p] for p in sheet["ranking"]]
    assert sorted(s for place in places for s in place) == list(range(state["players"]))
    rank = {entry["seat"]: entry["rank"] for entry in sheet["seats"]}
    if game.rules_version in ("1", "2"):  # every seat alone, as recorded
        assert all(len(place) == 1 and not isinstance(p, list)
                   for place, p in zip(places, sheet["ranking"], strict=True))
    else:  # rules version 3: the seats sharing a rank are one list, in seat order
        assert all(len(place) >= 2 or not isinstance(p, list)
                   for place, p in zip(places, sheet["ranking"], strict=True))
        assert all(place == sorted(place) and len({rank[s] for s in place}) == 1
                   for place in places)
        assert len({rank[place[0]] for place in places}) == len(places)
    flat = [s for place in places for s in place]
    assert [rank[s] for s in flat] == sorted(rank[s] for s in flat)
    for entry in sheet["seats"]:
        assert entry["total"] == sum(entry["breakdown"].values()), "score is not its parts"
        assert entry["tiebreak"][0] == entry["breakdown"]["trobils"]


def playout(game: AskingForTrobils, players: int, seed: int, short_game: bool = False,
            every_move_each: int = 0) -> State:
    """Play a random game; every `every_move_each` steps, also try every legal move."""
    rng = Rng(b"props-%d" % seed, 0)
    state = game.setup(players, {"short_game": short_game}, rng)
    for step in range(MAX_MOVES):
        assert_invariants(game, state)
        assert_moves(game, state)
        for seat in [*range(players), None]:
            assert_no_leak(game, state, seat)
        if game.is_over(state):
            assert_score(game, state)
            return state
        seat = rng.choice(sorted(game.actors(state)))
        with pytest.raises(IllegalMove):
            game.play(state, seat, {"id": f"nonsense:{rng.randbelow(1000)}"}, rng)
        if every_move_each and step % every_move_each == 0:
            for move in game.legal_moves(state, seat):
                assert_invariants(game, game.play(state, seat, {"id": move["id"]}, rng)[0])
        move = rng.choice(game.legal_moves(state, seat))
        state, _ = game.play(state, seat, {"id": move["id"]}, rng)
    raise AssertionError(f"no end after {MAX_MOVES} moves")


@pytest.mark.parametrize(("game", "players"), RANDOM_TABLES, ids=RANDOM_TABLE_IDS)
@settings(max_examples=2, deadline=None)
@given(seed=SEEDS, short_game=st.booleans())
def test_random_games_keep_the_invariants(game: AskingForTrobils, players: int, seed: int,
                                          short_game: bool) -> None:
    final = playout(game, players, seed, short_game)
    assert all("flipped" in p for p in game.view(final, None)["players"])  # all shown at the end


@EVERY_VERSION
@settings(max_examples=2, deadline=None)
@given(seed=SEEDS, players=PLAYERS)
def test_every_legal_move_plays(game: AskingForTrobils, seed: int, players: int) -> None:
    playout(game, players, seed, every_move_each=40)


@EVERY_VERSION
@settings(max_examples=5, deadline=None)
@given(data=st.data(), players=PLAYERS)
def test_hypothesis_chosen_moves(game: AskingForTrobils, data: st.DataObject,
                                 players: int) -> None:
    """Moves chosen by hypothesis itself (so failures shrink), for the first 300 moves."""
    state = game.setup(players, {}, Rng(b"chosen", data.draw(SEEDS)))
    for _ in range(300):
        if game.is_over(state):
            break
        seat = data.draw(st.sampled_from(sorted(game.actors(state))))
        move = data.draw(st.sampled_from(game.legal_moves(state, seat)))
        state, facts = game.play(state, seat, {"id": move["id"]}, Rng(b"x", 0))
        assert all(f["to"] == "all" or f["to"] == [seat] for f in facts)
        assert_invariants(game, state)


@EVERY_VERSION
@pytest.mark.parametrize("players", [2, 4, 7])
def test_determinize_keeps_counts_and_plays_on(game: AskingForTrobils, players: int) -> None:
    rng = Rng(b"det-props", players)
    state = game.setup(players, {}, rng)
    for _ in range(DETERMINIZED_MOVES):
        if game.is_over(state):
            break
        for seat in range(players):
            other = game.determinize(state, seat, rng)
            assert_invariants(game, other)
            assert game.view(other, seat) == game.view(state, seat)
            assert game.view(other, None) == game.view(state, None)
            assert game.legal_moves(other, seat) == game.legal_moves(state, seat)
            # every Trobil was captured face up: the flipped ones are remembered
            assert [p["flipped"] for p in other["seats"]] == [
                p["flipped"] for p in state["seats"]]
        seat = rng.choice(sorted(game.actors(state)))
        state, _ = game.play(state, seat, rng.choice(game.legal_moves(state, seat)), rng)
