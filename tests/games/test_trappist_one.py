"""Scenario tests for Trappist One: each quotes the rulebook sentence it checks.

Rulebook: /work/shared/rulebooks/trappist-one.txt; decisions: /work/shared/games/trappist-one.md;
numbered decisions: games/trappist_one/README.md. A scenario sets the state up by hand (the
helpers below; the card data is Meeple's stand-in, so a scenario picks cards of the kind the
rulebook's example needs from components.json), then plays moves through the game interface.
The end of the game and the scoring: test_trappist_one_scoring.py; random-play properties:
test_trappist_one_props.py; the conformance suite: tests/games/test_conformance.py.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest
from marshmallow import ValidationError

from games.contract import Fact, IllegalMove
from games.registry import get_game
from games.rng import Rng
from games.trappist_one import GAME
from games.trappist_one.board import (
    INVESTMENT,
    PLANET_VP,
    RESOURCES,
    SHIPS,
    hand_limit,
)
from tests.games import conformance as conf

State = dict[str, Any]
SOLAR, EXO, ATMO, TITAN = RESOURCES


# --- helpers -------------------------------------------------------------------------------


def rng(n: int = 0) -> Rng:
    return Rng(b"trappist-tests", n)


def new_game(players: int = 4, seed: int = 0, **options: Any) -> State:
    return GAME.setup(players, options, Rng(b"seed-%d" % seed, 0))


def play(state: State, seat: int, move_id: str, n: int = 1) -> tuple[State, list[Fact]]:
    return GAME.play(state, seat, {"id": move_id}, rng(n))


def ids(state: State, seat: int) -> list[str]:
    return [m["id"] for m in GAME.legal_moves(state, seat)]


def started(players: int = 4, seed: int = 0, **options: Any) -> State:
    """Everyone picks the first listed choice: the game is at seat 0's benefit phase."""
    return started_from(new_game(players, seed, **options))


def started_from(state: State) -> State:
    for seat in range(state["players"]):
        state, _ = play(state, seat, ids(state, seat)[0])
    return state


def hand_total(state: State, seat: int) -> int:
    return sum(state["seats"][seat]["hand"].values())


def set_hand(state: State, seat: int, **hand: int) -> None:
    """Give `seat` exactly these factory cards: its old hand goes back into the deck."""
    player = state["seats"][seat]
    for r, n in player["hand"].items():
        state["factory_deck"][0:0] = [r] * n
    player["hand"] = {r: 0 for r in RESOURCES}
    for r, n in hand.items():
        for _ in range(n):
            state["factory_deck"].remove(r)
        player["hand"][r] = n


def stack_deck(state: State, *resources: str) -> None:
    """The next draws give `resources`, in this order (the deck's top is its end)."""
    for r in resources:
        state["factory_deck"].remove(r)
    state["factory_deck"].extend(reversed(resources))


def to_phase(state: State, phase: str) -> State:
    seat = state["active"]
    if phase in ("buying", "phase3") and state["phase"] == "benefit":
        state, _ = play(state, seat, "buy")
    if phase == "phase3" and state["phase"] == "buying":
        state, _ = play(state, seat, "done")
    assert state["phase"] == phase
    return state


def _fits(card: str, kind: str | None, want: dict[str, Any]) -> bool:
    spec = INVESTMENT[card]
    if kind is not None and spec["kind"] != kind:
        return False
    for key, value in want.items():
        if key == "ability":
            have = spec.get("ability")
            if (value is None) != (have is None):
                return False
            if value is not None and have is not None and not value.items() <= have.items():
                return False
        elif key == "resources":
            if set(spec.get("resources", [])) != set(value):
                return False
        elif spec.get(key) != value:
            return False
    return True


def take_card(state: State, kind: str | None = None, *, market: bool = True,
              **want: Any) -> str:
    """An investment card of `kind` with these data fields (`ability`: these entries;
    `resources`: this set), out of the deck or the box, else (with `market`) out of the
    market, whose gap is then filled from the deck."""
    for pile in ("investment_deck", "removed"):
        for card in state[pile]:
            if _fits(card, kind, want):
                state[pile].remove(card)
                return str(card)
    for slot, card in enumerate(state["market"]):
        if market and card is not None and _fits(card, kind, want):
            state["market"][slot] = state["investment_deck"].pop()
            return str(card)
    raise LookupError(f"no {kind} card with {want} left")


def market_card(state: State, slot: int, kind: str, **want: Any) -> str:
    """Put a card of `kind` into market slot `slot` (the card there goes under the deck)."""
    card = take_card(state, kind, market=False, **want)
    state["investment_deck"].insert(0, state["market"][slot])
    state["market"][slot] = card
    return card


def take_ship(state: State, clan: str) -> str:
    """The top Biocultist ship of `clan`'s stack on Earth, taken off it."""
    return str(state["earth"][clan].pop(0))


SIMPLE = ("buy", "done", "skip", "pass")  # moves that end a step without changing stargold


def simple_move(state: State, seat: int) -> str:
    """A move that goes on without gaining or paying stargold where one exists: skip the
    benefits, buy nothing, ship (or build), produce nothing, decline reactions."""
    legal = ids(state, seat)
    for move in SIMPLE:
        if move in legal:
            return move
    for prefix in ("decline:", "ship:", "cargo:", "discard:", "build:"):
        for move in legal:
            if move.startswith(prefix):
                return move
    return legal[0]


def finish_turn(state: State) -> State:
    """Play simple moves until the active seat's turn is over."""
    seat, n = state["active"], 0
    while state["phase"] != "over" and state["active"] == seat:
        n += 1
        actor = min(GAME.actors(state))
        state, _ = play(state, actor, simple_move(state, actor), n)
    return state


def public(facts: list[Fact]) -> list[Fact]:
    return [f for f in facts if f["to"] == "all"]


# --- setup ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "deck", "ships"), [(2, 26, 2), (3, 36, 3), (4, 46, 4)])
def test_setup_deck_sizes(players: int, deck: int, ships: int) -> None:
    """"2 | 80 (use all) | 26 (remove 20 randomly) | 2 of each clan (remove 2 per clan)" ..."""
    state = new_game(players)
    assert len(state["investment_deck"]) + len(state["market"]) == deck
    assert len(state["removed"]) == 46 - deck
    assert all(len(stack) == ships for stack in state["earth"].values())
    in_hands = sum(sum(p["hand"].values()) for p in state["seats"])
    assert len(state["factory_deck"]) + in_hands == 80


@pytest.mark.parametrize("players", [2, 3, 4])
def test_exodite_keeps_the_deck_size(players: int) -> None:
    """"You cannot change the size of the investment deck, so if you include cards, you have
    to remove more cards." (26/36/46; remove 50/40/30)"""
    state = new_game(players, exodite=True)
    size = {2: 26, 3: 36, 4: 46}[players]
    assert len(state["investment_deck"]) + len(state["market"]) == size
    assert len(state["removed"]) == 76 - size


def test_starting_hands_in_seat_order() -> None:
    """"Give 5 mega-factory cards to the starting player, 6 to the second player, 7 to the
    third player (if there is one) and 8 to the fourth player (if there is one)." """
    state = new_game(4)
    assert [sum(p["hand"].values()) for p in state["seats"]] == [5, 6, 7, 8]
    assert [sum(p["hand"].values()) for p in new_game(2)["seats"]] == [5, 6]


@pytest.mark.parametrize(("players", "points"),
                         [(4, [0, 1, 2, 3]), (3, [0, 1, 2, None]), (2, [0, 0, 1, 1])])
def test_market_points(players: int, points: list[int | None]) -> None:
    """"Reveal the first 4 cards of the deck so that every player has one card pointing to
    them." "If you are playing a 3-player game ... 1 card is not pointing at any player."
    "If you are playing a 2-player game, 2 cards should be pointing at each player." """
    state = new_game(players)
    assert state["points"] == points
    assert len(state["market"]) == 4


def test_options_schema() -> None:
    assert GAME.options().load({}) == {"expert_scoring": False, "exodite": False,
                                       "refill_from_removed": True}
    with pytest.raises(ValidationError):
        GAME.options().load({"nope": True})


# --- the starting choice: simultaneous and secret ------------------------------------------


def test_every_seat_chooses_at_once() -> None:
    """"Each player chooses 3 mega-factories from their hands. Once you have decided which ones
    to play, every player places them under their Capital One planet at the same time." """
    state = new_game(3)
    assert GAME.actors(state) == {0, 1, 2}
    state, _ = play(state, 1, ids(state, 1)[0])
    assert GAME.actors(state) == {0, 2}
    assert GAME.legal_moves(state, 1) == []
    with pytest.raises(IllegalMove):
        play(state, 1, ids(new_game(3), 1)[0])
    assert state["seats"][1]["planets"]["capital_one"] == []  # not placed yet


def test_a_choice_is_secret_until_the_reveal() -> None:
    """"Any card in your hands during the game will be kept in secret to other players." No
    view, fact or legal move of another seat depends on what a seat chose."""
    base = new_game(3)
    picks = ids(base, 0)
    assert len(picks) > 1
    outcomes = []
    for pick in picks[:2]:
        state, facts = play(base, 0, pick)
        seen = {seat: (GAME.view(state, seat),
                       GAME.legal_moves(state, seat) if seat is not None else [],
                       conf.visible_facts(facts, seat)) for seat in (1, 2, None)}
        outcomes.append(seen)
        assert GAME.view(state, 0)["players"][0]["pick"]  # the chooser sees its own
    assert outcomes[0] == outcomes[1]


def test_the_reveal_places_all_choices_without_bonus() -> None:
    """"every player places them under their Capital One planet at the same time" (no
    construction bonus: they are not built in phase 3(A))."""
    state = new_game(2)
    hands = [dict(p["hand"]) for p in state["seats"]]
    state, _ = play(state, 0, "pick:" + "-".join(_three(hands[0])))
    state, facts = play(state, 1, "pick:" + "-".join(_three(hands[1])))
    assert state["phase"] == "benefit" and state["active"] == 0
    for seat in (0, 1):
        placed = state["seats"][seat]["planets"]["capital_one"]
        assert sorted(placed) == sorted(_three(hands[seat]))
        assert sum(state["seats"][seat]["hand"].values()) == sum(hands[seat].values()) - 3
        assert state["seats"][seat]["stargold"] == 0
    assert any("revealed" in f["text"] and f["to"] == "all" for f in facts)


def _three(hand: dict[str, int]) -> list[str]:
    return [r for r in RESOURCES for _ in range(hand[r])][:3]


# --- 1. benefit phase --------------------------------------------------------------------


def test_lux_benefit_is_optional() -> None:
    """"BENEFIT: During the BENEFIT PHASE (1), you receive 1 stargold." and "Benefits are
    optional, so you choose which ones, if any, you want to receive each turn." """
    state = started()
    state["seats"][0]["planets"]["lux"] = [SOLAR, SOLAR, SOLAR]
    assert {"lux", "buy"} <= set(ids(state, 0))
    after, facts = play(state, 0, "lux")
    assert after["seats"][0]["stargold"] == 1 and "lux" not in ids(after, 0)
    assert facts[0]["data"]["gain"] == 1
    skipped, _ = play(state, 0, "buy")
    assert skipped["phase"] == "buying" and skipped["seats"][0]["stargold"] == 0


def test_sophus_pays_one_draws_two() -> None:
    """"BENEFIT: During the BENEFIT PHASE (1), you can pay 1 stargold piece to draw 2 cards
    from the mega-factory deck." """
    state = started()
    state["seats"][0]["planets"]["sophus"] = [EXO, EXO, EXO]
    state["seats"][0]["stargold"] = 1
    stack_deck(state, TITAN, ATMO)
    before = dict(state["seats"][0]["hand"])
    after, facts = play(state, 0, "sophus")
    assert after["seats"][0]["stargold"] == 0 and facts[0]["data"]["cost"] == 1
    assert after["seats"][0]["hand"] == {**before, TITAN: before[TITAN] + 1,
                                         ATMO: before[ATMO] + 1}
    assert all(f["to"] == [0] for f in facts if "drawn" in f["data"])
    poor = started()
    poor["seats"][0]["planets"]["sophus"] = [EXO, EXO, EXO]
    assert "sophus" not in ids(poor, 0)  # nothing to pay with


def test_fragmentum_example() -> None:
    """"If the satellite you choose to scrap has a price of 3 stargold, you get 2 stargold and
    put it in your scrapyard." """
    state = started()
    player = state["seats"][0]
    player["planets"]["fragmentum"] = [TITAN, TITAN, TITAN]
    sat = take_card(state, "satellite", cost=3)
    player["satellites"]["capital_one"] = sat
    after, facts = play(state, 0, f"fragmentum:{sat}")
    assert after["seats"][0]["stargold"] == 2 and facts[0]["data"]["gain"] == 2
    assert sat in after["seats"][0]["scrapyard"] and not after["seats"][0]["satellites"]
    assert not any(m.startswith("fragmentum:") for m in ids(after, 0))  # once a phase
    after = to_phase(after, "buying")  # README decision 24: the orbit is free again
    market_card(after, 0, "satellite")
    after["seats"][0]["stargold"] = 10
    assert "buy:0:capital_one" in ids(after, 0)


def test_card_benefits_are_optional_and_once_each() -> None:
    """"In this phase, the active player receives benefits from some of the planets,
    satellites and orbital stations." "You decide the order in which you want to receive the
    benefits." (each once per benefit phase: README decision 7)"""
    state = started()
    player = state["seats"][0]
    player["planets"]["lux"] = [SOLAR]
    gold = take_card(state, "satellite", ability={"benefit_stargold": 1})
    draw = take_card(state, "satellite", ability={"benefit_draw": 1})
    player["satellites"] = {"capital_one": gold, "lux": draw}
    assert {f"benefit:{gold}", f"benefit:{draw}"} <= set(ids(state, 0))
    hand = hand_total(state, 0)
    state, _ = play(state, 0, f"benefit:{draw}")
    state, facts = play(state, 0, f"benefit:{gold}")
    assert hand_total(state, 0) == hand + 1 and state["seats"][0]["stargold"] == 1
    assert facts[0]["data"] == {"seat": 0, "card": gold, "gain": 1}
    assert ids(state, 0) == ["buy"]


def test_a_benefit_plays_a_factory_without_bonus() -> None:
    """"When you play a mega-factory using the ability of a satellite, independent orbital
    station or planet ... you WILL NOT get the construction bonus or the immediate advantage,
    if it was the third factory." (it still controls the planet: decisions note)"""
    state = started()
    card = take_card(state, "station", ability={"benefit_play_factory": True})
    state["seats"][0]["stations"] = [card]
    state["seats"][0]["planets"]["lux"] = [EXO, EXO]
    set_hand(state, 0, exovegetation=1)
    state, _ = play(state, 0, f"benefit:{card}")
    assert state["phase"] == "place" and ids(state, 0) == ["place:exovegetation:lux", "skip"]
    state, facts = play(state, 0, "place:exovegetation:lux")
    player = state["seats"][0]
    assert player["planets"]["lux"] == [EXO, EXO, EXO] and player["stargold"] == 0
    assert hand_total(state, 0) == 0 and state["phase"] == "benefit"
    assert any(f["data"].get("planet") == "lux" and "controls" in f["text"] for f in facts)


# --- 2. buying phase ---------------------------------------------------------------------


def test_buying_the_card_pointing_at_another_pays_them_one() -> None:
    """"If you buy a card that points to another player, you have to pay 1 stargold of the
    total price to the player the card was pointing at. The rest of the stargold is paid to
    the supply." """
    state = to_phase(started(), "buying")
    card = market_card(state, 2, "station", cost=3)
    state["seats"][0]["stargold"] = 10
    after, facts = play(state, 0, "buy:2")
    assert after["seats"][0]["stargold"] == 7 and after["seats"][2]["stargold"] == 1
    assert card in after["seats"][0]["stations"]
    assert facts[0]["data"] == {"seat": 0, "card": card, "slot": 2, "cost": 3,
                                "paid_to": {"seat": 2, "stargold": 1}}


@pytest.mark.parametrize(("players", "slot", "pointed"), [
    (2, 0, None), (2, 1, None), (2, 2, 1), (2, 3, 1),
    (3, 0, None), (3, 1, 1), (3, 2, 2), (3, 3, None),
    (4, 0, None), (4, 1, 1), (4, 2, 2), (4, 3, 3)])
def test_the_market_by_player_count(players: int, slot: int, pointed: int | None) -> None:
    """"If you buy the card that points at you, just pay its price in stargold to the supply.
    The same happens if you buy the card pointing at no one during a 3-player game." "If you
    are playing a 2-player game, 2 cards should be pointing at each player." (seat 0 buys)"""
    state = to_phase(started(players), "buying")
    market_card(state, slot, "station", cost=3)
    state["seats"][0]["stargold"] = 10
    after, _ = play(state, 0, f"buy:{slot}")
    others = [p["stargold"] for p in after["seats"][1:]]
    assert after["seats"][0]["stargold"] == 7
    assert others == [1 if s == pointed else 0 for s in range(1, players)]


def test_gaps_are_refilled_only_before_phase_3() -> None:
    """"Unless the effect of a card or planet states otherwise, you do not fill the gaps
    immediately after buying a card. This means that you are usually limited to 4 purchases
    per turn." "Before moving on to phase 3, you need to fill up all the gaps in the market
    area with new cards from the investment deck." """
    state = to_phase(started(), "buying")
    for slot in range(4):
        market_card(state, slot, "cargo")
    state["seats"][0]["stargold"] = 30
    for slot in range(4):
        state, _ = play(state, 0, f"buy:{slot}")
        assert state["market"][slot] is None
    assert ids(state, 0) == ["done"]  # four purchases, no more
    top = state["investment_deck"][-4:]
    done, facts = play(state, 0, "done")
    assert done["market"] == top[::-1] and done["phase"] == "phase3"
    assert [f["data"]["slot"] for f in facts] == [0, 1, 2, 3]


def test_morula_calva() -> None:
    """"When you buy a card that does not point at you during the BUYING PHASE (2), you do not
    have to give 1 stargold to the player it points at. Also, refill the gap in the market
    area as soon as you buy a card." (the whole price to the supply: decisions note)"""
    state = to_phase(started(), "buying")
    state["seats"][0]["planets"]["morula_calva"] = [ATMO, ATMO, ATMO]
    market_card(state, 1, "station", cost=3)
    state["seats"][0]["stargold"] = 10
    top = state["investment_deck"][-1]
    after, facts = play(state, 0, "buy:1")
    assert after["seats"][1]["stargold"] == 0 and after["seats"][0]["stargold"] == 7
    assert "paid_to" not in facts[0]["data"]
    assert after["market"][1] == top and after["phase"] == "buying"


def test_a_refill_card_refills_at_once() -> None:
    """"Unless the effect of a card or planet states otherwise, you do not fill the gaps
    immediately after buying a card." (a `buy_refill` station, like Morula Calva, says
    otherwise; it does not spare the 1 stargold to the pointed-at player)"""
    state = to_phase(started(), "buying")
    state["seats"][0]["stations"] = [take_card(state, "station", ability={"buy_refill": True})]
    market_card(state, 1, "station", cost=3)
    state["seats"][0]["stargold"] = 10
    top = state["investment_deck"][-1]
    after, _ = play(state, 0, "buy:1")
    assert after["market"][1] == top and after["seats"][1]["stargold"] == 1
    fresh = to_phase(started(), "buying")  # README decision 20: it refills its own gap
    card = market_card(fresh, 0, "station", ability={"buy_refill": True})
    fresh["seats"][0]["stargold"] = 10
    after, _ = play(fresh, 0, "buy:0")
    assert after["seats"][0]["stations"] == [card] and after["market"][0] is not None


@pytest.mark.parametrize(("cost", "slot", "pays", "to_player"),
                         [(3, 1, 2, 1), (2, 1, 1, 1), (1, 1, 1, 1), (1, 0, 0, 0), (3, 0, 2, 0)])
def test_a_discount_comes_off_the_supplys_share(cost: int, slot: int, pays: int,
                                                to_player: int) -> None:
    """"If you buy a card that points to another player, you have to pay 1 stargold of the
    total price to the player the card was pointing at. The rest of the stargold is paid to
    the supply." "Some effects of cards ... may affect these rules" (a `buy_discount` of 1
    comes off the supply's share: components.json, README decision 8)"""
    state = to_phase(started(), "buying")
    state["seats"][0]["stations"] = [take_card(state, "station", ability={"buy_discount": 1})]
    kind = "worker" if cost == 1 else "station"
    market_card(state, slot, kind, cost=cost)
    state["seats"][0]["stargold"] = 10
    after, facts = play(state, 0, f"buy:{slot}")
    assert after["seats"][0]["stargold"] == 10 - pays and facts[0]["data"]["cost"] == pays
    assert after["seats"][1]["stargold"] == to_player


def test_satellite_needs_a_free_slot_over_a_planet_with_a_factory() -> None:
    """"Place them in a slot over a planet ("orbit") that has at least one mega-factory. You
    can only buy a satellite if you have one of these slots available." "You can't place more
    than one satellite over the same planet." """
    state = to_phase(started(), "buying")
    card = market_card(state, 0, "satellite")
    state["seats"][0]["stargold"] = 10
    assert [m for m in ids(state, 0) if m.startswith("buy:0")] == ["buy:0:capital_one"]
    other = take_card(state, "satellite")
    state["seats"][0]["satellites"]["capital_one"] = other
    assert not any(m.startswith("buy:0") for m in ids(state, 0))
    del state["seats"][0]["satellites"]["capital_one"]
    after, _ = play(state, 0, "buy:0:capital_one")
    assert after["seats"][0]["satellites"] == {"capital_one": card}


def test_stations_are_unlimited() -> None:
    """"These cards do not take up any space on your board, so you can collect as many as you
    want during the game." """
    state = to_phase(started(), "buying")
    state["seats"][0]["stations"] = [take_card(state, "station") for _ in range(3)]
    card = market_card(state, 0, "station")
    state["seats"][0]["stargold"] = 10
    after, _ = play(state, 0, "buy:0")
    assert after["seats"][0]["stations"][-1] == card and len(after["seats"][0]["stations"]) == 4


def test_a_cargo_ship_goes_to_the_hand() -> None:
    """"Cargo ships: Add them to your hand. ... These cards stay in your hand until you use
    them, so they account for your maximum hand size." """
    state = to_phase(started(), "buying")
    card = market_card(state, 0, "cargo")
    state["seats"][0]["stargold"] = 10
    before = GAME.view(state, 1)["players"][0]["hand_count"]
    after, facts = play(state, 0, "buy:0")
    assert after["seats"][0]["cargo"] == [card]
    assert GAME.view(after, 1)["players"][0]["hand_count"] == before + 1
    assert facts[0]["to"] == "all" and facts[0]["data"]["card"] == card  # bought face up


def test_hired_worker_plays_a_matching_factory_without_bonus() -> None:
    """"As soon as you hire a Biocultist worker, it allows you to play a mega-factory card
    from your hand if its resource matches that of the worker." "you will not receive that
    factory's construction bonus"; "In any case, put the worker in your personal scrapyard." """
    state = to_phase(started(), "buying")
    card = market_card(state, 0, "worker")
    clan = INVESTMENT[card]["clan"]
    set_hand(state, 0, **{clan: 1})
    state["seats"][0]["stargold"] = 10
    after, _ = play(state, 0, "buy:0")
    assert card in after["seats"][0]["scrapyard"] and after["phase"] == "place"
    assert "skip" in ids(after, 0)
    target = next(m for m in ids(after, 0) if m.startswith("place:"))
    placed, _ = play(after, 0, target)
    planet = target.split(":")[2]
    assert placed["seats"][0]["planets"][planet] == [clan]
    assert hand_total(placed, 0) == 0  # no construction bonus
    assert placed["phase"] == "buying"


def test_a_third_factory_played_by_a_worker_controls_but_pays_nothing() -> None:
    """"IMPORTANT: When you hire a Biocultist worker and play a factory, you will not receive
    that factory's construction bonus nor its immediate stargold bonus (if it was the last
    factory of that planet)." (the planet is controlled all the same: decisions note)"""
    state = to_phase(started(), "buying")
    market_card(state, 0, "worker", clan=TITAN, cost=1)
    set_hand(state, 0, titanium=1)
    state["seats"][0]["planets"]["lux"] = [TITAN, TITAN]
    state["seats"][0]["stargold"] = 1
    state, _ = play(state, 0, "buy:0")
    state, facts = play(state, 0, "place:titanium:lux")
    assert state["seats"][0]["planets"]["lux"] == [TITAN] * 3
    assert state["seats"][0]["stargold"] == 0 and hand_total(state, 0) == 0
    assert any("controls" in f["text"] and f["data"]["planet"] == "lux" for f in facts)
    assert not any("gain" in f["data"] for f in facts) and state["phase"] == "buying"


def test_worker_without_matching_card_is_still_hired() -> None:
    """"If you do not have a matching mega-factory card in your hand you can still hire the
    worker, but his effect will be lost." Under rules version 2 the buyer is asked as if it
    might hold one, and can only skip (the next test says why)."""
    state = to_phase(started(), "buying")
    card = market_card(state, 0, "worker")
    other = next(r for r in RESOURCES if r != INVESTMENT[card]["clan"])
    set_hand(state, 0, **{other: 2})
    state["seats"][0]["stargold"] = 10
    after, _ = play(state, 0, "buy:0")
    assert card in after["seats"][0]["scrapyard"]
    assert after["phase"] == "place" and ids(after, 0) == ["skip"]
    back, facts = play(after, 0, "skip")
    assert back["phase"] == "buying" and back["seats"][0]["hand"][other] == 2 and facts == []


def _hire_worker(state: State, matching: bool) -> tuple[State, list[Fact]]:
    """Seat 0 hires a worker holding two cards: one of the worker's clan, or none."""
    state = to_phase(state, "buying")
    card = market_card(state, 0, "worker")
    clan = INVESTMENT[card]["clan"]
    other = next(r for r in RESOURCES if r != clan)
    set_hand(state, 0, **({clan: 1, other: 1} if matching else {other: 2}))
    state["seats"][0]["stargold"] = 10
    return play(state, 0, "buy:0")


@pytest.mark.parametrize("reader", [1, 2, 3, None])
def test_hiring_a_worker_shows_nobody_the_buyers_hand(reader: int | None) -> None:
    """"Any card in your hands during the game will be kept in secret to other players."
    (setup, step 9). Rules version 2: whether the buyer holds a card of the worker's clan
    changes nothing another seat or a spectator sees (version 1 moved on to `place` only
    when it did, which told everyone)."""
    (holds, holds_facts), (lacks, lacks_facts) = (
        _hire_worker(started(), matching) for matching in (True, False))
    assert GAME.view(holds, reader) == GAME.view(lacks, reader)
    assert conf.visible_facts(holds_facts, reader) == conf.visible_facts(lacks_facts, reader)
    assert holds["phase"] == lacks["phase"] == "place"


def test_rules_version_1_still_skips_the_step_without_a_matching_card() -> None:
    """History stays true: a version 1 game goes on as it was played, straight back to
    buying when the buyer holds no card of the worker's clan."""
    first = get_game("trappist-one", "1")
    assert GAME.rules_version == "2" and first.rules_version == "1"
    old = first.setup(4, {}, Rng(b"seed-0", 0))
    assert "rules" not in old
    old = started_from(old)
    lacks, _ = _hire_worker(old, matching=False)
    holds, _ = _hire_worker(started_from(first.setup(4, {}, Rng(b"seed-0", 0))), matching=True)
    assert lacks["phase"] == "buying" and holds["phase"] == "place"


# --- 3A. construction ----------------------------------------------------------------------


def test_construction_limits() -> None:
    """"You cannot build a mega-factory on a planet you already control." "You cannot build a
    mega-factory on a planet if you already have another incomplete planet"."""
    state = to_phase(started(), "phase3")
    set_hand(state, 0, solar=2)
    builds = [m for m in ids(state, 0) if m.startswith("build:")]
    assert "build:solar:capital_one" not in builds
    assert len(builds) == 6  # every empty planet
    state["seats"][0]["planets"]["lux"] = [EXO]
    assert [m for m in ids(state, 0) if m.startswith("build:")] == ["build:solar:lux"]


@pytest.mark.parametrize(("before", "draws", "gold"), [
    ([EXO, ATMO], 3, 1), ([ATMO], 2, 0), ([SOLAR, SOLAR], 1, 3)])
def test_construction_bonus_examples(before: list[str], draws: int, gold: int) -> None:
    """"After building a solar energy mega-factory, the planet produces 3 different resources
    (solar energy, exovegetation and atmosphere). This player draws 3 cards from the
    mega-factory deck and also controls this planet now." / "... 2 different resources (solar
    energy and atmosphere). This player draws 2 cards" / "... 1 kind of resource (solar
    energy). This player draws 1 card from the mega-factory deck and also controls this planet
    now." and "You would get only 1 stargold in the first case ... You would get 3 stargold in
    the third case ... You would not get any stargold for the second case, since that planet
    is not under your control, yet." """
    state = to_phase(started(), "phase3")
    set_hand(state, 0, solar=1)
    state["seats"][0]["planets"]["navalis"] = list(before)
    drawn = [TITAN, TITAN, EXO][:draws]
    stack_deck(state, *drawn)
    after, facts = play(state, 0, "build:solar:navalis")
    player = after["seats"][0]
    assert player["planets"]["navalis"] == [*before, SOLAR]
    assert player["hand"] == {r: drawn.count(r) for r in RESOURCES}
    assert player["stargold"] == gold
    controlled = any("controls" in f["text"] for f in facts)
    assert controlled == (len(before) == 2)
    assert sum(f["data"].get("gain", 0) for f in facts) == gold


def test_architecton_plays_another_for_its_place() -> None:
    """"When you build a mega-factory in the MEGA-FACTORY CONSTRUCTION PHASE (A), you can pay
    stargold to play another mega-factory right after. This mega-factory will cost you 1
    stargold if it is the first factory on its planet, 2 if it is the second and 3 if it is
    the third. Playing mega-factories like this does not count as construction, so you do not
    get the usual bonuses." """
    state = to_phase(started(), "phase3")
    state["seats"][0]["planets"]["architecton"] = [TITAN, TITAN, TITAN]
    state["seats"][0]["stargold"] = 5
    set_hand(state, 0, solar=2)
    after, _ = play(state, 0, "build:solar:lux")
    assert after["phase"] == "architecton" and "skip" in ids(after, 0)
    extra = next(m for m in GAME.legal_moves(after, 0) if m["id"] == "extra:solar:lux")
    assert extra["cost"] == 2
    hand = hand_total(after, 0)
    done, facts = play(after, 0, "extra:solar:lux")
    assert done["seats"][0]["stargold"] == 3 and facts[0]["data"]["cost"] == 2
    assert done["seats"][0]["planets"]["lux"] == [SOLAR, SOLAR]
    assert hand_total(done, 0) == hand - 1


# --- 3B. shipment ------------------------------------------------------------------------


def test_shipment_example_1_specialised_production() -> None:
    """"You call a Biocultist ship from Earth. The ship is blue, which stands for the Clan
    specialized in atmospheres, so you draw 1 card from the mega-factory deck for each
    mega-factory that produces atmospheres on all your planets. In this case, you have 3, so
    you draw 3 cards." """
    state = to_phase(started(), "phase3")
    state["seats"][0]["planets"]["capital_one"] = [ATMO, ATMO, SOLAR]
    state["seats"][0]["planets"]["lux"] = [ATMO, TITAN]
    set_hand(state, 0)
    stack_deck(state, SOLAR, EXO, EXO)
    after, _ = play(state, 0, "ship:atmosphere")
    assert after["seats"][0]["hand"] == {SOLAR: 1, EXO: 2, ATMO: 0, TITAN: 0}
    assert after["phase"] == "produce"


def _example_2(atmosphere_factories: int) -> tuple[State, str]:
    """The state of shipment Example 2 ("2 solar energy mega-factories and 4 exovegetation
    mega-factories"), with the two titanium factories of the non-specialised production
    example, and `atmosphere_factories` of atmosphere; the cargo ship is a solar and
    exovegetation one of loading capacity 5 ("it is 5"), from the Exodite stand-ins."""
    state = to_phase(started(exodite=True), "phase3")
    planets = state["seats"][0]["planets"]
    planets["capital_one"] = [SOLAR, EXO, TITAN]
    planets["lux"] = [EXO, EXO, TITAN]
    if atmosphere_factories:
        planets["sophus"] = [ATMO, ATMO, EXO]
        planets["fragmentum"] = [SOLAR]
    else:
        planets["fragmentum"] = [SOLAR, EXO]
    cargo = take_card(state, "cargo", resources=[SOLAR, EXO], capacity=5)
    state["seats"][0]["cargo"] = [cargo]
    set_hand(state, 0, atmosphere=1)
    stack_deck(state, TITAN, TITAN, TITAN, EXO, SOLAR, ATMO)
    return state, cargo


def test_shipment_example_2_a_cargo_ship_of_two_resources() -> None:
    """"This cargo ship is specialized in 2 resources: solar energy and exovegetation (yellow
    and green). Thus, she draws 1 card from the mega-factory deck for each mega-factory that
    produces solar energy or exovegetation on all her planets. In this case, she would draw 6
    cards (2 solar energy mega-factories and 4 exovegetation mega-factories)." """
    state, cargo = _example_2(atmosphere_factories=0)
    after, facts = play(state, 0, f"cargo:{cargo}")
    assert hand_total(after, 0) == 1 + 6
    assert [f["data"]["count"] for f in public(facts) if "count" in f["data"]] == [6]


def test_non_specialised_production_example() -> None:
    """"after finishing her specialized production and drawing 6 cards ... The player chooses
    to discard 2 titanium, 1 exovegetation and 1 solar energy mega-factory cards ... Although
    the loading capacity of her cargo ship would have allowed her to produce one more time (it
    is 5 and she only produced 4 times), she cannot produce with any of the remaining cards in
    her hand: she cannot play a third titanium card because she already used her two
    available titanium mega-factories, and she cannot use her atmosphere cards because she
    does not have a mega-factory of that type. ... puts the 4 produced stargold pieces on
    Capital One." """
    state, cargo = _example_2(atmosphere_factories=0)
    state, _ = play(state, 0, f"cargo:{cargo}")
    assert state["shipment"]["capacity"] == 5
    assert state["seats"][0]["hand"] == {SOLAR: 1, EXO: 1, ATMO: 2, TITAN: 3}
    for r in (TITAN, TITAN, EXO, SOLAR):
        state, _ = play(state, 0, f"produce:{r}")
    assert ids(state, 0) == ["done"]
    state, facts = play(state, 0, "done")
    assert state["seats"][0]["stargold"] == 4 and facts[0]["data"]["gain"] == 4
    assert cargo in state["seats"][0]["scrapyard"]
    assert state["factory_discard"] == {SOLAR: 1, EXO: 1, ATMO: 0, TITAN: 2}


def test_non_specialised_production_example_with_two_atmosphere_factories() -> None:
    """"If she had had 2 atmosphere mega-factories on her planets, she could have produced in
    both of them by discarding one of the cards in her hangar to increase her loading
    capacity to 6." and "IMPORTANT: You can produce in ANY mega-factory during the
    non-specialized production phase, even if the resources do not match" """
    state, cargo = _example_2(atmosphere_factories=2)
    state["seats"][0]["hangar"] = [take_ship(state, TITAN)]
    state, _ = play(state, 0, f"cargo:{cargo}")
    for r in (TITAN, TITAN, EXO, SOLAR, ATMO):
        state, _ = play(state, 0, f"produce:{r}")
    assert ids(state, 0) == ["hangar", "done"]  # the capacity of 5 is used up
    state, _ = play(state, 0, "hangar")
    assert state["shipment"]["capacity"] == 6 and state["seats"][0]["hangar"] == []
    state, _ = play(state, 0, "produce:atmosphere")
    state, _ = play(state, 0, "done")
    assert state["seats"][0]["stargold"] == 6 and state["ship_discard"] == 1


def test_biocultist_ship_to_hangar_and_hangar_adds_capacity() -> None:
    """"If you called a Biocultist ship, put the ship in your hangar face down." and "you can
    increase your loading capacity by 1 for each card you discard from your hangar"."""
    state = to_phase(started(), "phase3")
    state["seats"][0]["hangar"] = [take_ship(state, SOLAR)]
    ship = state["earth"]["titanium"][0]
    after, _ = play(state, 0, "ship:titanium")
    cap = after["shipment"]["capacity"]
    assert cap == SHIPS[ship]["capacity"]
    after, _ = play(after, 0, "hangar")
    assert after["shipment"]["capacity"] == cap + 1 and after["seats"][0]["hangar"] == []
    after, _ = play(after, 0, "done")
    assert after["seats"][0]["hangar"] == [ship]
    seen = GAME.view(after, 1)["players"][0]
    assert seen["hangar_count"] == 1 and "hangar" not in seen  # face down


def test_a_shipment_may_produce_nothing() -> None:
    """"If there are no Biocultist ships left from one or more of the clans, you cannot call
    those clans." and a shipment that produces nothing (decisions note: "a shipment may
    produce nothing")."""
    state = to_phase(started(), "phase3")
    state["earth"][ATMO] = []
    assert "ship:atmosphere" not in ids(state, 0)
    set_hand(state, 0)
    state["seats"][0]["planets"]["capital_one"] = [SOLAR, SOLAR, SOLAR]
    ship = state["earth"][TITAN][0]
    state, _ = play(state, 0, "ship:titanium")
    assert ids(state, 0) == ["done"]
    state, _ = play(state, 0, "done")
    assert state["seats"][0]["stargold"] == 0 and state["seats"][0]["hangar"] == [ship]


def test_navalis_adds_one() -> None:
    """"All Biocultist ships and cargo ships you call during the SHIPMENT PHASE 3(B) increase
    their loading capacity by 1 automatically." """
    state = to_phase(started(), "phase3")
    state["seats"][0]["planets"]["navalis"] = [SOLAR, SOLAR, SOLAR]
    ship = state["earth"]["exovegetation"][0]
    after, _ = play(state, 0, "ship:exovegetation")
    assert after["shipment"]["capacity"] == SHIPS[ship]["capacity"] + 1
    cargo = take_card(state, "cargo")
    state["seats"][0]["cargo"] = [cargo]
    after, _ = play(state, 0, f"cargo:{cargo}")
    assert after["shipment"]["capacity"] == INVESTMENT[cargo]["capacity"] + 1


# --- reactions out of turn ------------------------------------------------------------------


def _give_reaction(state: State, seat: int, clan: str) -> str:
    """A `react_clan_draw: clan` card into `seat`'s play area (a satellite over Capital One if
    that orbit is free, else as a station: where it sits does not matter to the reaction)."""
    card = take_card(state, ability={"react_clan_draw": clan})
    player = state["seats"][seat]
    if INVESTMENT[card]["kind"] == "satellite" and "capital_one" not in player["satellites"]:
        player["satellites"]["capital_one"] = card
    else:
        player["stations"].append(card)
    return card


def test_reaction_makes_its_owners_actors_together() -> None:
    """"Satellites and orbital stations can have abilities that trigger during another
    player's action. You have to be very careful not to miss those moments!" Several owners
    decide together, and declining is a move (decisions note: "A reaction that needs a
    decision makes its owner an actor out of turn")."""
    state = to_phase(started(4, exodite=True), "phase3")  # two solar reactions exist
    a = _give_reaction(state, 3, SOLAR)
    b = _give_reaction(state, 1, SOLAR)
    hands = [hand_total(state, s) for s in range(4)]
    state, _ = play(state, 0, "ship:solar")
    assert state["phase"] == "react" and GAME.actors(state) == {1, 3}
    assert GAME.legal_moves(state, 0) == [] and GAME.legal_moves(state, 2) == []
    assert ids(state, 3) == [f"react:{a}", f"decline:{a}"]
    state, _ = play(state, 3, f"react:{a}")
    assert GAME.actors(state) == {1}
    state, facts = play(state, 1, f"decline:{b}")
    assert state["phase"] == "produce" and GAME.actors(state) == {0}
    assert hand_total(state, 3) == hands[3] + 1 and hand_total(state, 1) == hands[1]
    drawn = [f for f in facts if "drawn" in f["data"]]
    assert drawn[0]["to"] == [3]  # what a reaction shows is its owner's alone


def test_reactions_take_effect_clockwise_from_the_active_player() -> None:
    """Decisions note: "Several reactions to one trigger take effect clockwise from the
    active player." Seat 2 calls; seats 3 and 0 react (in the order 0, then 3): seat 3 draws
    first. Each sees only its own drawn card."""
    state = started(4, exodite=True)
    state = finish_turn(finish_turn(state))
    state = to_phase(state, "phase3")
    assert state["active"] == 2
    a = _give_reaction(state, 0, SOLAR)
    b = _give_reaction(state, 3, SOLAR)
    hands = [dict(p["hand"]) for p in state["seats"]]
    stack_deck(state, ATMO, TITAN)
    state, _ = play(state, 2, "ship:solar")
    assert GAME.actors(state) == {0, 3}
    state, _ = play(state, 0, f"react:{a}")
    assert hand_total(state, 0) == sum(hands[0].values())  # nothing drawn before all decide
    state, facts = play(state, 3, f"react:{b}")
    assert state["seats"][3]["hand"][ATMO] == hands[3][ATMO] + 1
    assert state["seats"][0]["hand"][TITAN] == hands[0][TITAN] + 1
    private = [(f["to"], f["data"]["drawn"]) for f in facts if "drawn" in f["data"]]
    assert private[:2] == [([3], {ATMO: 1}), ([0], {TITAN: 1})]
    seen_by_0 = GAME.view(state, 0)["players"][3]
    assert "hand" not in seen_by_0 and seen_by_0["hand_count"] == hand_total(state, 3)


def test_a_seat_decides_its_reactions_one_at_a_time() -> None:
    """README decision 16: "a seat with several reactions decides them one at a time"."""
    state = to_phase(started(3, exodite=True), "phase3")
    a = _give_reaction(state, 1, SOLAR)
    b = _give_reaction(state, 1, SOLAR)
    hand = hand_total(state, 1)
    state, _ = play(state, 0, "ship:solar")
    first = ids(state, 1)
    assert len(first) == 2 and first[0].split(":", 1)[1] in {a, b}
    state, _ = play(state, 1, first[1])  # decline the first
    second = ids(state, 1)
    assert second != first and GAME.actors(state) == {1}
    state, _ = play(state, 1, second[0])  # use the second
    assert hand_total(state, 1) == hand + 1 and state["phase"] == "produce"


def test_no_reaction_to_your_own_call_nor_to_a_cargo_ship() -> None:
    """"abilities that trigger during another player's action"; a cargo ship has no clan
    (README decision 16)."""
    state = to_phase(started(4), "phase3")
    _give_reaction(state, 0, SOLAR)
    after, _ = play(state, 0, "ship:solar")
    assert after["phase"] == "produce"
    state = to_phase(started(4), "phase3")
    _give_reaction(state, 1, SOLAR)
    cargo = take_card(state, "cargo", resources=[SOLAR])
    state["seats"][0]["cargo"] = [cargo]
    after, _ = play(state, 0, f"cargo:{cargo}")
    assert after["phase"] == "produce"


# --- 4. end phase --------------------------------------------------------------------------


def test_hand_limit() -> None:
    """"Capital One allows you to hold up to 5 cards in your hand at the end of your turn. For
    each additional planet you have at least one mega-factory on your hand limit increases by
    1. Remember: you just need one mega-factory on a planet to increase your hand size, you do
    not have to control it!" """
    state = to_phase(started(), "phase3")
    assert hand_limit(state["seats"][0]) == 5
    state["seats"][0]["planets"]["lux"] = [SOLAR]
    assert hand_limit(state["seats"][0]) == 6
    state["seats"][0]["planets"]["capital_one"] = [SOLAR, SOLAR, SOLAR]  # no titanium to draw
    set_hand(state, 0, solar=9)
    state["seats"][0]["planets"]["lux"] = []
    after, _ = play(state, 0, "ship:titanium")
    after, _ = play(after, 0, "done")
    assert after["phase"] == "end" and after["active"] == 0
    while after["phase"] == "end":
        after, _ = play(after, 0, ids(after, 0)[0])
    assert hand_total(after, 0) == 5 and after["factory_discard"][SOLAR] == 4
    assert after["active"] == 1


def test_a_cargo_ship_discarded_at_the_hand_limit_goes_to_the_scrapyard() -> None:
    """"Both, mega-factory cards and bought cargo ships, account for this limit." "The
    discarded cards go either in your scrapyard (cargo ships) or into the general discard pile
    (mega-factories)." """
    state = to_phase(started(), "phase3")
    state["seats"][0]["planets"]["capital_one"] = [SOLAR, SOLAR, SOLAR]  # no titanium to draw
    set_hand(state, 0, solar=5)
    cargo = take_card(state, "cargo")
    state["seats"][0]["cargo"] = [cargo]
    state, _ = play(state, 0, "ship:titanium")
    state, _ = play(state, 0, "done")
    assert ids(state, 0) == ["discard:solar", f"discard:{cargo}"]
    state, facts = play(state, 0, f"discard:{cargo}")
    assert state["seats"][0]["scrapyard"] == [cargo] and state["active"] == 1
    assert facts[0]["to"] == "all" and facts[0]["data"]["card"] == cargo


# --- planets -------------------------------------------------------------------------------


def test_capital_one() -> None:
    """"This planet does not grant you any ability or benefit, you already start the game
    controlling it." and "At the beginning of the game you already have presence and control
    over Capital One." """
    state = started(2)
    for player in state["seats"]:
        assert len(player["planets"]["capital_one"]) == 3 and hand_limit(player) == 5
    assert ids(state, 0) == ["buy"]  # no benefit
    sheet = GAME.score(state)
    assert all(e["breakdown"]["planets"] == PLANET_VP["capital_one"] for e in sheet["seats"])


# --- what a seat knows ---------------------------------------------------------------------


def test_determinize_keeps_what_the_log_names() -> None:
    """README decision 17: another seat's cargo in hand, scrapyard and hangar were all named
    in public facts, so a determinization keeps them; its mega-factory hand and the decks are
    dealt anew from the unseen cards."""
    state = to_phase(started(3), "buying")
    market_card(state, 0, "cargo")
    market_card(state, 1, "worker")
    state["seats"][0]["stargold"] = 20
    state, _ = play(state, 0, "buy:0")
    state, _ = play(state, 0, "buy:1")
    if state["phase"] == "place":
        state, _ = play(state, 0, "skip")
    state, _ = play(state, 0, "done")
    state, _ = play(state, 0, "ship:solar")
    state = finish_turn(state)
    seen = GAME.view(state, 1)["players"][0]
    assert "scrapyard" not in seen and seen["scrapyard_count"] == 1  # face down in the view
    changed = 0
    for n in range(8):
        other = GAME.determinize(state, 1, rng(n))
        for key in ("cargo", "scrapyard", "hangar"):
            assert other["seats"][0][key] == state["seats"][0][key]
        assert other["seats"][1] == state["seats"][1]
        changed += other["seats"][0]["hand"] != state["seats"][0]["hand"]
        changed += other["investment_deck"] != state["investment_deck"]
    assert changed


def test_determinize_deals_the_unrevealed_picks_anew() -> None:
    """"Each player chooses 3 mega-factories from their hands." A pick not yet revealed is
    dealt anew with the deck and the other hands, 3 cards again."""
    state = new_game(3)
    state, _ = play(state, 1, ids(state, 1)[-1])
    picks = set()
    for n in range(12):
        other = GAME.determinize(state, 0, rng(n))
        assert sum(other["seats"][1]["pick"].values()) == 3
        assert other["seats"][0] == state["seats"][0]
        picks.add(tuple(sorted(other["seats"][1]["pick"].items())))
    assert len(picks) > 1


RESHUFFLED = "The mega-factory discard pile is shuffled into a new deck."


def test_determinize_after_a_reshuffle_deals_only_worlds_the_log_allows() -> None:
    """Decisions note: "The mega-factory discard pile is reshuffled into a new deck when the
    deck runs out", and the discard pile is public (README decision 11): from then on every
    seat knows what the new deck started with, how many cards each seat drew from it and
    which left a hand face up. So a determinization (README decision 17) deals the new deck
    only out of those cards less the ones the seat drew itself; gives another seat no more
    cards the new deck could not have held than it held before the reshuffle; keeps every
    hand's size and the unseen cards; and its own account of who drew what from the new deck
    adds up to what that deck started with, each seat's draws being still in its hand or
    among the cards it played since. Random legal play past a reshuffle, at 2, 3 and 4
    players, every seat, many worlds."""
    worlds = changed = 0
    for players in (2, 3, 4):
        state = started(players, seed=players)
        deck, keep = state["factory_deck"], players - 1
        for r in deck[:-keep]:  # all but 1 to 3 cards face up in the discard pile: a reshuffle
            state["factory_discard"][r] += 1  # soon, likely in the middle of a draw
        del deck[:-keep]
        walk = Rng(b"reshuffle-walk", players)
        pool: Counter[str] | None = None
        held = [0] * players  # the most cards of before the reshuffle a seat can hold
        mine: list[Counter[str]] = [Counter() for _ in range(players)]  # drawn after its move
        played: list[Counter[str]] = [Counter() for _ in range(players)]  # face up since
        for n in range(120):
            if GAME.is_over(state):
                break
            seat = min(GAME.actors(state))
            moves = GAME.legal_moves(state, seat)
            before = state
            state, facts = GAME.play(state, seat, moves[walk.randbelow(len(moves))], rng(n))
            if any(f["text"] == RESHUFFLED for f in facts):
                if pool is not None:
                    break  # a second reshuffle: enough
                pool = Counter(before["factory_discard"])
                held = [hand_total(before, s) + sum(f["data"]["count"] for f in facts
                                                    if f["to"] == "all" and "count" in f["data"]
                                                    and f["data"]["seat"] == s)
                        for s in range(players)]
                continue
            if pool is None or GAME.is_over(state):
                continue
            for f in facts:
                if f["to"] != "all" and "drawn" in f["data"]:
                    mine[f["data"]["seat"]].update(f["data"]["drawn"])
                if f["to"] == "all" and "resource" in f["data"]:
                    played[f["data"]["seat"]][f["data"]["resource"]] += 1
            unseen: Counter[str] = Counter(state["factory_deck"])
            for me in range(players):
                others = [s for s in range(players) if s != me]
                for k in range(3):
                    world = GAME.determinize(state, me, rng(1000 * n + 10 * me + k))
                    worlds += 1
                    new_deck = pool - mine[me]
                    assert Counter(world["factory_deck"]) <= new_deck
                    assert GAME.view(world, me) == GAME.view(state, me)
                    assert world["seats"][me] == state["seats"][me]
                    dealt: Counter[str] = Counter(world["factory_deck"])
                    for s in others:
                        hand = world["seats"][s]["hand"]
                        assert sum(hand.values()) == hand_total(state, s)
                        assert sum(max(0, hand[r] - new_deck[r]) for r in RESOURCES) <= held[s]
                        dealt.update(hand)
                        drew = Counter(world["seats"][s]["drawn"])
                        drew.update(world["seats"][s]["straddle"])
                        assert drew <= Counter(hand) + played[s]
                    assert dealt == unseen + sum((Counter(state["seats"][s]["hand"])
                                                  for s in others), Counter())
                    account: Counter[str] = Counter(world["factory_deck"])
                    for p in world["seats"]:
                        account.update(p["drawn"])
                        account.update(p["straddle"])
                    straddle = world["provenance"]["straddle"]
                    assert pool <= account
                    assert (account - pool).total() == (straddle[1] if straddle else 0)
                    changed += world["factory_deck"] != state["factory_deck"]
                    if k == 0:  # a true state the seat cannot tell apart: the same worlds
                        again = rng(7 + n)
                        assert json.dumps(GAME.determinize(world, me, again)) == \
                            json.dumps(GAME.determinize(state, me, rng(7 + n)))
        assert pool is not None, "no reshuffle"
    assert worlds > 500 and changed > worlds // 2


# --- conformance, every combination of the options -----------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("options", [{}, {"expert_scoring": True}, {"exodite": True},
                                     {"expert_scoring": True, "exodite": True},
                                     {"exodite": True, "refill_from_removed": False}])
def test_conformance(players: int, options: dict[str, Any]) -> None:
    """tests/games/test_conformance.py flips one option at a time; here every combination."""
    conf.check_metadata(GAME)
    for seed in range(3):
        conf.check_playout(GAME, players, seed, options=options)
        conf.check_replay(GAME, players, seed, options=options)
        conf.check_illegal_moves(GAME, players, seed, options=options, every=4)
        conf.check_no_leaks(GAME, players, seed, options=options)
        conf.check_determinize(GAME, players, seed, options=options, every=4)
        conf.check_play_does_not_mutate(GAME, players, seed, options=options, every=4)
        conf.check_json_round_trip(GAME, players, seed, options=options, every=4)
