"""Scenario tests for the end of a game of Trappist One and its scoring: each quotes the
rulebook sentence it checks (the helpers: test_trappist_one.py).

Rulebook: /work/shared/rulebooks/trappist-one.txt, "End of the Game", "Scoring Dominion
Points" and "(Expert Version)"; decisions: /work/shared/games/trappist-one.md.
"""

from __future__ import annotations

import pytest

from games.trappist_one import GAME
from games.trappist_one.board import INVESTMENT, PLANET_VP, PLANETS, RESOURCES
from games.trappist_one.rules import TRIGGERS
from tests.games.test_trappist_one import (
    ATMO,
    EXO,
    SOLAR,
    TITAN,
    State,
    finish_turn,
    market_card,
    play,
    public,
    set_hand,
    started,
    take_card,
    to_phase,
)

# --- the four end triggers -----------------------------------------------------------------


def _controls_all_but_one(state: State) -> State:
    """"A player controls all her planets on the solar system board." (the active seat builds
    the last factory of the last planet)"""
    seat = state["active"]
    player = state["seats"][seat]
    for planet in PLANETS:
        if planet not in ("capital_one", "lux"):
            player["planets"][planet] = [SOLAR, SOLAR, SOLAR]
    player["planets"]["lux"] = [SOLAR, SOLAR]
    set_hand(state, seat, solar=1)
    state, _ = play(to_phase(state, "phase3"), seat, "build:solar:lux")
    return state


def _calls_the_last_ship(state: State) -> State:
    """"The four Biocultist ship stacks run out." """
    for clan in RESOURCES:
        state["earth"][clan] = state["earth"][clan][:1] if clan == TITAN else []
    state, _ = play(to_phase(state, "phase3"), state["active"], "ship:titanium")
    return state


def _draws_the_last_factory(state: State) -> State:
    """"The mega-factory deck runs out of cards and there are no mega-factories left in the
    general discard pile." (the construction bonus draws the deck's last card)"""
    seat = state["active"]
    set_hand(state, seat, solar=1)
    state["factory_deck"] = state["factory_deck"][-1:]
    state["factory_discard"] = {r: 0 for r in RESOURCES}
    state, _ = play(to_phase(state, "phase3"), seat, "build:solar:lux")
    return state


def _empties_the_investment_deck(state: State) -> State:
    """"The investment deck runs out of cards." (the refill before phase 3 finds it empty)"""
    seat = state["active"]
    state = to_phase(state, "buying")
    market_card(state, 0, "cargo")
    state["removed"] += state["investment_deck"]
    state["investment_deck"] = []
    state["seats"][seat]["stargold"] = 10
    state, _ = play(state, seat, "buy:0")
    state, _ = play(state, seat, "done")
    return state


FIRE = {"all_planets": _controls_all_but_one, "ships": _calls_the_last_ship,
        "factories": _draws_the_last_factory, "investment": _empties_the_investment_deck}


@pytest.mark.parametrize("trigger", sorted(TRIGGERS))
def test_each_end_trigger_finishes_the_round(trigger: str) -> None:
    """"Turns will go on clockwise until the end of the game is triggered by one of these
    situations" ... "The game will go on as usual until the last player of this round has
    finished her turn. The game ends and players proceed to scoring their dominion points."
    (fired in the second seat's turn of 3: the third still plays; all have had one turn; the
    score sheet names the trigger)"""
    state = finish_turn(started(3))
    assert state["active"] == 1 and state["ending"] is None
    state = FIRE[trigger](state)
    assert state["ending"] == trigger
    if state["active"] == 1:  # the move that fired it may have ended the turn
        state = finish_turn(state)
    assert state["active"] == 2 and state["phase"] == "benefit"  # the round goes on
    state = finish_turn(state)
    assert state["phase"] == "over" and GAME.actors(state) == set() and state["turn"] == 1
    assert GAME.score(state)["end"] == trigger


def test_the_trigger_is_announced_once() -> None:
    """"The game will go on as usual" (a second end condition in the last round changes
    nothing: the first one fired)."""
    state = finish_turn(started(3))
    state = _calls_the_last_ship(state)
    state = finish_turn(state)
    state = _draws_the_last_factory(state)
    state = finish_turn(state)
    assert state["phase"] == "over" and GAME.score(state)["end"] == "ships"


def test_a_trigger_in_the_last_seats_turn_ends_the_game_with_it() -> None:
    """"until the last player of this round has finished her turn" (the trigger fired in her
    own turn: the game ends with it)."""
    state = finish_turn(finish_turn(started(3)))
    assert state["active"] == 2
    state = finish_turn(_calls_the_last_ship(state))
    assert state["phase"] == "over" and state["turn"] == 1


@pytest.mark.parametrize("refill", [True, False])
def test_investment_trigger_and_refill_from_removed(refill: bool) -> None:
    """"The investment deck runs out of cards." and "you can use the removed cards to refill
    the market area until all players have played their last turns. You can do the same
    during a two or three-player game without the expansion using the removed cards." """
    state = started(2, refill_from_removed=refill)
    box = list(state["removed"]) + list(state["investment_deck"])
    state = _empties_the_investment_deck(state)
    assert state["ending"] == "investment"
    assert (state["market"][0] is not None) == refill
    if refill:
        assert state["market"][0] in box and state["market"][0] not in state["removed"]


def test_factory_trigger_needs_deck_and_discard_empty() -> None:
    """"The mega-factory deck runs out of cards and there are no mega-factories left in the
    general discard pile." (the discard pile is reshuffled into a new deck first: decisions
    note)"""
    state = to_phase(started(2), "phase3")
    set_hand(state, 0, solar=1)
    state["factory_discard"][TITAN] = len(state["factory_deck"])
    state["factory_deck"] = []
    after, facts = play(state, 0, "build:solar:lux")
    assert after["ending"] is None and after["reshuffles"] == 1
    assert after["seats"][0]["hand"][TITAN] == 1
    assert any("shuffled" in f["text"] for f in public(facts))
    state["factory_discard"][TITAN] = 0
    after, _ = play(state, 0, "build:solar:lux")
    assert after["ending"] == "factories"


# --- scoring -------------------------------------------------------------------------------


def _end_now(state: State) -> State:
    """The game ends after this round (an end trigger, by hand): every seat plays a turn that
    changes no stargold and nothing that scores (tests' `simple_move`)."""
    state["ending"] = "ships"
    while state["phase"] != "over":
        state = finish_turn(state)
    return state


def _vp(*cards: str) -> int:
    return sum(int(INVESTMENT[c]["vp"]) for c in cards)


def test_base_scoring() -> None:
    """"You need to add the points of: planets you control; your satellites and independent
    orbital stations; cargo ships in your hand; cards in your scrapyard" and "The player who
    hired the most workers belonging to a clan ... scores 1 dominion point for each clan" "The
    player with the most Biocultist workers in her scrapyard ignoring their clan scores 1
    extra dominion point." "The player with the most mega-factories on her board scores 1
    dominion point." """
    state = started(2)
    me = state["seats"][0]
    me["planets"]["lux"] = [SOLAR, SOLAR, SOLAR]
    me["planets"]["navalis"] = [EXO]
    satellite, station = take_card(state, "satellite"), take_card(state, "station")
    in_hand, used = take_card(state, "cargo"), take_card(state, "cargo")
    worker = take_card(state, "worker", clan=ATMO)
    me["satellites"], me["stations"] = {"lux": satellite}, [station]
    me["cargo"], me["scrapyard"] = [in_hand], [worker, used]
    sheet = GAME.score(_end_now(state))
    assert sheet["seats"][0]["breakdown"] == {
        "planets": PLANET_VP["capital_one"] + PLANET_VP["lux"],
        "satellites_stations": _vp(satellite, station), "cargo_in_hand": _vp(in_hand),
        "scrapyard": _vp(worker, used), "clans": 1, "workers": 1, "factories": 1,
        "total_control": 0}
    assert sheet["seats"][1]["breakdown"] == {
        "planets": PLANET_VP["capital_one"], "satellites_stations": 0, "cargo_in_hand": 0,
        "scrapyard": 0, "clans": 0, "workers": 0, "factories": 0, "total_control": 0}
    assert [e["total"] for e in sheet["seats"]] == [sum(e["breakdown"].values())
                                                   for e in sheet["seats"]]
    assert sheet["ranking"] == [0, 1]


def test_all_planets_trigger_and_total_control() -> None:
    """"A player controls all her planets on the solar system board." and "The player who
    controls all planets on her board scores 2 extra dominion points." """
    state = _controls_all_but_one(started(2))
    assert state["ending"] == "all_planets"
    state = finish_turn(finish_turn(state))
    sheet = GAME.score(state)
    assert sheet["seats"][0]["breakdown"]["total_control"] == 2
    assert sheet["seats"][0]["breakdown"]["planets"] == sum(PLANET_VP.values())
    assert sheet["seats"][1]["breakdown"]["total_control"] == 0


def test_expert_scoring() -> None:
    """"The mega-corporations that control any one resource (most mega-factories of one
    resource) scores 1 dominion point for each." "The mega-corporation that controls the orbits
    (most satellites) scores 1 dominion point." "... the inter-planetary space (most orbital
    stations) scores 1 dominion point." "The richest mega-corporation (most stargold) scores 1
    dominion point." """
    state = started(2, expert_scoring=True)
    me, you = state["seats"]
    me["planets"]["capital_one"], me["planets"]["lux"] = [SOLAR] * 3, [EXO] * 3
    you["planets"]["capital_one"] = [ATMO, ATMO, TITAN]
    me["satellites"] = {"lux": take_card(state, "satellite")}
    me["stations"] = [take_card(state, "station")]
    you["stations"] = [take_card(state, "station"), take_card(state, "station")]
    me["stargold"], you["stargold"] = 2, 5
    sheet = GAME.score(_end_now(state))
    mine, yours = (sheet["seats"][s]["breakdown"] for s in (0, 1))
    assert (mine["resources"], mine["orbits"], mine["space"], mine["richest"]) == (2, 1, 0, 0)
    assert (yours["resources"], yours["orbits"], yours["space"], yours["richest"]) == \
        (2, 0, 1, 1)
    assert "resources" not in GAME.score(_end_now(started(2)))["seats"][0]["breakdown"]


def test_the_scoring_example() -> None:
    """"Biocultist clan specialized in Titanium: player 2 scores (1 dominion point).
    Biocultist clan specialized in Atmospheres: tie between player 1 and player 3. As player 3
    has more stargold, player 3 wins it (1 dominion point). Biocultist clan specialized in
    Exovegetation: player 1 scores (1 dominion point). Biocultist clan specialized in Solar
    Energy: player 3 scores (1 dominion point). Player 1 gains 1 additional dominion point for
    having more workers in general." """
    state = started(3)
    hired = {0: [ATMO, EXO, EXO], 1: [TITAN, TITAN], 2: [ATMO, SOLAR]}
    for seat, clans in hired.items():
        state["seats"][seat]["scrapyard"] = [take_card(state, "worker", clan=c) for c in clans]
    state["seats"][0]["stargold"], state["seats"][2]["stargold"] = 1, 3
    sheet = GAME.score(_end_now(state))
    assert [e["breakdown"]["clans"] for e in sheet["seats"]] == [1, 1, 2]
    assert [e["breakdown"]["workers"] for e in sheet["seats"]] == [1, 0, 0]


# --- ties ----------------------------------------------------------------------------------


def test_stargold_breaks_ties_and_equal_stargold_all_score() -> None:
    """"If there is a tie, at any moment during scoring, the mega-corporation with the most
    amount of stargold wins the tie and scores the points. If there is also a tie on
    stargold, all tied mega-corporations get the full score for that point." """
    state = started(3)
    for seat in range(3):
        state["seats"][seat]["scrapyard"] = [take_card(state, "worker", clan=TITAN)]
    state["seats"][0]["stargold"], state["seats"][1]["stargold"] = 5, 5
    sheet = GAME.score(_end_now(state))
    assert [e["breakdown"]["clans"] for e in sheet["seats"]] == [1, 1, 0]
    state["seats"][1]["stargold"] = 4
    assert [e["breakdown"]["clans"] for e in GAME.score(state)["seats"]] == [1, 0, 0]


def test_stargold_breaks_a_tie_in_points() -> None:
    """"The mega-corporation with the most dominion points has absolute power over Trappist
    One" and "Stargold still breaks ties." (equal totals: the richer one ranks first)"""
    state = started(3)
    state["seats"][0]["stargold"], state["seats"][1]["stargold"] = 5, 4
    station = take_card(state, "station", vp=1)
    state["seats"][1]["stations"] = [station]  # seat 0 has the factories point instead
    sheet = GAME.score(_end_now(state))
    assert [e["total"] for e in sheet["seats"]][:2] == [2, 2]
    assert [e["rank"] for e in sheet["seats"]] == [1, 2, 3] and sheet["ranking"] == [0, 1, 2]


def test_a_tie_in_points_and_stargold_all_win() -> None:
    """"If there is a tie in both dominion points and stargold, between 2 or more
    mega-corporations at the end of the game, you share the control over Trappist One: All of
    you win!" """
    state = started(3)
    state["seats"][0]["stargold"], state["seats"][1]["stargold"] = 4, 4
    state["seats"][2]["stargold"] = 1
    sheet = GAME.score(_end_now(state))
    assert [e["total"] for e in sheet["seats"]] == [2, 2, 1]
    assert [e["rank"] for e in sheet["seats"]] == [1, 1, 3]
    assert sheet["ranking"] == [[0, 1], 2]


def test_a_majority_needs_one() -> None:
    """Decisions note: "Majorities (workers of a clan; expert stations and satellites) need at
    least one card" (README decision 21: and every other majority too)."""
    state = started(2, expert_scoring=True)
    sheet = GAME.score(_end_now(state))
    for entry in sheet["seats"]:
        parts = entry["breakdown"]
        assert parts["clans"] == parts["workers"] == parts["orbits"] == parts["space"] == 0
        assert parts["richest"] == 0  # nobody has any stargold
