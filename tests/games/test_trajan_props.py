"""Property tests for Trajan: random legal games (2-4 players), checked after every move.

Summary: /work/shared/rulebooks/trajan.txt; decisions: /work/shared/games/trajan.md;
the point rules in the facts: games/trajan/README.md "Points".
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from games.contract import Fact
from games.rng import Rng
from games.trajan import VERSIONS, Trajan
from games.trajan.board import (
    BONUS,
    COLOURS,
    COMMODITIES,
    CONSTRUCTION,
    DATA,
    FORUM,
    RULES,
    SETUP,
    TRAJAN,
    province_tiles,
)
from tests.games import conformance as conf

State = dict[str, Any]
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
PLAYERS = st.integers(min_value=2, max_value=4)
# Every rules version (games.trajan.VERSIONS): version 1 for its games, version 2 for new ones.
RULES_VERSIONS = st.sampled_from(VERSIONS)


# --- what must hold after every move -------------------------------------------------------


def assert_markers(state: State) -> None:
    """12 action markers on each mat, 2 of each colour (those being sown included)."""
    for seat, player in enumerate(state["seats"]):
        markers = Counter(c for tray in player["trays"] for c in tray)
        if seat == state["active"]:
            markers.update(state["in_hand"])
        assert markers == Counter({c: 2 for c in COLOURS}), f"seat {seat}: {markers}"


def assert_tiles_conserved(state: State) -> None:
    """Every tile is in exactly one place; every card and demand tile is counted."""
    forum = state["forum_stack"] + state["extra_stack"] + state["forum"] + state["gone"]
    forum += [t for s in state["provinces"].values() for t in province_tiles(s)]
    trajan = [t for stack in state["trajan"].values() for t in stack]
    construction = [s["tile"] for s in state["district"] if s["tile"]]
    bonus = state["bag"] + state["senate_bonus"]
    cards: Counter[str] = Counter(state["deck"])
    for pile in state["piles"]:
        cards.update(pile)
    for p in state["seats"]:
        forum += p["tiles"]
        trajan += [t for t in p["slots"] if t is not None] + p["kept"]
        construction += p["construction"]
        bonus += [b["tile"] for b in p["bonus"]]
        cards.update(p["hand"])
        cards.update(p["display"])
    trajan += [t for t in state["gone"] if t in TRAJAN]
    forum = [t for t in forum if t in FORUM]
    assert sorted(forum) == sorted(FORUM), "a forum tile appeared or vanished"
    assert sorted(trajan) == sorted(TRAJAN), "a Trajan tile appeared or vanished"
    assert sorted(construction) == sorted(CONSTRUCTION)
    assert sorted(bonus) == sorted(BONUS)
    assert +cards == Counter({c: int(DATA["cards_per_commodity"]) for c in COMMODITIES})
    demands = Counter(state["demand_stack"] + state["demand_removed"] + state["demands"]
                      + state["demands_done"])
    assert demands == Counter(DATA["demands"])


def assert_pieces(state: State) -> None:
    """15 small pieces per player: supply, the two camps, provinces, construction sites."""
    for seat, p in enumerate(state["seats"]):
        placed = sum(spot["legions"].count(seat) for spot in state["provinces"].values())
        placed += sum(site["workers"].count(seat) for site in state["district"])
        assert p["supply"] + p["legion_camp"] + p["worker_camp"] + placed == SETUP["pieces"]
        assert min(p["supply"], p["legion_camp"], p["worker_camp"]) >= 0


def assert_arch(state: State) -> None:
    """"Move the Trajan marker to the next free slot. If there are no spaces free, the marker
    is moved to the center of the mat": the arch is on a free slot, or in the centre when
    every slot is full."""
    for seat, p in enumerate(state["seats"]):
        if p["arch"] is None:
            assert all(t is not None for t in p["slots"]), f"seat {seat}: arch in the centre"
        else:
            assert p["slots"][p["arch"]] is None, f"seat {seat}: arch on a Trajan tile"


def assert_provinces_laid(state: State, laid: dict[str, str]) -> None:
    """Version 2: "Place a new forum tile in each province that does not contain any
    figures", on the tiles already there, before the forum is laid: every such province got
    one, unless the stack ran out (then the forum got none of its forum tiles)."""
    leaders = {p["leader"] for p in state["seats"]}
    figureless = {name for name, spot in state["provinces"].items()
                  if not spot["legions"] and name not in leaders}
    assert set(laid) <= figureless
    assert all(state["provinces"][name]["tiles"][-1] == tile for name, tile in laid.items())
    if set(laid) != figureless:
        assert not state["forum_stack"] and all(t in DATA["extra"] for t in state["forum"])


def begins_a_turn(state: State) -> bool:
    """The active seat is at the very start of a turn: a turn's first step, a setup step's
    first pick, the senate winner's bonus choice, or (version 2) a seat's first choice of a
    tile to meet the demands."""
    phase = state["phase"]
    return phase in ("choose", "bonus") or (phase in ("start_cards", "start_trajan")
                                            and state["picks"] == 0) \
        or (phase == "demands" and not state["meeting"]["spent"])


def point_changes(facts: list[Fact], players: int) -> list[int]:
    """What the facts say each seat's points changed by; every change names a listed rule."""
    change = [0] * players
    for f in facts:
        if "points" in f["data"] and "rule" in f["data"]:
            assert f["data"]["rule"] in RULES, f["data"]
            assert f["to"] == "all"
            change[f["data"]["seat"]] += int(f["data"]["points"])
    return change


# --- the properties ------------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(seed=SEEDS, players=PLAYERS, game=RULES_VERSIONS)
def test_random_play_keeps_every_invariant(seed: int, players: int, game: Trajan) -> None:
    """After every move of a random legal game: 12 markers on each mat, 2 per colour ("2
    markers of each color"); every tile, card and piece in one place; the arch on a free slot
    or in the centre; `turn` changes exactly when a seat begins a turn (README decision 24);
    points change only by a listed rule, as the move's facts say; the time marker stays on
    its track, and a round ends exactly when it "arrives at or crosses the start space"; the
    game ends after exactly 4 quarters of 4 rounds, with 12 demands revealed ("Instead of
    revealing a 4th demand, the quarter ends"). Version 2: a seat asked how to meet the
    demands meets them all ("must"), and every province without a figure gets a tile at
    every quarter's end while the stack lasts (rulebook l.78)."""
    GAME = game  # noqa: N806 (the module's name for the game under test)
    playout = conf.Playout(GAME, players, seed)
    lap = playout.state["lap"]
    crossings = rounds = 0
    for step in playout:
        after = step.after
        assert_markers(after)
        assert_tiles_conserved(after)
        assert_pieces(after)
        assert_arch(after)
        if not GAME.is_over(after):  # the contract's `turn`: a new number exactly at a start
            new_turn = GAME.turn(after, after["active"]) != GAME.turn(step.state, step.seat)
            assert new_turn == begins_a_turn(after), f"move {step.index}: {step.move['id']}"
        change = point_changes(step.facts, players)
        assert [a["points"] - b["points"] for a, b in
                zip(after["seats"], step.state["seats"], strict=True)] == change
        assert 0 <= after["time"] < lap
        for f in step.facts:
            if step.state["phase"] == "demands" and f["data"].get("seat") == step.seat:
                assert f["data"].get("unmet", []) == [], f  # asked only when all can be met
            if "rules" in after and "province(s) without figures" in f["text"]:
                assert_provinces_laid(after, f["data"]["tiles"])
        for f in step.facts:
            if "spaces" in f["data"]:
                crossings += step.state["time"] + f["data"]["spaces"] >= lap
            if f["text"].startswith("Round ") and "round" in f["data"]:
                rounds += 1
    final = playout.state
    quarters, per_quarter = int(SETUP["quarters"]), int(SETUP["rounds"])
    assert GAME.is_over(final) and final["quarter"] == quarters
    assert rounds == crossings == quarters * per_quarter
    assert len(final["demands_done"]) == quarters * (per_quarter - 1)
    sheet = GAME.score(final)
    assert sheet["quarters"] == quarters


@settings(max_examples=10, deadline=None)
@given(seed=SEEDS, players=PLAYERS, game=RULES_VERSIONS)
def test_the_same_moves_with_the_same_rng_give_the_same_game(seed: int, players: int,
                                                             game: Trajan) -> None:
    """A game is a function of its seed and its moves: replaying the recorded moves, each
    with the rng of its version, rebuilds every state and every fact exactly."""
    GAME = game  # noqa: N806
    playout = conf.Playout(GAME, players, seed)
    steps = list(playout)
    state = GAME.setup(players, {}, conf.game_rng(playout.seed, conf.SETUP_VERSION))
    assert state == playout.initial
    for step in steps:
        rng = conf.game_rng(playout.seed, step.version)
        state, facts = GAME.play(state, step.seat, {"id": step.move["id"]}, rng)
        assert state == step.after and facts == step.facts, f"move {step.index}"


@settings(max_examples=10, deadline=None)
@given(seed=SEEDS, players=PLAYERS, at=st.integers(0, 10**6), game=RULES_VERSIONS)
def test_determinize_deals_anew_only_what_the_seat_cannot_know(
        seed: int, players: int, at: int, game: Trajan) -> None:
    """Only the deck with the other hands' unknown cards (and what they drew from the deck
    since a reshuffle), the face-down stacks and the removed demand tiles are dealt anew, in
    the same sizes; everything public is kept (version 2's piles in the provinces and a
    demand choice in progress included)."""
    GAME = game  # noqa: N806
    steps = list(conf.Playout(GAME, players, seed))
    state = steps[at % len(steps)].state
    seat = at % players
    other = GAME.determinize(state, seat, Rng(b"determinize", at))
    assert other["seats"][seat] == state["seats"][seat]
    secret = ("hand", "drawn", "straddle")  # a hand, and what it drew since a reshuffle
    for p, q in zip(state["seats"], other["seats"], strict=True):
        assert {k: v for k, v in p.items() if k not in secret} == \
            {k: v for k, v in q.items() if k not in secret}
        assert sum(p["hand"].values()) == sum(q["hand"].values())
        assert all(q["hand"][c] >= p["known"][c] for c in COMMODITIES)
    hidden = ("seats", "deck", "forum_stack", "extra_stack", "bag", "demand_stack",
              "demand_removed", "trajan")
    assert all(other[k] == state[k] for k in state if k not in hidden)
    for key in ("deck", "forum_stack", "extra_stack", "bag", "demand_stack"):
        assert len(other[key]) == len(state[key])
    for kind, stack in state["trajan"].items():
        assert other["trajan"][kind][-1:] == stack[-1:]
        assert sorted(other["trajan"][kind]) == sorted(stack)
