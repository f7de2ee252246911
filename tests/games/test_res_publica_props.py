"""Property tests: random legal games of Res Publica 2230 AD, checked after every move."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.contract import IllegalMove
from games.res_publica import GAME
from games.res_publica.cards import CARDS, DATA
from games.rng import Rng
from tests.games.test_res_publica import all_cards

State = dict[str, Any]
MAX_MOVES = 20_000
FULL_DECK = {card: spec["count"] for card, spec in CARDS.items()}
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)


def assert_invariants(state: State) -> None:
    assert json.loads(json.dumps(state)) == state, "state is not plain JSON"
    assert all_cards(state) == FULL_DECK, "a card appeared or vanished"
    counts = [n for p in state["seats"] for n in p["hand"].values()]
    counts += [n for pile in state["discards"].values() for n in pile.values()]
    assert all(n > 0 for n in counts), "a zero or negative count"
    for pile, spec in DATA["score_piles"].items():
        held = [v for p in state["seats"] for v in _gained(p, pile)]
        assert sorted(held + state["piles"][pile]) == sorted(spec["values"]), f"{pile} pile"
    for loc, spec in DATA["locations"].items():
        owned = sum(1 for p in state["seats"] for x in p["locations"] if x["card"] == loc)
        assert state["locations"][loc] >= 0 and owned + state["locations"][loc] == spec["count"]
    assert all(0 <= p["trades"] <= DATA["setup"]["trade_tokens"] for p in state["seats"])


def _gained(player: dict[str, Any], pile: str) -> list[int]:
    if pile == "station":
        return [s["points"] for s in player["stations"]]
    return list(player[{"city": "cities", "resort": "resorts"}[pile]])


def assert_no_leak(state: State, seat: int | None) -> None:
    """The view shows other hands only once they are revealed, and no deck order."""
    view = GAME.view(state, seat)
    revealed = state["phase"] in ("reveal", "over")
    for other, shown in enumerate(view["players"]):
        assert ("hand" in shown) == (other == seat or revealed)
        assert shown["hand_count"] == sum(state["seats"][other]["hand"].values())
    assert all(isinstance(n, int) for n in view["decks"].values())
    trade = view["trade"]
    if trade is not None:
        drafts = state["trade"]["drafts"]
        assert trade.get("draft") == (drafts.get(str(seat)) if seat is not None else None)
        picks = state["trade"]["picks"]
        assert trade.get("my_pick") == (picks.get(str(seat)) if seat is not None else None)
        if state["phase"] == "propose" and seat != state["trade"]["by"]:
            assert "proposal" not in trade
    json.dumps(view)


def assert_moves(state: State) -> None:
    actors = GAME.actors(state)
    assert actors or GAME.is_over(state)
    for seat in range(state["players"]):
        moves = GAME.legal_moves(state, seat)
        assert bool(moves) == (seat in actors)
        assert len(moves) < 300, f"{len(moves)} moves"
        assert len({m["id"] for m in moves}) == len(moves)


def playout(players: int, seed: int, every_move_each: int = 0) -> State:
    """Play a random game; every `every_move_each` steps, also try every legal move."""
    rng = Rng(b"props-%d" % seed, 0)
    state = GAME.setup(players, {}, rng)
    for step in range(MAX_MOVES):
        assert_invariants(state)
        assert_moves(state)
        for seat in [*range(players), None]:
            assert_no_leak(state, seat)
        if GAME.is_over(state):
            return state
        actors = sorted(GAME.actors(state))
        seat = rng.choice(actors)
        with pytest.raises(IllegalMove):
            GAME.play(state, seat, {"id": f"nonsense:{rng.randbelow(1000)}"}, rng)
        if every_move_each and step % every_move_each == 0:
            for actor in actors:
                for move in GAME.legal_moves(state, actor):
                    assert_invariants(GAME.play(state, actor, {"id": move["id"]}, rng)[0])
        move = rng.choice(GAME.legal_moves(state, seat))
        state, _ = GAME.play(state, seat, {"id": move["id"]}, rng)
    raise AssertionError(f"no end after {MAX_MOVES} moves")


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@settings(max_examples=3, deadline=None)
@given(seed=SEEDS)
def test_random_games_keep_the_invariants(players: int, seed: int) -> None:
    final = playout(players, seed)
    sheet = GAME.score(final)
    assert sorted(sheet["ranking"]) == list(range(players))
    assert all(s["total"] == sum(s["breakdown"].values()) for s in sheet["seats"])
    assert all("hand" in p for p in GAME.view(final, None)["players"])  # the final reveal


@settings(max_examples=2, deadline=None)
@given(seed=SEEDS, players=st.integers(min_value=2, max_value=5))
def test_every_legal_move_plays(seed: int, players: int) -> None:
    playout(players, seed, every_move_each=25)


@settings(max_examples=10, deadline=None)
@given(data=st.data(), players=st.integers(min_value=2, max_value=5))
def test_hypothesis_chosen_moves(data: st.DataObject, players: int) -> None:
    """Moves chosen by hypothesis itself (so failures shrink), for the first 300 moves."""
    state = GAME.setup(players, {}, Rng(b"chosen", data.draw(SEEDS)))
    for _ in range(300):
        if GAME.is_over(state):
            break
        seat = data.draw(st.sampled_from(sorted(GAME.actors(state))))
        move = data.draw(st.sampled_from(GAME.legal_moves(state, seat)))
        state, facts = GAME.play(state, seat, {"id": move["id"]}, Rng(b"x", 0))
        assert all(f["to"] == "all" or set(f["to"]) <= set(range(players)) for f in facts)
        assert_invariants(state)


@pytest.mark.parametrize("players", [2, 5])
def test_determinize_keeps_counts_and_plays_on(players: int) -> None:
    rng = Rng(b"det-props", players)
    state = GAME.setup(players, {}, rng)
    for _ in range(400):
        if GAME.is_over(state):
            break
        for seat in range(players):
            other = GAME.determinize(state, seat, rng)
            assert all_cards(other) == FULL_DECK
            assert GAME.view(other, seat) == GAME.view(state, seat)
            assert GAME.legal_moves(other, seat) == GAME.legal_moves(state, seat)
        seat = rng.choice(sorted(GAME.actors(state)))
        state, _ = GAME.play(state, seat, rng.choice(GAME.legal_moves(state, seat)), rng)
