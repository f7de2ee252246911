"""Property tests for Trappist One: random legal games (2-4 players, every combination of the
options), checked after every move.

Rulebook: /work/shared/rulebooks/trappist-one.txt; decisions: /work/shared/games/trappist-one.md;
the fact fields `gain` / `cost` / `paid_to`: games/trappist_one/README.md "Stargold in the facts".
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from games.contract import Fact
from games.rng import Rng
from games.trappist_one import GAME
from games.trappist_one.board import RESOURCES, SHIPS, hand_limit, hand_size
from games.trappist_one.rules import TRIGGERS
from tests.games import conformance as conf

State = dict[str, Any]
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
PLAYERS = st.integers(min_value=2, max_value=4)
OPTIONS = st.fixed_dictionaries({"expert_scoring": st.booleans(), "exodite": st.booleans(),
                                 "refill_from_removed": st.booleans()})


# --- the stargold ledger -------------------------------------------------------------------


def ledger(facts: list[Fact], players: int) -> tuple[list[int], int]:
    """What the facts say each seat's stargold changed by, and what the supply paid out net
    (taken by `gain`, minus the part of each `cost` not `paid_to` a player)."""
    change = [0] * players
    from_supply = 0
    for f in facts:
        data = f["data"]
        gain, cost = int(data.get("gain", 0)), int(data.get("cost", 0))
        if not (gain or cost or "paid_to" in data):
            continue
        assert f["to"] == "all", f"stargold is public, but {f['text']!r} is not"
        change[data["seat"]] += gain - cost
        to_player = 0
        if "paid_to" in data:
            to_player = int(data["paid_to"]["stargold"])
            change[data["paid_to"]["seat"]] += to_player
        from_supply += gain - (cost - to_player)
    return change, from_supply


def stargold(state: State) -> list[int]:
    return [int(p["stargold"]) for p in state["seats"]]


# --- every card in exactly one place -------------------------------------------------------


def places(state: State) -> tuple[Counter[str], list[str], list[str]]:
    """(mega-factory cards by resource, investment cards, Biocultist ships) wherever they are."""
    factories: Counter[str] = Counter(state["factory_deck"])
    factories.update(state["factory_discard"])
    cards = list(state["investment_deck"]) + list(state["removed"])
    cards += [c for c in state["market"] if c is not None]
    ships = [s for stack in state["earth"].values() for s in stack]
    if state["shipment"] is not None:
        (ships if state["shipment"]["ship"] in SHIPS else cards).append(state["shipment"]["ship"])
    for p in state["seats"]:
        factories.update(p["hand"])
        factories.update(p["pick"] or {})
        for built in p["planets"].values():
            factories.update(built)
        cards += p["cargo"] + list(p["satellites"].values()) + p["stations"] + p["scrapyard"]
        ships += p["hangar"]
    return factories, cards, ships


def assert_in_one_place(state: State, start: tuple[Counter[str], list[str], list[str]]) -> None:
    factories, cards, ships = places(state)
    assert +factories == +start[0], "a mega-factory card appeared or vanished"
    assert sorted(cards) == sorted(start[1]), "an investment card appeared or vanished"
    assert len(set(ships)) == len(ships), "a ship is in two places"
    assert len(ships) + state["ship_discard"] == len(start[2]), "a ship appeared or vanished"
    assert all(n >= 0 for p in state["seats"] for n in p["hand"].values())


def turn_ended(step: conf.Step) -> bool:
    """The move ended the active seat's turn (its end phase is over)."""
    if step.state["phase"] == "choose":
        return False
    return step.after["phase"] == "over" or step.after["active"] != step.state["active"]


# --- the properties ------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(seed=SEEDS, players=PLAYERS, options=OPTIONS)
def test_random_play_keeps_every_invariant(seed: int, players: int,
                                           options: dict[str, Any]) -> None:
    """After every move of a random legal game: the change of each seat's stargold, and of
    their sum, is what the move's facts say (stargold is unlimited, so the supply is a ledger,
    not a pile: what it paid out minus what was paid to it; a payment from one player to
    another changes the sum by 0); no stargold below 0; every card in exactly one place; the
    hand limit holds at every turn's end ("Before finishing your turn, you have to check if
    your hand cards do not exceed the limit"); production never exceeds the loading capacity
    ("you can produce with as many factories as your loading capacity of this turn"); and at
    the end every seat has had the same number of turns ("The game will go on as usual until
    the last player of this round has finished her turn") and the score sheet names the end
    trigger that fired."""
    playout = conf.Playout(GAME, players, seed, options=options)
    start = places(playout.state)
    turns = [0] * players
    for step in playout:
        change, from_supply = ledger(step.facts, players)
        before, after = stargold(step.state), stargold(step.after)
        assert [a - b for a, b in zip(after, before, strict=True)] == change, step.move["id"]
        assert sum(after) - sum(before) == from_supply, step.move["id"]
        assert min(after) >= 0
        assert_in_one_place(step.after, start)
        shipment = step.after["shipment"]
        if shipment is not None:
            assert sum(shipment["produced"].values()) <= shipment["capacity"]
        if turn_ended(step):
            turns[step.state["active"]] += 1
            finished = step.after["seats"][step.state["active"]]
            assert hand_size(finished) <= hand_limit(finished)
    final = playout.state
    assert len(set(turns)) == 1, f"turns per seat {turns}"
    sheet = GAME.score(final)
    assert sheet["end"] == final["ending"] and sheet["end"] in TRIGGERS


@settings(max_examples=15, deadline=None)
@given(seed=SEEDS, players=PLAYERS, options=OPTIONS)
def test_the_same_moves_with_the_same_rng_give_the_same_game(
        seed: int, players: int, options: dict[str, Any]) -> None:
    """A game is a function of its seed and its moves: replaying the recorded moves, each
    with the rng of its version, rebuilds every state and every fact exactly."""
    playout = conf.Playout(GAME, players, seed, options=options)
    steps = list(playout)
    state = GAME.setup(players, options, conf.game_rng(playout.seed, conf.SETUP_VERSION))
    assert state == playout.initial
    for step in steps:
        rng = conf.game_rng(playout.seed, step.version)
        state, facts = GAME.play(state, step.seat, {"id": step.move["id"]}, rng)
        assert state == step.after and facts == step.facts, f"move {step.index}"


def _unseen_factories(state: State, seat: int) -> Counter[str]:
    pool: Counter[str] = Counter(state["factory_deck"])
    for s, p in enumerate(state["seats"]):
        if s != seat:
            pool.update(p["hand"])
            pool.update(p["pick"] or {})
    return +pool


@settings(max_examples=15, deadline=None)
@given(seed=SEEDS, players=PLAYERS, options=OPTIONS, at=st.integers(0, 10**6))
def test_determinize_deals_anew_only_what_its_holder_alone_knows(
        seed: int, players: int, options: dict[str, Any], at: int) -> None:
    """README decision 17: every investment card is bought face up, every ship call, cargo
    use, hand-limit cargo discard and Fragmentum scrap is logged, so the other seats' cargo in
    hand, scrapyards and hangars stay; only the factory deck with the other hands and their
    unrevealed picks (one pool), and the investment deck with the removed cards (one pool),
    are dealt anew, in the same sizes."""
    steps = list(conf.Playout(GAME, players, seed, options=options))
    state = steps[at % len(steps)].state
    seat = at % players
    other = GAME.determinize(state, seat, Rng(b"determinize", at))
    for s, (p, q) in enumerate(zip(state["seats"], other["seats"], strict=True)):
        kept = ("cargo", "scrapyard", "hangar", "planets", "satellites", "stations", "stargold")
        assert all(p[k] == q[k] for k in kept)
        assert sum(p["hand"].values()) == sum(q["hand"].values())
        assert (p["pick"] is None) == (q["pick"] is None)
        if s == seat:
            assert p == q
    assert _unseen_factories(other, seat) == _unseen_factories(state, seat)
    assert len(other["factory_deck"]) == len(state["factory_deck"])
    for pile in ("investment_deck", "removed"):
        assert len(other[pile]) == len(state[pile])
    assert sorted(other["investment_deck"] + other["removed"]) == \
        sorted(state["investment_deck"] + state["removed"])
    public = [k for k in state if k not in ("seats", "factory_deck", "investment_deck",
                                            "removed")]
    assert all(other[k] == state[k] for k in public)
    assert set(RESOURCES) == set(other["seats"][seat]["hand"])
