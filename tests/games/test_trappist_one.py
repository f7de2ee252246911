"""Scenario tests for Trappist One: each quotes the rulebook sentence it checks.

Rulebook: /work/shared/rulebooks/trappist-one.txt; decisions: /work/shared/games/trappist-one.md.
The game is not registered yet (games/trappist_one/README.md "Status"), so the conformance
checks are driven here directly.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from marshmallow import ValidationError

from games.contract import IllegalMove
from games.rng import Rng
from games.trappist_one import GAME
from games.trappist_one.board import (
    INVESTMENT,
    PLANETS,
    RESOURCES,
    SHIPS,
    hand_limit,
    hand_size,
)
from tests.games import conformance as conf

State = dict[str, Any]
SOLAR, EXO, ATMO, TITAN = RESOURCES


def rng(n: int = 0) -> Rng:
    return Rng(b"trappist-tests", n)


def new_game(players: int = 4, seed: int = 0, **options: Any) -> State:
    return GAME.setup(players, options, Rng(b"seed-%d" % seed, 0))


def play(state: State, seat: int, move_id: str, n: int = 1) -> tuple[State, list[Any]]:
    return GAME.play(state, seat, {"id": move_id}, rng(n))


def ids(state: State, seat: int) -> list[str]:
    return [m["id"] for m in GAME.legal_moves(state, seat)]


def started(players: int = 4, seed: int = 0, **options: Any) -> State:
    """Everyone picks the first listed choice: the game is at seat 0's benefit phase."""
    state = new_game(players, seed, **options)
    for seat in range(players):
        state, _ = play(state, seat, ids(state, seat)[0])
    return state


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


def to_phase(state: State, phase: str) -> State:
    seat = state["active"]
    if phase in ("buying", "phase3") and state["phase"] == "benefit":
        state, _ = play(state, seat, "buy")
    if phase == "phase3" and state["phase"] == "buying":
        state, _ = play(state, seat, "done")
    assert state["phase"] == phase
    return state


def market_card(state: State, slot: int, kind: str) -> str:
    """Put a card of `kind` into market slot `slot` (swapped with the investment deck)."""
    card = next(c for c in state["investment_deck"] if INVESTMENT[c]["kind"] == kind)
    state["investment_deck"].remove(card)
    state["investment_deck"].insert(0, state["market"][slot])
    state["market"][slot] = card
    return card


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
        seen = {seat: (GAME.view(state, seat), GAME.legal_moves(state, seat),
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
    optional"."""
    state = started()
    state["seats"][0]["planets"]["lux"] = [SOLAR, SOLAR, SOLAR]
    assert {"lux", "buy"} <= set(ids(state, 0))
    after, _ = play(state, 0, "lux")
    assert after["seats"][0]["stargold"] == 1 and "lux" not in ids(after, 0)
    skipped, _ = play(state, 0, "buy")
    assert skipped["phase"] == "buying" and skipped["seats"][0]["stargold"] == 0


def test_sophus_pays_one_draws_two() -> None:
    """"BENEFIT: During the BENEFIT PHASE (1), you can pay 1 stargold piece to draw 2 cards"."""
    state = started()
    state["seats"][0]["planets"]["sophus"] = [EXO, EXO, EXO]
    state["seats"][0]["stargold"] = 1
    before = sum(state["seats"][0]["hand"].values())
    after, facts = play(state, 0, "sophus")
    assert after["seats"][0]["stargold"] == 0
    assert sum(after["seats"][0]["hand"].values()) == before + 2
    assert all(f["to"] == [0] for f in facts if "drawn" in f["data"])


def test_fragmentum_example() -> None:
    """"If the satellite you choose to scrap has a price of 3 stargold, you get 2 stargold and
    put it in your scrapyard." """
    state = started()
    player = state["seats"][0]
    player["planets"]["fragmentum"] = [TITAN, TITAN, TITAN]
    sat = next(c for c, s in INVESTMENT.items() if s["kind"] == "satellite" and s["cost"] == 3
               and c in state["investment_deck"])
    state["investment_deck"].remove(sat)
    player["satellites"]["capital_one"] = sat
    after, _ = play(state, 0, f"fragmentum:{sat}")
    assert after["seats"][0]["stargold"] == 2
    assert sat in after["seats"][0]["scrapyard"] and not after["seats"][0]["satellites"]


# --- 2. buying phase ---------------------------------------------------------------------


def test_buying_the_card_pointing_at_another_pays_them_one() -> None:
    """"If you buy a card that points to another player, you have to pay 1 stargold of the
    total price to the player the card was pointing at. The rest of the stargold is paid to
    the supply." """
    state = to_phase(started(), "buying")
    card = market_card(state, 2, "station")
    state["seats"][0]["stargold"] = 10
    after, _ = play(state, 0, "buy:2")
    assert after["seats"][0]["stargold"] == 10 - INVESTMENT[card]["cost"]
    assert after["seats"][2]["stargold"] == 1
    assert card in after["seats"][0]["stations"]


def test_buying_the_card_pointing_at_you_pays_the_supply() -> None:
    """"If you buy the card that points at you, just pay its price in stargold to the
    supply. The same happens if you buy the card pointing at no one during a 3-player game." """
    for players, slot in ((4, 0), (3, 3)):
        state = to_phase(started(players), "buying")
        market_card(state, slot, "station")
        state["seats"][0]["stargold"] = 10
        after, _ = play(state, 0, f"buy:{slot}")
        assert all(p["stargold"] == 0 for p in after["seats"][1:])


def test_gaps_are_refilled_only_before_phase_3() -> None:
    """"Unless the effect of a card or planet states otherwise, you do not fill the gaps
    immediately after buying a card." "Before moving on to phase 3, you need to fill up all
    the gaps in the market area with new cards from the investment deck." """
    state = to_phase(started(), "buying")
    market_card(state, 0, "station")
    state["seats"][0]["stargold"] = 10
    after, _ = play(state, 0, "buy:0")
    assert after["market"][0] is None
    assert not any(m.startswith("buy:0") for m in ids(after, 0))
    done, _ = play(after, 0, "done")
    assert done["market"][0] is not None and done["phase"] == "phase3"


def test_morula_calva() -> None:
    """"When you buy a card that does not point at you ... you do not have to give 1 stargold
    to the player it points at. Also, refill the gap in the market area as soon as you buy a
    card." """
    state = to_phase(started(), "buying")
    state["seats"][0]["planets"]["morula_calva"] = [ATMO, ATMO, ATMO]
    market_card(state, 1, "station")
    state["seats"][0]["stargold"] = 10
    after, _ = play(state, 0, "buy:1")
    assert after["seats"][1]["stargold"] == 0
    assert after["market"][1] is not None


def test_satellite_needs_a_free_slot_over_a_planet_with_a_factory() -> None:
    """"Place them in a slot over a planet ("orbit") that has at least one mega-factory. You
    can only buy a satellite if you have one of these slots available." """
    state = to_phase(started(), "buying")
    card = market_card(state, 0, "satellite")
    state["seats"][0]["stargold"] = 10
    assert [m for m in ids(state, 0) if m.startswith("buy:0")] == ["buy:0:capital_one"]
    other = next(c for c in state["investment_deck"] if INVESTMENT[c]["kind"] == "satellite")
    state["seats"][0]["satellites"]["capital_one"] = other
    assert not any(m.startswith("buy:0") for m in ids(state, 0))
    del state["seats"][0]["satellites"]["capital_one"]
    after, _ = play(state, 0, "buy:0:capital_one")
    assert after["seats"][0]["satellites"] == {"capital_one": card}


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
    assert sum(placed["seats"][0]["hand"].values()) == 0  # no construction bonus
    assert placed["phase"] == "buying"


def test_worker_without_matching_card_is_still_hired() -> None:
    """"If you do not have a matching mega-factory card in your hand you can still hire the
    worker, but his effect will be lost." """
    state = to_phase(started(), "buying")
    card = market_card(state, 0, "worker")
    other = next(r for r in RESOURCES if r != INVESTMENT[card]["clan"])
    set_hand(state, 0, **{other: 2})
    state["seats"][0]["stargold"] = 10
    after, _ = play(state, 0, "buy:0")
    assert after["phase"] == "buying" and card in after["seats"][0]["scrapyard"]


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


def test_construction_bonus_and_control() -> None:
    """"draw as many cards as the amount of different resources that planet produces" and
    "You receive as many stargold pieces as the number of mega-factories of the same and most
    abundant type on that planet." (the first example: 3 resources, 3 cards, 1 stargold)"""
    state = to_phase(started(), "phase3")
    set_hand(state, 0, solar=1)
    state["seats"][0]["planets"]["lux"] = [EXO, ATMO]
    after, _ = play(state, 0, "build:solar:lux")
    player = after["seats"][0]
    assert sum(player["hand"].values()) == 3 and player["stargold"] == 1


def test_three_of_a_kind_pays_three() -> None:
    """"You would get 3 stargold in the third case, since the most abundant mega-factory type
    is the solar energy factory and you have 3 of them." (1 card: 1 resource)"""
    state = to_phase(started(), "phase3")
    set_hand(state, 0, solar=1)
    state["seats"][0]["planets"]["lux"] = [SOLAR, SOLAR]
    after, _ = play(state, 0, "build:solar:lux")
    assert sum(after["seats"][0]["hand"].values()) == 1 and after["seats"][0]["stargold"] == 3


def test_architecton_plays_another_for_its_place() -> None:
    """"This mega-factory will cost you 1 stargold if it is the first factory on its planet, 2
    if it is the second and 3 if it is the third. Playing mega-factories like this does not
    count as construction, so you do not get the usual bonuses." """
    state = to_phase(started(), "phase3")
    state["seats"][0]["planets"]["architecton"] = [TITAN, TITAN, TITAN]
    state["seats"][0]["stargold"] = 5
    set_hand(state, 0, solar=2)
    after, _ = play(state, 0, "build:solar:lux")
    assert after["phase"] == "architecton"
    extra = next(m for m in GAME.legal_moves(after, 0) if m["id"] == "extra:solar:lux")
    assert extra["cost"] == 2
    hand = sum(after["seats"][0]["hand"].values())
    done, _ = play(after, 0, "extra:solar:lux")
    assert done["seats"][0]["stargold"] == 3
    assert done["seats"][0]["planets"]["lux"] == [SOLAR, SOLAR]
    assert sum(done["seats"][0]["hand"].values()) == hand - 1


# --- 3B. shipment ------------------------------------------------------------------------


def test_shipment_example_1_specialised_production() -> None:
    """"The ship is blue, which stands for the Clan specialized in atmospheres, so you draw 1
    card from the mega-factory deck for each mega-factory that produces atmospheres on all your
    planets. In this case, you have 3, so you draw 3 cards." """
    state = to_phase(started(), "phase3")
    state["seats"][0]["planets"]["capital_one"] = [ATMO, ATMO, SOLAR]
    state["seats"][0]["planets"]["lux"] = [ATMO]
    set_hand(state, 0)
    after, facts = play(state, 0, "ship:atmosphere")
    assert sum(after["seats"][0]["hand"].values()) == 3
    assert after["phase"] == "produce"


def test_non_specialised_production_example() -> None:
    """"The player chooses to discard 2 titanium, 1 exovegetation and 1 solar energy ... it is 5
    and she only produced 4 times ... she cannot play a third titanium card because she already
    used her two available titanium mega-factories, and she cannot use her atmosphere cards
    because she does not have a mega-factory of that type ... puts the 4 produced stargold
    pieces on Capital One." """
    state = to_phase(started(), "phase3")
    player = state["seats"][0]
    player["planets"]["capital_one"] = [SOLAR, EXO, TITAN]
    player["planets"]["lux"] = [TITAN, EXO, EXO]
    cargo = next(c for c, s in INVESTMENT.items() if s["kind"] == "cargo"
                 and s["capacity"] == 5 and c in state["investment_deck"])
    state["investment_deck"].remove(cargo)
    player["cargo"] = [cargo]
    set_hand(state, 0)
    state, _ = play(state, 0, f"cargo:{cargo}")
    set_hand(state, 0, titanium=3, exovegetation=1, solar=1, atmosphere=2)
    assert state["shipment"]["capacity"] == 5
    for r in ("titanium", "titanium", "exovegetation", "solar"):
        state, _ = play(state, 0, f"produce:{r}")
    assert "produce:titanium" not in ids(state, 0)
    assert "produce:atmosphere" not in ids(state, 0)
    state, _ = play(state, 0, "done")
    assert state["seats"][0]["stargold"] == 4
    assert cargo in state["seats"][0]["scrapyard"]


def test_biocultist_ship_to_hangar_and_hangar_adds_capacity() -> None:
    """"If you called a Biocultist ship, put the ship in your hangar face down." and "you can
    increase your loading capacity by 1 for each card you discard from your hangar"."""
    state = to_phase(started(), "phase3")
    state["seats"][0]["hangar"] = ["ship-solar-4"]
    state["earth"]["solar"] = [s for s in state["earth"]["solar"] if s != "ship-solar-4"]
    ship = state["earth"]["titanium"][0]
    after, _ = play(state, 0, "ship:titanium")
    cap = after["shipment"]["capacity"]
    assert cap == SHIPS[ship]["capacity"]
    after, _ = play(after, 0, "hangar")
    assert after["shipment"]["capacity"] == cap + 1 and after["seats"][0]["hangar"] == []
    after, _ = play(after, 0, "done")
    if after["active"] == 0:
        assert after["seats"][0]["hangar"] == [ship]


def test_navalis_adds_one() -> None:
    """"All Biocultist ships and cargo ships you call during the SHIPMENT PHASE 3(B) increase
    their loading capacity by 1 automatically." """
    state = to_phase(started(), "phase3")
    state["seats"][0]["planets"]["navalis"] = [SOLAR, SOLAR, SOLAR]
    ship = state["earth"]["exovegetation"][0]
    after, _ = play(state, 0, "ship:exovegetation")
    assert after["shipment"]["capacity"] == SHIPS[ship]["capacity"] + 1


# --- reactions out of turn ------------------------------------------------------------------


def _give_reaction(state: State, seat: int, clan: str) -> str:
    """A `react_clan_draw: clan` card from the deck, the box or the market (refilled from the
    deck), into `seat`'s play area."""
    for slot, c in enumerate(state["market"]):
        if c and (INVESTMENT[c].get("ability") or {}).get("react_clan_draw") == clan:
            state["market"][slot] = state["investment_deck"].pop()
            state["seats"][seat]["stations"].append(c)
            return str(c)
    pile = next(p for p in ("investment_deck", "removed")
                if any((INVESTMENT[c].get("ability") or {}).get("react_clan_draw") == clan
                       for c in state[p]))
    card = next(c for c in state[pile]
                if (INVESTMENT[c].get("ability") or {}).get("react_clan_draw") == clan)
    state[pile].remove(card)
    state["seats"][seat]["stations"].append(card)
    return card


def test_reaction_makes_its_owner_an_actor_out_of_turn() -> None:
    """"Satellites and orbital stations can have abilities that trigger during another
    player's action." Several owners decide together; declining is a move; the draws take
    effect clockwise from the active player (decisions note)."""
    state = to_phase(started(4, exodite=True), "phase3")  # two solar reactions exist
    a = _give_reaction(state, 3, "solar")
    b = _give_reaction(state, 1, "solar")
    assert a != b
    hands = [sum(p["hand"].values()) for p in state["seats"]]
    state, _ = play(state, 0, "ship:solar")
    assert state["phase"] == "react" and GAME.actors(state) == {1, 3}
    assert GAME.legal_moves(state, 0) == []
    state, _ = play(state, 3, f"react:{a}")
    assert GAME.actors(state) == {1}
    state, facts = play(state, 1, f"decline:{b}")
    assert state["phase"] == "produce" and GAME.actors(state) == {0}
    assert sum(state["seats"][3]["hand"].values()) == hands[3] + 1
    assert sum(state["seats"][1]["hand"].values()) == hands[1]
    drawn = [f for f in facts if "drawn" in f["data"]]
    assert drawn and drawn[0]["to"] == [3]  # what a reaction shows is its owner's alone


def test_no_reaction_to_your_own_call() -> None:
    """"abilities that trigger during another player's action" """
    state = to_phase(started(4), "phase3")
    _give_reaction(state, 0, "solar")
    state, _ = play(state, 0, "ship:solar")
    assert state["phase"] == "produce"


# --- 4. end phase --------------------------------------------------------------------------


def test_hand_limit() -> None:
    """"Capital One allows you to hold up to 5 cards ... For each additional planet you have at
    least one mega-factory on your hand limit increases by 1." """
    state = to_phase(started(), "phase3")
    assert hand_limit(state["seats"][0]) == 5
    state["seats"][0]["planets"]["lux"] = [SOLAR]
    assert hand_limit(state["seats"][0]) == 6
    set_hand(state, 0, solar=9)
    state["seats"][0]["planets"]["lux"] = []
    after, _ = play(state, 0, "ship:titanium")
    after, _ = play(after, 0, "done")
    assert after["phase"] == "end" and after["active"] == 0
    while after["phase"] == "end":
        after, _ = play(after, 0, ids(after, 0)[0])
    assert sum(after["seats"][0]["hand"].values()) == 5  # only Capital One has factories
    assert after["active"] == 1


# --- end of the game and scoring -----------------------------------------------------------


def test_trigger_finishes_the_round() -> None:
    """"The game will go on as usual until the last player of this round has finished her
    turn." """
    state = to_phase(started(3), "phase3")
    for clan in RESOURCES:
        state["earth"][clan] = []
    state["earth"]["solar"] = ["ship-solar-1"]
    state, _ = play(state, 0, "ship:solar")
    while state["phase"] != "benefit" or state["active"] == 0:
        state, _ = play(state, 0, ids(state, 0)[0])
    assert state["ending"] == "ships" and state["active"] == 1
    for seat in (1, 2):
        while state["active"] == seat and state["phase"] != "over":
            state, _ = play(state, seat, ids(state, seat)[-1])
    assert state["phase"] == "over" and GAME.actors(state) == set()


def test_investment_trigger_and_refill_from_removed() -> None:
    """"The investment deck runs out of cards." and "you can use the removed cards to refill
    the market area until all players have played their last turns. You can do the same
    during a two or three-player game without the expansion using the removed cards." """
    for refill in (True, False):
        state = to_phase(started(2, refill_from_removed=refill), "buying")
        market_card(state, 0, "station")
        state["removed"] += state["investment_deck"]
        state["investment_deck"] = []
        state["seats"][0]["stargold"] = 10
        state, _ = play(state, 0, "buy:0")
        state, facts = play(state, 0, "done")
        assert state["ending"] == "investment"
        assert (state["market"][0] is not None) == refill


def test_factory_trigger_needs_deck_and_discard_empty() -> None:
    """"The mega-factory deck runs out of cards and there are no mega-factories left in the
    general discard pile." (and the discard pile is reshuffled into a new deck first)"""
    state = to_phase(started(2), "phase3")
    set_hand(state, 0, solar=1)
    state["factory_discard"]["titanium"] = len(state["factory_deck"])
    state["factory_deck"] = []
    after, facts = play(state, 0, "build:solar:lux")
    assert after["ending"] is None and after["reshuffles"] == 1
    assert any("shuffled" in f["text"] for f in facts)
    state["factory_discard"]["titanium"] = 0
    after, _ = play(state, 0, "build:solar:lux")
    assert after["ending"] == "factories"


def test_all_planets_trigger_and_total_control() -> None:
    """"A player controls all her planets on the solar system board." and "The player who
    controls all planets on her board scores 2 extra dominion points." """
    state = to_phase(started(2), "phase3")
    player = state["seats"][0]
    for planet in PLANETS:
        if planet not in ("capital_one", "lux"):
            player["planets"][planet] = [SOLAR, SOLAR, SOLAR]
    player["planets"]["lux"] = [SOLAR, SOLAR]
    set_hand(state, 0, solar=1)
    after, _ = play(state, 0, "build:solar:lux")
    assert after["ending"] == "all_planets"
    assert GAME.score(after)["seats"][0]["breakdown"]["total_control"] == 2


def test_stargold_breaks_ties_and_equal_stargold_all_score() -> None:
    """"If there is a tie, at any moment during scoring, the mega-corporation with the most
    amount of stargold wins the tie and scores the points. If there is also a tie on
    stargold, all tied mega-corporations get the full score for that point." """
    state = started(3)
    workers = [c for c, s in INVESTMENT.items() if s["kind"] == "worker" and s["clan"] == TITAN]
    for seat in range(3):
        state["seats"][seat]["scrapyard"] = [workers[seat]]
    state["seats"][0]["stargold"], state["seats"][1]["stargold"] = 5, 5
    sheet = GAME.score(state)
    clans = [e["breakdown"]["clans"] for e in sheet["seats"]]
    assert clans == [1, 1, 0]


# --- conformance (the game is not in the registry yet) -------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("options", [{}, {"expert_scoring": True}, {"exodite": True},
                                     {"expert_scoring": True, "exodite": True}])
def test_conformance(players: int, options: dict[str, Any]) -> None:
    conf.check_metadata(GAME)
    for seed in range(3):
        conf.check_playout(GAME, players, seed, options=options)
        conf.check_replay(GAME, players, seed, options=options)
        conf.check_illegal_moves(GAME, players, seed, options=options, every=4)
        conf.check_no_leaks(GAME, players, seed, options=options)
        conf.check_determinize(GAME, players, seed, options=options, every=4)
        conf.check_play_does_not_mutate(GAME, players, seed, options=options, every=4)
        conf.check_json_round_trip(GAME, players, seed, options=options, every=4)


# --- properties ----------------------------------------------------------------------------


def _places(state: State) -> tuple[int, list[str], list[str]]:
    factories = len(state["factory_deck"]) + sum(state["factory_discard"].values())
    cards = list(state["investment_deck"]) + list(state["removed"])
    cards += [x for x in state["market"] if x is not None]
    ships = [s for stack in state["earth"].values() for s in stack]
    if state["shipment"] is not None:
        (ships if state["shipment"]["ship"] in SHIPS else cards).append(
            state["shipment"]["ship"])
    for p in state["seats"]:
        factories += sum(p["hand"].values()) + sum(len(f) for f in p["planets"].values())
        factories += sum((p["pick"] or {}).values())
        cards += p["cargo"] + list(p["satellites"].values()) + p["stations"] + p["scrapyard"]
        ships += p["hangar"]
    return factories, cards, ships


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), players=st.integers(2, 4), exodite=st.booleans())
def test_every_card_in_exactly_one_place(seed: int, players: int, exodite: bool) -> None:
    """Every mega-factory, investment card and ship is in exactly one place at every step
    (hangar discards leave the game: `ship_discard`); the hand limit holds at every turn's
    end; production never exceeds the loading capacity."""
    playout = conf.Playout(GAME, players, seed, options={"exodite": exodite})
    start = _places(playout.state)
    for step in playout:
        state = step.after
        factories, cards, ships = _places(state)
        assert factories == 80
        assert sorted(cards) == sorted(start[1]) and len(set(cards)) == len(cards)
        assert len(ships) + state["ship_discard"] == len(start[2])
        assert len(set(ships)) == len(ships)
        if state["shipment"] is not None:
            assert sum(state["shipment"]["produced"].values()) <= state["shipment"]["capacity"]
        ended = state["phase"] == "over" or (state["phase"] == "benefit"
                                             and state["active"] != step.state["active"])
        if ended and step.state["phase"] != "choose":
            before = state["seats"][step.state["active"]]
            assert hand_size(before) <= hand_limit(before)
