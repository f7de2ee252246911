"""Scenario tests for Asking for Trobils: each quotes the rulebook sentence it checks.

Rulebook: /work/shared/rulebooks/asking-for-trobils.txt (decisions where it is silent:
/work/shared/games/asking-for-trobils.md and games/asking_for_trobils/README.md). States are
built with `setup` and then edited with the helpers below, which move cards between places so
every card stays in exactly one place.

Rules versions: the scenarios run under the newest (GAME, version 3) unless they say "v1" or
"v2"; version 2 differs from 1 only in bumping on Paradise and the Star while a space is free,
version 3 from 2 only in the shape of the score sheet's `ranking` (README.md, "Rules
versions"), and those tests are named for their version.

Long (one test per rule sentence, in the rulebook's order) so that it reads alongside the
rulebook; the helpers at the top are shared by every scenario.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml
from marshmallow import ValidationError

from games.asking_for_trobils import GAME, VERSIONS, AskingForTrobils, riffraff
from games.asking_for_trobils.board import rules_of
from games.asking_for_trobils.cards import (
    CITIES,
    CONNECTIONS,
    LOCATION_IDS,
    RIFFRAFF,
    SHIP_CARD,
    STAND_SPOTS,
    TROBILS,
    credits_of,
    is_city,
)
from games.contract import Fact, Game, IllegalMove
from games.rng import Rng

State = dict[str, Any]
SHIPS = {2: (2, 2), 3: (1, 2), 4: (1, 2), 5: (1, 2), 6: (1, 1), 7: (1, 1)}
ROCKETS = {t for t, spec in TROBILS.items() if spec["rocket"]}
V1, V2, V3 = VERSIONS
ROOT = Path(__file__).resolve().parents[2]  # the repository


# --- helpers ---------------------------------------------------------------------------------


def rng(n: int = 0) -> Rng:
    return Rng(b"trobils-tests", n)


def new_game(players: int = 3, seed: int = 0, short: bool = False, game: Game = GAME) -> State:
    return game.setup(players, {"short_game": short}, Rng(b"seed-%d" % seed, 0))


def table(players: int = 3, active: int = 0, seed: int = 0, game: Game = GAME) -> State:
    """A fresh game (under `game`'s rules) where `active` is to move and nobody holds any
    resource."""
    state = new_game(players, seed, game=game)
    state["active"] = active
    for seat in range(players):
        set_res(state, seat)
    return state


def set_res(state: State, seat: int, **amounts: int) -> None:
    """"Resources are never limited": a test may set any amounts."""
    res = state["seats"][seat]["res"]
    for resource in res:
        res[resource] = amounts.get(resource, 0)


def res(state: State, seat: int) -> dict[str, int]:
    return {r: n for r, n in state["seats"][seat]["res"].items() if n}


def game_of(state: State) -> AskingForTrobils:
    """The game under the rules the table was dealt with, as the registry picks it."""
    return VERSIONS[rules_of(state) - 1]


def ids(state: State, seat: int | None = None) -> set[str]:
    seat = state["active"] if seat is None else seat
    return {m["id"] for m in game_of(state).legal_moves(state, seat)}


def do(state: State, *move_ids: str) -> tuple[State, list[Fact]]:
    """Play these moves, each by the seat whose turn it is."""
    facts: list[Fact] = []
    for move_id in move_ids:
        state, more = game_of(state).play(state, state["active"], {"id": move_id}, rng())
        facts += more
    return state, facts


def put_ship(state: State, seat: int, loc: str) -> None:
    """A ship from the seat's hand onto a location, as if placed on an earlier turn."""
    assert state["seats"][seat]["hand"] > 0
    state["seats"][seat]["hand"] -= 1
    state["board"][loc].append(seat)


def take_out(state: State, card: str) -> None:
    for place in (state["deck"], state["box"]):
        if card in place:
            place.remove(card)
            return
    raise AssertionError(f"{card} is neither in the deck nor in the box")


def set_display(state: State, cards: list[str]) -> None:
    """Show these cards; the cards shown before go under the deck."""
    old = state["display"]
    for card in cards:
        if card not in old:
            take_out(state, card)
    state["deck"][0:0] = [c for c in old if c not in cards]
    state["display"] = list(cards)


def stack_deck(state: State, top: list[str]) -> None:
    """Put these cards on top of the deck, top[0] drawn first."""
    for card in top:
        take_out(state, card)
    state["deck"] += list(reversed(top))


def give_trobil(state: State, seat: int, card: str, flipped: bool = False) -> None:
    take_out(state, card)
    state["seats"][seat]["flipped" if flipped else "trobils"].append(card)


def stack_riffraff(state: State, top: list[str]) -> None:
    pile = state["riffraff"]
    for card in top:
        (pile["deck"] if card in pile["deck"] else pile["discard"]).remove(card)
    pile["deck"] += list(reversed(top))


def set_offer(state: State, offer: list[str], top: tuple[str, ...] = ()) -> None:
    """These Connections on offer, and these next in the deck (top[0] drawn first)."""
    conn = state["connections"]
    conn["deck"] += conn["offer"]
    for kind in [*offer, *top]:
        conn["deck"].remove(kind)
    conn["offer"] = list(offer)
    conn["deck"] += list(reversed(top))


def give_connection(state: State, seat: int, kind: str, loc: str) -> None:
    state["connections"]["deck"].remove(kind)
    state["seats"][seat]["ship_card"][loc].append(kind)


def all_cards(state: State) -> Counter[str]:
    """Every Trobil, City, RiffRaff and Connection card, wherever it is."""
    places = [state["display"], state["deck"], state["box"], state["riffraff"]["deck"],
              state["riffraff"]["discard"], [s["card"] for s in state["stands"].values()],
              state["connections"]["deck"], state["connections"]["offer"]]
    if state["phase"] == "stand":  # a drawn stand card waits in the visit
        places.append([state["visit"]["card"]])
    for player in state["seats"]:
        places += [player["trobils"], player["flipped"], *player["ship_card"].values()]
    return Counter(card for place in places for card in place)


FULL: Counter[str] = Counter({card: 1 for card in [*TROBILS, *CITIES]})
FULL.update({card: spec["count"] for card, spec in RIFFRAFF.items()})
FULL.update({kind: spec["count"] for kind, spec in CONNECTIONS.items()})


def ships(state: State, seat: int) -> int:
    player = state["seats"][seat]
    on_board = sum(s.count(seat) for s in state["board"].values())
    return int(player["hand"] + player["wormhole"] + on_board)


def public_text(facts: list[Fact]) -> str:
    return json.dumps([f for f in facts if f["to"] == "all"])


# --- the game object ---------------------------------------------------------------------------


def test_game_metadata_and_registry() -> None:
    """Contract: id, title, 2-7 players, the Short Game Variant as the one option; rules
    versions "1", "2" and "3", a new table gets the newest."""
    from games.registry import get_game

    assert all(isinstance(game, Game) for game in VERSIONS) and GAME is V3
    assert get_game("asking-for-trobils") is GAME
    assert get_game("asking-for-trobils", "1") is V1 and get_game("asking-for-trobils", "2") is V2
    assert get_game("asking-for-trobils", "3") is V3
    assert (GAME.title, GAME.min_players, GAME.max_players, GAME.rules_version) == (
        "Asking for Trobils", 2, 7, "3")
    assert (V1.rules_version, V2.rules_version) == ("1", "2")
    with pytest.raises(ValueError):
        AskingForTrobils("4")
    assert GAME.options().load({}) == {"short_game": False}
    assert GAME.options().load({"short_game": True}) == {"short_game": True}
    with pytest.raises(ValidationError):
        GAME.options().load({"variant": True})
    with pytest.raises(ValueError):
        GAME.setup(8, {}, rng())


def test_component_counts() -> None:
    """Components: "32 RiffRaff Cards", "20 Trobil Cards", "8 City Cards", "48 Connection
    Cards"; "Remove 5 marked Trobil Cards" (a rocket ship icon)."""
    assert len(TROBILS) == 20 and len(CITIES) == 8 and len(ROCKETS) == 5
    assert sum(spec["count"] for spec in RIFFRAFF.values()) == 32
    assert sum(spec["count"] for spec in CONNECTIONS.values()) == 48
    assert all(spec["count"] == 8 for spec in CONNECTIONS.values()) and len(CONNECTIONS) == 6
    assert {spec["points"] for spec in TROBILS.values()} == set(range(1, 9))
    assert all(0 <= spec["credits"] <= 6 for spec in TROBILS.values())
    big = [t for t, spec in TROBILS.items() if spec["points"] >= 5]
    assert all(TROBILS[t]["cost"].get("megatrap") for t in big)  # "bigger Trobils"


def test_texts_say_what_is_printed() -> None:
    """"A Player may place 1 Ship on any Location on the Board" (not only on Paradise, one of
    them); "there is more than 1 space" on Paradise and the Star: their 3 spaces are the
    decisions note's number, a Meeple stand-in, not printed."""
    summary = json.loads((ROOT / "service/web/summaries.json").read_text())["asking-for-trobils"]
    assert "any location on the board" in summary and "of the planet Paradise" not in summary
    header = json.loads((ROOT / "games/asking_for_trobils/cards.json").read_text())["_header"]
    assert "3 on Paradise" not in header["printed"] and "more than 1 space" in header["printed"]
    assert "the 3 spaces on Paradise and the Star" in header["meeple_stand_in"]


def test_state_is_plain_json() -> None:
    """Contract: state is plain JSON data."""
    state = new_game(5)
    assert json.loads(json.dumps(state)) == state


# --- Setup ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", range(2, 8))
def test_setup(players: int) -> None:
    """"Give each Player a Ship Card, 5 Credits, and a number of matching Ships according to
    player count." 2 players: "Players start with 2 Ships and place 2 additional Ships on the
    Wormhole to purchase later." 3-5: "Players start with 1 Ship and place 2 additional Ships
    on the Wormhole" 6-7: "Players start with 1 Ship and place 1 additional Ship on the
    Wormhole" ... "Draw cards equal to the number of players +1 and place them face up near
    Planet Paradise." ... "Shuffle the Connection Cards ... Place 3 face up" """
    state = new_game(players)
    hand, wormhole = SHIPS[players]
    for player in state["seats"]:
        assert (player["hand"], player["wormhole"]) == (hand, wormhole)
        assert player["res"] == {"crystal": 0, "ore": 0, "space_slug": 0, "credit": 5,
                                 "space_carrot": 0, "trap": 0, "megatrap": 0}
        assert player["trobils"] == player["flipped"] == []
        assert all(kinds == [] for kinds in player["ship_card"].values())
    assert all(ships == [] for ships in state["board"].values())
    assert len(state["display"]) == players + 1
    assert len(state["connections"]["offer"]) == 3 and len(state["connections"]["deck"]) == 45
    assert len(state["riffraff"]["deck"]) == 32 and state["riffraff"]["discard"] == []
    assert state["stands"] == {}
    assert all_cards(state) == FULL
    assert GAME.actors(state) == {state["active"]} and state["phase"] == "turn"


@pytest.mark.parametrize(("players", "short"), [(p, s) for p in range(2, 8) for s in (False, True)])
def test_deck_of_cities_and_trobils(players: int, short: bool) -> None:
    """"Without looking, randomly take a number of City Cards equal to players + 1 (place the
    unused City Cards back in the box). Take the same number of Trobil Cards, and shuffle them
    with the City Cards. Place the remaining Trobil Cards on top of this stack." 2 players:
    "Remove 5 marked Trobil Cards out of the deck before setup." """
    state = new_game(players, seed=players, short=short)
    n = players + 1
    in_game = state["display"] + state["deck"]
    removed = players == 2 or short
    assert (set(state["box"]) >= ROCKETS) == removed
    assert not ROCKETS & set(in_game) if removed else set(in_game) >= ROCKETS
    assert sum(is_city(c) for c in in_game) == n
    assert sum(is_city(c) for c in state["box"]) == 8 - n
    assert sum(not is_city(c) for c in in_game) == (15 if removed else 20)
    stack = state["deck"] + list(reversed(state["display"]))  # as it was before the draw
    assert sum(is_city(c) for c in stack[:2 * n]) == n  # the Cities are mixed at the bottom
    assert not any(is_city(c) for c in stack[2 * n:])  # under the remaining Trobils


def test_first_player_is_random() -> None:
    """"Whoever has been to space most recently goes first. Otherwise, decide randomly." """
    firsts = {new_game(4, seed)["active"] for seed in range(30)}
    assert firsts == {0, 1, 2, 3}


# --- Taking a turn -------------------------------------------------------------------------------


def test_place_one_ship_and_interact() -> None:
    """"A Player may place 1 Ship on any Location on the Board. They immediately follow what to
    do on that Location." "A Player cannot choose to do nothing on their turn." """
    state = table(3)
    assert ids(state) == {f"place:{loc}" for loc in LOCATION_IDS}  # no pass, no take-back
    state, _ = do(state, "place:pomi")
    assert state["board"]["pomi"] == [0] and state["seats"][0]["hand"] == 0
    assert res(state, 0) == {"space_carrot": 2}
    assert GAME.actors(state) == {1} and GAME.legal_moves(state, 0) == []


def test_take_back_only_when_no_ship_is_left() -> None:
    """"Action 2: Take Ship(s) If a Player has no Ships to place, they must pick up all of their
    Ships." """
    state = table(2)
    state, _ = do(state, "place:pomi", "place:tyson")
    assert "take-back" not in ids(state)  # seat 0 still has a ship to place
    state, _ = do(state, "place:nye", "place:merchant")
    assert ids(state) == {"take-back"}
    state, facts = do(state, "take-back")
    assert state["seats"][0]["hand"] == 2 and ships(state, 0) == 4
    assert state["board"]["pomi"] == state["board"]["nye"] == []
    assert state["board"]["tyson"] == [1] and GAME.actors(state) == {1}
    assert "takes back all 2" in public_text(facts)


def test_bumping_another_player() -> None:
    """"If another Player's Ship is on a Location the Player wishes to visit, they may Bump the
    other Ship. This means that they give the Ship back to its owner. The Player then places
    their Ship on that Location and interacts with it. There is no blocking." """
    state = table(3)
    put_ship(state, 1, "nye")
    assert "place:nye:bump:1" in ids(state) and "place:nye" not in ids(state)
    state, _ = do(state, "place:nye:bump:1")
    assert state["board"]["nye"] == [0]
    assert state["seats"][1]["hand"] == 1
    assert res(state, 0) == {"ore": 2}  # no bumping bonus with 3 players


def test_bumping_your_own_ship_destroys_it() -> None:
    """"A Player may Bump their own Ship to visit the Location again, but the Ship being Bumped
    is destroyed (set it aside again). It can still be replaced by going to the Wormhole
    Location" ... "If a Player loses a Ship this way, they can go through the Wormhole again to
    replace it at the normal cost." """
    state = table(2)
    put_ship(state, 0, "tyson")
    state, facts = do(state, "place:tyson:bump:0")
    player = state["seats"][0]
    assert state["board"]["tyson"] == [0] and player["hand"] == 0 and player["wormhole"] == 3
    assert res(state, 0) == {"crystal": 2}  # no bumping bonus for your own ship
    assert ships(state, 0) == 4 and "destroyed" in public_text(facts)
    state["active"] = 0
    state, _ = do(state, "take-back")
    state["active"] = 0
    set_res(state, 0, credit=3, ore=3)
    state, _ = do(state, "place:wormhole", "wormhole:buy")
    assert state["seats"][0]["wormhole"] == 2 and state["seats"][0]["hand"] == 1


@pytest.mark.parametrize(("loc", "resource"), [("pomi", "space_carrot"), ("tyson", "crystal"),
                                               ("nye", "ore"), ("smashed-rock", "credit")])
def test_two_player_bumping_bonus(loc: str, resource: str) -> None:
    """"Bumping Bonus: When Bumping the other Player on Planet Pomi, Smashed Rock, Tyson Comet,
    or the Nye Asteroid Belt, the Player Bumping receives an extra Resource from that
    Location." """
    state = table(2)
    stack_riffraff(state, ["poacher"])  # gives neither of the four resources
    put_ship(state, 1, loc)
    state, facts = do(state, f"place:{loc}:bump:1")
    assert state["seats"][0]["res"][resource] == 3
    assert "bumping bonus" in public_text(facts)


def test_no_bumping_bonus_elsewhere_with_more_players_or_on_yourself() -> None:
    """The bonus is a "2 Player Setup" rule, for "Bumping the other Player" on four
    locations only."""
    state = table(2)
    put_ship(state, 1, "moon")
    state, _ = do(state, "place:moon:bump:1")
    assert res(state, 0) == {"space_slug": 1}  # Paradise's Moon: no bonus
    state = table(3)
    put_ship(state, 1, "pomi")
    state, _ = do(state, "place:pomi:bump:1")
    assert res(state, 0) == {"space_carrot": 2}  # three players: no bonus
    state = table(2)
    put_ship(state, 0, "pomi")
    state, _ = do(state, "place:pomi:bump:0")
    assert res(state, 0) == {"space_carrot": 2}  # your own ship: no bonus


def test_v1_paradise_and_star_have_three_spaces_no_bump_while_free() -> None:
    """Rules version 1: "On the Star of O-Renj and Paradise Locations, there is more than 1
    space to Place a Ship. If there is a space available to Place a Ship at a Location, a
    Player may Place a Ship in the available space instead of Bumping. Players may have more
    than 1 of their own Ships on these Locations, without needing to Bump their own Ships." -
    version 1 reads it as "a free space is always taken": no bump while one is free."""
    state = table(2, game=V1)
    put_ship(state, 1, "star")
    put_ship(state, 0, "star")
    assert "place:star" in ids(state) and not any("star:bump" in i for i in ids(state))
    state, _ = do(state, "place:star")
    assert state["board"]["star"] == [1, 0, 0] and state["seats"][1]["hand"] == 1
    assert {i for i in ids(state) if i.startswith("place:star")} == {
        "place:star:bump:0", "place:star:bump:1"}  # full: bump one of them
    state, _ = do(state, "place:star:bump:0")
    assert sorted(state["board"]["star"]) == [0, 1, 1] and state["seats"][0]["hand"] == 1


def test_v2_bump_on_paradise_while_a_space_is_free() -> None:
    """Rules version 2: "If there is a space available to Place a Ship at a Location, a Player
    may Place a Ship in the available space instead of Bumping." - placing is the alternative,
    bumping stays allowed. The bump is the usual one: "they give the Ship back to its owner.
    The Player then places their Ship on that Location and interacts with it." No bumping
    bonus: with 2 players it is "on Planet Pomi, Smashed Rock, Tyson Comet, or the Nye Asteroid
    Belt" only."""
    state = table(2)
    set_display(state, ["t01", "t02", "t07"])
    set_res(state, 0, space_carrot=1, space_slug=1, trap=1)  # Trobil 1's cost
    put_ship(state, 1, "paradise")
    put_ship(state, 1, "pomi")  # seat 1 has no ship left in hand
    assert {i for i in ids(state) if i.startswith("place:paradise")} == {
        "place:paradise", "place:paradise:bump:1"}  # 1 of 3 spaces taken
    state, facts = do(state, "place:paradise:bump:1")
    assert "bumps Seat 1's ship on Paradise: it goes back to Seat 1" in public_text(facts)
    assert state["board"]["paradise"] == [0] and state["seats"][1]["hand"] == 1
    assert ships(state, 0) == ships(state, 1) == 4
    assert ids(state) == {"trobil:t01", "pass"}  # "and interacts with it"
    state, _ = do(state, "trobil:t01")
    assert state["seats"][0]["trobils"] == ["t01"] and res(state, 0) == {}  # no bonus
    # The bumped ship is back in hand: seat 1 places it instead of taking its ships back.
    assert GAME.actors(state) == {1} and "take-back" not in ids(state)
    assert "place:paradise:bump:0" in ids(state) and "place:paradise" in ids(state)


def test_v2_bump_on_the_star_while_a_space_is_free() -> None:
    """Rules version 2 on the Star of O-Renj: "a Player may Place a Ship in the available space
    instead of Bumping" - so any ship there may be bumped, your own too: "A Player may Bump
    their own Ship to visit the Location again, but the Ship being Bumped is destroyed (set it
    aside again). It can still be replaced by going to the Wormhole Location" - and another
    player's goes back to its owner, without a bumping bonus (the Star is none of the four)."""
    state = table(2)
    set_display(state, ["t01", "t02", "t04"])
    put_ship(state, 1, "star")
    put_ship(state, 0, "star")  # 2 of 3 spaces taken
    give_trobil(state, 0, "t18")
    give_trobil(state, 0, "t07")
    assert {i for i in ids(state) if i.startswith("place:star")} == {
        "place:star", "place:star:bump:0", "place:star:bump:1"}
    state, facts = do(state, "place:star:bump:0")
    assert "its own ship on Star of O-Renj: it is destroyed" in public_text(facts)
    me = state["seats"][0]
    assert state["board"]["star"] == [1, 0] and (me["hand"], me["wormhole"]) == (0, 3)
    assert ships(state, 0) == 4
    assert ids(state) == {"flip:t18", "flip:t07", "done"}  # it interacts with the Star
    state, _ = do(state, "flip:t18", "done")
    assert res(state, 0) == {"credit": credits_of("t18")}
    state, facts = do(state, "place:star:bump:0")  # seat 1 bumps seat 0 with a space free
    assert "bumps Seat 0's ship on Star of O-Renj: it goes back to Seat 0" in public_text(facts)
    assert state["board"]["star"] == [1, 1] and state["seats"][0]["hand"] == 1
    assert res(state, 1) == {} and GAME.actors(state) == {0}  # no bonus, nothing to throw
    assert ships(state, 0) == ships(state, 1) == 4


def test_v2_racer_bumps_on_paradise_while_a_space_is_free() -> None:
    """Rules version 2: a Racer's "another turn with the same Ship" is a placement like any
    other, so it may bump on Paradise while a space is free too."""
    state = table(3)
    stack_riffraff(state, ["racer"])
    put_ship(state, 2, "paradise")
    state, _ = do(state, "place:smashed-rock")
    assert {"place:paradise", "place:paradise:bump:2"} <= ids(state)
    state, _ = do(state, "place:paradise:bump:2")
    assert state["board"]["paradise"] == [0] and state["board"]["smashed-rock"] == []
    assert state["seats"][2]["hand"] == 1 and GAME.actors(state) == {1}


def test_rules_versions_differ_only_in_bumping_with_room() -> None:
    """Version 1 stays as it was: the same deal (only version 2 marks its state), and the same
    moves but for the bumps on Paradise and the Star while a space is free."""
    for players in (2, 5):
        v1, v2 = (new_game(players, seed=players, game=game) for game in (V1, V2))
        assert "rules" not in v1 and v2.pop("rules") == 2 and v1 == v2
    v1, v2 = table(2, game=V1), table(2, game=V2)
    for state in (v1, v2):
        put_ship(state, 1, "paradise")
        put_ship(state, 1, "star")
        put_ship(state, 0, "nye")
    assert ids(v2) - ids(v1) == {"place:paradise:bump:1", "place:star:bump:1"}
    assert ids(v1) <= ids(v2) and "place:nye:bump:0" in ids(v1) and "place:nye" not in ids(v2)
    assert "even while a space is free" in GAME.view(v2, 0)["prompt"]
    assert GAME.view(v1, 0)["prompt"] == (
        "Your turn: place a ship on a location (bump a ship if it is full).")


def test_rules_version_3_differs_from_2_only_in_the_ranking_shape() -> None:
    """Version 3 deals and plays as version 2 (its state says "rules": 3); only the score
    sheet's `ranking` holds tied seats as one list (test_shared_rank_when_still_tied)."""
    for players in (2, 5):
        v2, v3 = (new_game(players, seed=players, game=game) for game in (V2, V3))
        assert v2.pop("rules") == 2 and v3.pop("rules") == 3 and v2 == v3
    v2, v3 = table(2, game=V2), table(2, game=V3)
    for state in (v2, v3):
        put_ship(state, 1, "paradise")
        put_ship(state, 0, "nye")
    assert ids(v2) == ids(v3) and GAME.view(v2, 0)["prompt"] == GAME.view(v3, 0)["prompt"]
    after2, facts2 = do(v2, "place:paradise:bump:1")
    after3, facts3 = do(v3, "place:paradise:bump:1")
    assert after2.pop("rules") == 2 and after3.pop("rules") == 3
    assert after2 == after3 and facts2 == facts3


# --- Locations -----------------------------------------------------------------------------------


def test_paradise_one_trobil_per_trip() -> None:
    """"When a Player places a Ship here, they may take 1 Trobil Card if they have the indicated
    Resources. Return the Resources used to capture the Trobil Card to the supply. When a
    Player takes a Trobil Card, they keep it face up in front of them." ... "They may only take
    1 Trobil Card per trip to Paradise" ... "A new Trobil Card replaces the one taken." """
    state = table(3)
    set_display(state, ["t01", "t02", "t11", "t20"])
    stack_deck(state, ["t05"])
    set_res(state, 0, space_carrot=3, space_slug=3, trap=3, megatrap=1)
    state, _ = do(state, "place:paradise")
    assert ids(state) == {"trobil:t01", "trobil:t02", "trobil:t11", "pass"}  # not t20
    state, facts = do(state, "trobil:t02")
    assert res(state, 0) == {"space_carrot": 2, "space_slug": 2, "trap": 1, "megatrap": 1}
    assert state["seats"][0]["trobils"] == ["t02"]
    assert state["display"] == ["t01", "t05", "t11", "t20"]
    assert GAME.actors(state) == {1}  # one Trobil: the turn is over
    assert all_cards(state) == FULL and "Trobil 5" in public_text(facts)


def test_paradise_may_pass_and_nothing_to_pay_for() -> None:
    """"they may take 1 Trobil Card if they have the indicated Resources" """
    state = table(3)
    set_display(state, ["t01", "t02", "t11", "t20"])
    set_res(state, 0, space_carrot=1, space_slug=1, trap=1)
    state, _ = do(state, "place:paradise", "pass")
    assert res(state, 0) == {"space_carrot": 1, "space_slug": 1, "trap": 1}
    assert state["display"] == ["t01", "t02", "t11", "t20"] and GAME.actors(state) == {1}
    set_res(state, 1)
    state, _ = do(state, "place:paradise")  # nothing to pay for: nothing to decide
    assert state["phase"] == "turn" and GAME.actors(state) == {2}


def test_star_throw_any_number() -> None:
    """"When a Player places a Ship here, they may immediately throw any amount of Trobil Cards
    they have captured into the star. Turn the Cards face down, and collect the indicated
    amount of Credits for each card. Once a Trobil Card is flipped over, only the owner may
    look at the card." ... "Even if you turn the card over by throwing the Trobil into the
    O-Renj Star, you still retain these points." """
    state = table(3)
    set_display(state, ["t01", "t02", "t04", "t05"])
    for card in ("t18", "t07", "t09"):
        give_trobil(state, 0, card)
    state, _ = do(state, "place:star")
    assert ids(state) == {"flip:t18", "flip:t07", "flip:t09", "done"}
    state, facts = do(state, "flip:t18")
    assert res(state, 0) == {"credit": 5}
    secret = [f for f in facts if f["to"] != "all"]
    assert [f["to"] for f in secret] == [[0]] and "Trobil 18" in secret[0]["text"]
    assert "t18" not in public_text(facts) and "Trobil 18" not in public_text(facts)
    assert "gains 5 Credits" in public_text(facts)
    state, _ = do(state, "flip:t07", "done")
    assert res(state, 0) == {"credit": 6} and GAME.actors(state) == {1}
    assert state["seats"][0]["trobils"] == ["t09"]
    assert state["seats"][0]["flipped"] == ["t18", "t07"]
    for reader in (1, 2, None):
        shown = GAME.view(state, reader)["players"][0]
        assert "flipped" not in shown and "trobil_points" not in shown
        assert shown["face_down"] == 2 and shown["face_up_points"] == 4
        assert "t18" not in json.dumps(GAME.view(state, reader))
    own = GAME.view(state, 0)["players"][0]
    assert own["flipped"] == ["t18", "t07"] and own["trobil_points"] == 14
    assert GAME.score(state)["seats"][0]["breakdown"]["trobils"] == 14


@pytest.mark.parametrize(("loc", "gained"), [("pomi", {"space_carrot": 2}),
                                             ("tyson", {"crystal": 2}), ("nye", {"ore": 2})])
def test_pomi_tyson_nye(loc: str, gained: dict[str, int]) -> None:
    """Planet Pomi: "they collect 2 Space Carrot Resources." Tyson Comet: "they collect 2 Crystal
    Resources." Nye Asteroid Belt: "they collect 2 Ore Resources." """
    state = table(4)
    state, _ = do(state, f"place:{loc}")
    assert res(state, 0) == gained and GAME.actors(state) == {1}


def test_smashed_rock_credits_and_a_riffraff() -> None:
    """Smashed Rock: "When a Player places a Ship here, they collect 2 Credits and a RiffRaff
    Card. These cards are public and are played immediately" """
    state = table(3)
    stack_riffraff(state, ["scavenger"])
    state, facts = do(state, "place:smashed-rock")
    assert res(state, 0) == {"credit": 2, "ore": 1, "crystal": 1}
    assert state["riffraff"]["discard"] == ["scavenger"] and len(state["riffraff"]["deck"]) == 31
    assert "Scavenger" in public_text(facts) and GAME.actors(state) == {1}


def test_station_prices_and_replacement() -> None:
    """"they may purchase up to 3 Connection Cards (1 at a time) and add them to their Ship Card
    on 1 of the 6 Locations. Each Connection Card costs 2 Credits plus 1 Credit for every
    Connection Card already on the same Ship Card Location." Example: "A Player buys an Ore
    Connection Card and places it on the Smashed Rock Location of their Ship Card. ... it costs
    2 Credits. He then buys a Crystal Connection Card and places it on the same Location. This
    costs 3 Credits" ... "When a Player purchases 1 Connection Card, it is immediately replaced
    on the Board by a new Connection." """
    state = table(3)
    set_res(state, 0, credit=20)
    set_offer(state, ["ore", "crystal", "trap"], top=("credit", "space_slug", "space_carrot"))
    state, _ = do(state, "place:station")
    assert ids(state) == {f"buy:{k}:{loc}" for k in ("ore", "crystal", "trap")
                          for loc in SHIP_CARD} | {"done"}
    state, _ = do(state, "buy:ore:smashed-rock")
    assert res(state, 0) == {"credit": 18}
    assert state["connections"]["offer"] == ["credit", "crystal", "trap"]
    state, _ = do(state, "buy:crystal:smashed-rock")
    assert res(state, 0) == {"credit": 15}
    assert state["connections"]["offer"] == ["credit", "space_slug", "trap"]
    state, _ = do(state, "buy:trap:pomi")  # the third: the visit is over
    assert res(state, 0) == {"credit": 13} and GAME.actors(state) == {1}
    card = state["seats"][0]["ship_card"]
    assert card["smashed-rock"] == ["ore", "crystal"] and card["pomi"] == ["trap"]
    assert all_cards(state) == FULL


def test_station_only_what_you_can_pay_and_done() -> None:
    """"Each Connection Card costs 2 Credits plus 1 Credit for every Connection Card already on
    the same Ship Card Location." ... "they may purchase up to 3" """
    state = table(3)
    give_connection(state, 0, "ore", "tyson")
    set_res(state, 0, credit=2)
    set_offer(state, ["ore", "ore", "crystal"])
    state, _ = do(state, "place:station")
    buys = {i for i in ids(state) if i.startswith("buy")}
    assert buys == {f"buy:{k}:{loc}" for k in ("ore", "crystal") for loc in SHIP_CARD
                    if loc != "tyson"}  # Tyson costs 3 now; two identical Ores are one choice
    state, _ = do(state, "done")
    assert res(state, 0) == {"credit": 2} and GAME.actors(state) == {1}


def test_identical_offer_reshuffled_at_end_of_purchasing() -> None:
    """"If all 3 available Connection Cards on the Board are the same at the end of purchasing,
    they are shuffled back in and replaced." """
    state = table(3)
    set_res(state, 0, credit=10)
    set_offer(state, ["ore", "ore", "crystal"], top=("ore",))
    state, _ = do(state, "place:station", "buy:crystal:moon")
    assert state["connections"]["offer"] == ["ore", "ore", "ore"]  # still purchasing
    state, facts = do(state, "done")
    offer = state["connections"]["offer"]
    assert len(offer) == 3 and len(set(offer)) > 1 and len(state["connections"]["deck"]) == 44
    assert "shuffled back" in public_text(facts)
    assert GAME.view(state, None)["connections"]["reshuffles"] == 1
    assert all_cards(state) == FULL


def test_megafactory() -> None:
    """"When a Player places a Ship here, they may choose 1 of the following actions: Pay 2 Ore
    and 1 Trap to collect 1 MegaTrap. Pay 5 Ore and 3 Traps and to collect 2 MegaTraps" """
    state = table(3)
    set_res(state, 0, ore=5, trap=3)
    state, _ = do(state, "place:megafactory")
    assert ids(state) == {"megafactory:1", "megafactory:2", "pass"}
    state, _ = do(state, "megafactory:2")
    assert res(state, 0) == {"megatrap": 2}
    set_res(state, 1, ore=4, trap=2)
    state, _ = do(state, "place:megafactory:bump:0")
    assert ids(state) == {"megafactory:1", "pass"}
    state, _ = do(state, "megafactory:1")
    assert res(state, 1) == {"ore": 2, "trap": 1, "megatrap": 1}
    state, _ = do(state, "place:megafactory:bump:1")  # seat 2 can pay for nothing
    assert res(state, 2) == {} and GAME.actors(state) == {0}


@pytest.mark.parametrize(("option", "after"), [(1, {"crystal": 2, "space_slug": 1}),
                                               (2, {"crystal": 1, "space_slug": 2}),
                                               (3, {"space_slug": 3})])
def test_moon(option: int, after: dict[str, int]) -> None:
    """Paradise's Moon: "Take 1 free Space Slug" / "Pay 1 Crystal and collect 2 Space Slugs" /
    "Pay 2 Crystals and collect 3 Space Slugs" """
    state = table(3)
    set_res(state, 0, crystal=2)
    state, _ = do(state, "place:moon")
    assert ids(state) == {"moon:1", "moon:2", "moon:3"}  # "They must interact"
    state, _ = do(state, f"moon:{option}")
    assert res(state, 0) == after and GAME.actors(state) == {1}


def test_moon_without_crystals_gives_the_free_slug() -> None:
    """"Take 1 free Space Slug" is the only action without Crystals (played at once)."""
    state = table(3)
    state, _ = do(state, "place:moon")
    assert res(state, 0) == {"space_slug": 1} and GAME.actors(state) == {1}


@pytest.mark.parametrize(("option", "after"), [(1, {"credit": 3, "trap": 1}),
                                               (2, {"credit": 2, "trap": 2}),
                                               (3, {"credit": 1, "trap": 3})])
def test_merchant(option: int, after: dict[str, int]) -> None:
    """Merchant: "Collect 1 free Trap" / "Pay 1 Credit and collect 2 Traps" / "Pay 2 Credits
    and collect 3 Traps" """
    state = table(3)
    set_res(state, 0, credit=3)
    state, _ = do(state, "place:merchant")
    assert ids(state) == {"merchant:1", "merchant:2", "merchant:3"}
    state, _ = do(state, f"merchant:{option}")
    assert res(state, 0) == after


def test_wormhole_one_ship_per_turn() -> None:
    """"When a Player places a Ship here, they may pay 3 Credits and 3 Ore Resources to gain an
    additional Ship." ... "when visiting the Wormhole Location, Players may only purchase a Ship
    once per turn. They may not buy 2, even if they have the Resources to do so." """
    state = table(3)
    set_res(state, 0, credit=6, ore=6)
    state, _ = do(state, "place:wormhole")
    assert ids(state) == {"wormhole:buy", "pass"}
    state, facts = do(state, "wormhole:buy")
    player = state["seats"][0]
    assert (player["hand"], player["wormhole"]) == (1, 1)
    assert res(state, 0) == {"credit": 3, "ore": 3} and GAME.actors(state) == {1}
    assert ships(state, 0) == 3


def test_wormhole_needs_a_waiting_ship_and_the_price() -> None:
    """"place 1 additional Ship on the Wormhole to purchase later" (6-7 players): once it is
    bought, none is left to buy - until a ship of yours is destroyed ("they can go through the
    Wormhole again to replace it at the normal cost"); nor without 3 Credits and 3 Ore."""
    state = table(6)
    set_res(state, 0, credit=9, ore=9)
    state, _ = do(state, "place:wormhole", "wormhole:buy")
    assert state["seats"][0]["wormhole"] == 0 and state["seats"][0]["hand"] == 1
    set_res(state, 1, credit=3, ore=2)  # cannot pay
    state, _ = do(state, "place:wormhole:bump:0")
    assert state["phase"] == "turn" and res(state, 1) == {"credit": 3, "ore": 2}
    state["active"] = 0
    state, _ = do(state, "place:wormhole:bump:1")  # no ship waits for seat 0
    assert state["phase"] == "turn" and res(state, 0) == {"credit": 6, "ore": 6}
    state["active"] = 0
    state, _ = do(state, "place:wormhole:bump:0")  # destroyed: it waits there again
    assert state["seats"][0]["wormhole"] == 1 and ids(state) == {"wormhole:buy", "pass"}
    assert ships(state, 0) == 2


def test_connection_resources_come_first() -> None:
    """"Adding a Connection Card to a Player's Ship Card will increase what the Player receives
    from the specified Location. They receive these Resources before encountering the Location,
    so a Player may use them to purchase other Resources on that Location." """
    state = table(3)
    give_connection(state, 0, "credit", "merchant")
    give_connection(state, 0, "credit", "merchant")
    state, facts = do(state, "place:merchant")
    assert ids(state) == {"merchant:1", "merchant:2", "merchant:3"}
    state, _ = do(state, "merchant:3")
    assert res(state, 0) == {"trap": 3}
    assert "Connections on Merchant give 2 Credits" in public_text(facts)


def test_connection_resources_come_before_riffraff() -> None:
    """"A Player always collects their Connection resources before interacting with a Location
    or RiffRaff." - a Credit Connection pays the Pirate's toll on arrival."""
    state = table(3)
    state["stands"]["moon"] = {"card": "pirate", "owner": 1}
    state["riffraff"]["deck"].remove("pirate")
    give_connection(state, 0, "credit", "moon")
    state, facts = do(state, "place:moon")
    assert res(state, 0) == {"space_slug": 1} and res(state, 1) == {"credit": 1}
    assert all_cards(state) == FULL


# --- RiffRaff ------------------------------------------------------------------------------------


def smashed_rock(players: int, *cards: str) -> State:
    """Seat 0 to move, these RiffRaff cards on top of the deck."""
    state = table(players)
    stack_riffraff(state, list(cards))
    return state


def test_racer_another_turn_with_the_same_ship() -> None:
    """"The card is a Racer which allows him to take another turn with the same Ship. Chris
    places the same first Ship on the O-Renj Station." """
    state = smashed_rock(3, "racer")
    state, _ = do(state, "place:smashed-rock")
    assert state["phase"] == "extra_turn"
    assert ids(state) == {f"place:{loc}" for loc in LOCATION_IDS if loc != "smashed-rock"} | {
        "pass"}
    state, _ = do(state, "place:nye")
    assert state["board"]["smashed-rock"] == [] and state["board"]["nye"] == [0]
    assert res(state, 0) == {"credit": 2, "ore": 2} and GAME.actors(state) == {1}
    state = smashed_rock(3, "racer")
    state, _ = do(state, "place:smashed-rock", "pass")
    assert state["board"]["smashed-rock"] == [0] and GAME.actors(state) == {1}


def test_courtesan_second_trobil_at_paradise() -> None:
    """"They may only take 1 Trobil Card per trip to Paradise (unless a Courtesan RiffRaff Card
    is used)." (Meeple: the Courtesan interacts once more with a location where one of your
    ships stands.)"""
    state = table(2)
    set_display(state, ["t01", "t02", "t04"])
    set_res(state, 0, space_carrot=2, space_slug=2, trap=3)
    stack_riffraff(state, ["courtesan"])
    state, _ = do(state, "place:paradise", "trobil:t01", "place:pomi", "place:smashed-rock")
    assert state["phase"] == "interact_again"
    assert ids(state) == {"again:paradise", "again:smashed-rock", "pass"}
    state, _ = do(state, "again:paradise")
    assert ids(state) == {"trobil:t02", "pass"}
    state, _ = do(state, "trobil:t02")
    assert state["seats"][0]["trobils"] == ["t01", "t02"] and GAME.actors(state) == {1}


def test_courtesan_interacts_with_a_location_twice_in_a_turn() -> None:
    """"Players may only interact with a Location once per turn (unless a Courtesan is
    used)." - here Smashed Rock twice: 2 + 2 Credits and a second RiffRaff card."""
    state = smashed_rock(3, "courtesan", "poacher")
    give_connection(state, 0, "ore", "smashed-rock")
    state, _ = do(state, "place:smashed-rock", "again:smashed-rock")
    assert res(state, 0) == {"credit": 4, "ore": 2, "trap": 1, "space_slug": 1}
    assert state["riffraff"]["discard"] == ["courtesan", "poacher"]


def test_courtesan_second_ship_at_the_wormhole() -> None:
    """"For instance, when visiting the Wormhole Location, Players may only purchase a Ship once
    per turn." (unless a Courtesan is used)"""
    state = table(2)
    set_res(state, 0, credit=6, ore=6)
    stack_riffraff(state, ["courtesan"])
    state, _ = do(state, "place:wormhole", "wormhole:buy", "place:pomi", "place:smashed-rock")
    state, _ = do(state, "again:wormhole", "wormhole:buy")
    player = state["seats"][0]
    assert (player["wormhole"], player["hand"]) == (0, 2) and ships(state, 0) == 4


def test_smuggler_shares_a_connection() -> None:
    """"Smugglers willing to share their Connections" (Meeple: a Connection on offer for
    free)."""
    state = smashed_rock(3, "smuggler")
    set_offer(state, ["ore", "crystal", "ore"], top=("trap",))
    state, _ = do(state, "place:smashed-rock")
    assert ids(state) == {f"take:{k}:{loc}" for k in ("ore", "crystal") for loc in SHIP_CARD}
    state, _ = do(state, "take:ore:tyson")
    assert state["seats"][0]["ship_card"]["tyson"] == ["ore"] and res(state, 0) == {"credit": 2}
    assert state["connections"]["offer"] == ["trap", "crystal", "ore"]
    assert all_cards(state) == FULL


def test_bounty_hunter_for_a_quick_credit() -> None:
    """"Bounty Hunters looking for a quick Credit" (Meeple: pay 1 Credit for a MegaTrap, or
    not: "Riffraff cards are never bad for the person that draws them")."""
    state = smashed_rock(3, "bounty-hunter")
    state, _ = do(state, "place:smashed-rock")
    assert ids(state) == {"exchange", "pass"}
    state, _ = do(state, "exchange")
    assert res(state, 0) == {"credit": 1, "megatrap": 1}


def test_scavenger_and_poacher() -> None:
    """RiffRaff "will help you out however they can" (Meeple's gain cards)."""
    state = smashed_rock(3, "poacher")
    state, _ = do(state, "place:smashed-rock")
    assert res(state, 0) == {"credit": 2, "trap": 1, "space_slug": 1}


def test_pirate_stand_toll() -> None:
    """"Pirates for hire" (Meeple: a stand; others placing a ship there pay its owner 1
    Credit). "No RiffRaff Stand may be placed on the Star of O-Renj Location." """
    state = smashed_rock(3, "pirate")
    state, _ = do(state, "place:smashed-rock")
    assert ids(state) == {f"stand:{loc}" for loc in STAND_SPOTS}
    assert "stand:star" not in ids(state) and len(STAND_SPOTS) == 10
    assert all_cards(state) == FULL
    state, facts = do(state, "stand:pomi")
    assert state["stands"] == {"pomi": {"card": "pirate", "owner": 0}}
    assert GAME.view(state, None)["stands_left"] == 11 and "pirate" not in state[
        "riffraff"]["discard"]
    set_res(state, 1, credit=1)
    state, facts = do(state, "place:pomi")
    assert res(state, 1) == {"space_carrot": 2} and res(state, 0) == {"credit": 3}
    assert "pays 1 Credit to Seat 0" in public_text(facts)
    state["active"] = 0
    state, _ = do(state, "take-back")
    state["active"] = 0
    state, _ = do(state, "place:pomi:bump:1")  # the owner pays nothing
    assert res(state, 0) == {"credit": 3, "space_carrot": 2}


def test_fixer_stand_bonus() -> None:
    """Meeple's lasting stand for its owner: 1 Credit whenever the owner places a ship there."""
    state = smashed_rock(3, "fixer")
    state, _ = do(state, "place:smashed-rock", "stand:nye")
    state, _ = do(state, "place:nye")  # seat 1: not the owner
    assert res(state, 1) == {"ore": 2}
    state["active"] = 0
    state, _ = do(state, "take-back")
    state["active"] = 0
    state, _ = do(state, "place:nye:bump:1")
    assert res(state, 0) == {"credit": 3, "ore": 2}


def test_one_stand_per_location() -> None:
    """"No Location may hold more than 1 RiffRaff Stand." """
    state = smashed_rock(3, "pirate")
    state["stands"]["pomi"] = {"card": "fixer", "owner": 2}
    state["riffraff"]["deck"].remove("fixer")
    state, _ = do(state, "place:smashed-rock")
    assert ids(state) == {f"stand:{loc}" for loc in STAND_SPOTS if loc != "pomi"}


def test_no_room_for_a_stand(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a stand on every allowed location, a stand card has no effect (README decision;
    with the stand-in set it cannot happen: 10 stand cards, 10 locations)."""
    monkeypatch.setattr(riffraff, "STAND_SPOTS", ["pomi"])
    state = smashed_rock(3, "fixer")
    state["stands"]["pomi"] = {"card": "pirate", "owner": 2}
    state["riffraff"]["deck"].remove("pirate")
    state, facts = do(state, "place:smashed-rock")
    assert state["riffraff"]["discard"] == ["fixer"] and GAME.actors(state) == {1}
    assert "no room" in public_text(facts) and all_cards(state) == FULL


def test_riffraff_deck_reshuffled_when_empty() -> None:
    """"If the RiffRaff Card deck runs out, they should be reshuffled and placed back on the
    board." """
    state = table(3)
    pile = state["riffraff"]
    pile["discard"], pile["deck"] = pile["deck"], []
    state, facts = do(state, "place:smashed-rock")
    assert len(state["riffraff"]["deck"]) == 31
    assert "shuffled into a new deck" in public_text(facts)
    assert all_cards(state) == FULL


# --- the end -------------------------------------------------------------------------------------


def test_game_ends_immediately_when_every_card_shown_is_a_city() -> None:
    """"When a City Card is revealed, it remains out and takes the place of a Trobil Card. Once
    all cards are City Cards, the game immediately ends." """
    state = table(2)
    cities = [c for c in state["deck"] if is_city(c)]
    set_display(state, [cities[0], "t01", cities[1]])
    stack_deck(state, [cities[2]])
    set_res(state, 0, space_carrot=1, space_slug=1, trap=1)
    state, facts = do(state, "place:paradise", "trobil:t01")
    assert state["display"] == [cities[0], cities[2], cities[1]]
    assert GAME.is_over(state) and GAME.actors(state) == set()
    assert GAME.legal_moves(state, 0) == GAME.legal_moves(state, 1) == []
    assert "the game ends" in public_text(facts)
    assert GAME.view(state, None)["score"] == GAME.score(state)
    with pytest.raises(IllegalMove):
        GAME.play(state, 1, {"id": "place:pomi"}, rng())


def test_a_city_ends_nothing_while_a_trobil_is_shown() -> None:
    """"it remains out and takes the place of a Trobil Card" - the game goes on."""
    state = table(2)
    cities = [c for c in state["deck"] if is_city(c)]
    set_display(state, ["t02", "t01", cities[1]])
    stack_deck(state, [cities[0]])
    set_res(state, 0, space_carrot=1, space_slug=1, trap=1)
    state, _ = do(state, "place:paradise", "trobil:t01")
    assert not GAME.is_over(state) and GAME.view(state, None)["cities_to_come"] == 1


def test_final_scoring_with_every_city_bonus() -> None:
    """City Card bonuses: "For every 3 Crystals receive 1 Point" "For every 3 Ore receive 1
    Point" "For every 3 Credits receive 1 Point" "For every 2 Space Slugs receive 1 Point" "For
    every MegaTrap receive 1 Point" "For every 2 Traps receive 1 Point" "For every 2
    Connections receive 1 Point" "For every 3 Space Carrots receive 1 Point" ... "Everyone
    counts their points from the Trobils they've captured, and any bonuses they receive from
    City Cards." """
    state = table(7)  # 8 Cities in the game
    set_display(state, list(CITIES))
    set_res(state, 0, crystal=7, ore=6, credit=10, space_slug=5, megatrap=2, trap=5,
            space_carrot=8)
    for loc in ("pomi", "tyson", "nye", "moon", "moon"):
        give_connection(state, 0, "ore", loc)
    give_trobil(state, 0, "t20")
    give_trobil(state, 0, "t19", flipped=True)
    sheet = GAME.score(state)
    mine = sheet["seats"][0]
    assert mine["breakdown"] == {"trobils": 16, "crystal-city": 2, "ore-city": 2,
                                 "credit-city": 3, "slug-city": 2, "megatrap-city": 2,
                                 "trap-city": 2, "connection-city": 2, "carrot-city": 2}
    assert mine["total"] == 33 and mine["rank"] == 1 and sheet["ranking"][0] == 0


def test_ties_by_trobil_points_then_trobil_cards() -> None:
    """"The Player with the highest total points wins! Ties go to the Player with the most
    points earned from Trobil Cards. If there's still a tie, the Player with the most Trobil
    Cards wins." """
    state = table(4)
    city = next(c for c in state["deck"] if is_city(c) and CITIES[c]["bonus"] == "per_resource")
    set_display(state, [city, "t01", "t02", "t07", "t08"])
    give_trobil(state, 0, "t15")  # 6 points, 1 card
    give_trobil(state, 1, "t11")  # 4 points + 2 from the City
    set_res(state, 1, **{CITIES[city]["resource"]: 2 * CITIES[city]["per"]})
    give_trobil(state, 2, "t04")  # 2 + 4 points, 2 cards (one face down)
    give_trobil(state, 2, "t09", flipped=True)
    sheet = GAME.score(state)
    assert [(s["total"], s["rank"]) for s in sheet["seats"]] == [(6, 2), (6, 3), (6, 1), (0, 4)]
    assert sheet["seats"][1]["breakdown"] == {"trobils": 4, city: 2}
    assert sheet["ranking"] == [2, 0, 1, 3]


def tied_three(game: Game = GAME) -> State:
    """Seats 0 and 1 equal on points, Trobil points and Trobil cards; seat 2 behind."""
    state = table(3, game=game)
    set_display(state, ["t01", "t02", "t07", "t08"])
    give_trobil(state, 0, "t04")  # 2 + 4 points, 2 cards
    give_trobil(state, 0, "t09")
    give_trobil(state, 1, "t05")  # 2 + 4 points, 2 cards
    give_trobil(state, 1, "t11")
    give_trobil(state, 2, "t15")  # 6 points, 1 card
    return state


def test_shared_rank_when_still_tied() -> None:
    """"If there's still a tie, the Player with the most Trobil Cards wins." - equal on all
    three: the rank is shared, and (rules version 3) the tied seats are one list in the
    ranking, as openapi's ScoreSheet says of every game's result: "seats tied for a place are
    one list"."""
    sheet = GAME.score(tied_three())
    assert [s["rank"] for s in sheet["seats"]] == [1, 1, 3]
    assert sheet["ranking"] == [[0, 1], 2]
    assert [s["tiebreak"] for s in sheet["seats"]] == [[6, 2], [6, 2], [6, 1]]
    state = tied_three()
    state["seats"][2]["trobils"] = []  # seat 2 now 0 points: still alone, last
    assert GAME.score(state)["ranking"] == [[0, 1], 2]


@pytest.mark.parametrize("game", [V1, V2], ids=["v1", "v2"])
def test_v1_v2_shared_rank_listed_seat_by_seat(game: AskingForTrobils) -> None:
    """Rules versions 1 and 2 keep the ranking their GameEnded results recorded: every seat
    alone, tied seats in seat order (the ranks are the same as in version 3)."""
    sheet = game.score(tied_three(game))
    assert [s["rank"] for s in sheet["seats"]] == [1, 1, 3]
    assert sheet["ranking"] == [0, 1, 2]
    v3 = GAME.score(tied_three())
    assert sheet["seats"] == v3["seats"]


def test_ranking_matches_the_published_score_sheet() -> None:
    """The game's schema (both shapes) and openapi's ScoreSheet describe `ranking` alike."""
    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    doc = spec["components"]["schemas"]["ScoreSheet"]["properties"]["ranking"]["description"]
    assert "tied for a place are one list" in doc
    schema = json.loads((ROOT / "games/asking_for_trobils/schema.json").read_text())
    ranking = schema["$defs"]["score_sheet"]["properties"]["ranking"]
    assert "rules version 3" in ranking["description"]
    assert [item.get("type", "seat") for item in ranking["items"]["anyOf"]] == ["seat", "array"]


# --- the Short Game Variant ----------------------------------------------------------------------


@pytest.mark.parametrize("players", range(3, 8))
def test_short_game_removes_the_rocket_cards(players: int) -> None:
    """"Short Game Variant: To play a shorter game, remove the 5 cards marked for a 2 Player game
    setup." """
    short = new_game(players, short=True)
    normal = new_game(players)
    assert set(short["box"]) >= ROCKETS and not ROCKETS & set(normal["box"])
    assert len(short["deck"]) + len(short["display"]) == 15 + players + 1
    assert len(normal["deck"]) + len(normal["display"]) == 20 + players + 1
    assert all_cards(short) == FULL and short["short_game"]


# --- hidden information --------------------------------------------------------------------------


def test_determinize_keeps_what_the_seat_knows() -> None:
    """"Nothing is secret in Asking for Trobils, with the exception of turned over (thrown into
    the Star of O-Renj) Trobil Cards." - and the order of the decks."""
    state = table(4)
    set_display(state, ["t01", "t02", "t04", "t05", "t07"])
    give_trobil(state, 1, "t18", flipped=True)
    give_trobil(state, 2, "t08")
    give_trobil(state, 0, "t09", flipped=True)
    others = set()
    for n in range(20):
        other = GAME.determinize(state, 0, Rng(b"det", n))
        assert GAME.view(other, 0) == GAME.view(state, 0)
        assert GAME.view(other, None) == GAME.view(state, None)
        assert other["seats"][0]["flipped"] == ["t09"] and other["seats"][2]["trobils"] == ["t08"]
        assert len(other["seats"][1]["flipped"]) == 1
        deck = other["deck"]
        assert not any(is_city(c) for c in deck[10:]) and sum(is_city(c) for c in deck) == 5
        assert all_cards(other) == FULL
        others.add(other["seats"][1]["flipped"][0])
    # A Trobil reaches a player only face up (a capture names it to everyone): another seat's
    # face-down Trobil is remembered, not dealt anew.
    assert others == {"t18"}
    assert GAME.determinize(state, 1, rng())["seats"][1]["flipped"] == ["t18"]


@pytest.mark.parametrize("game", VERSIONS, ids=lambda g: f"v{g.rules_version}")
def test_determinize_remembers_a_trobil_seen_captured_and_thrown(game: AskingForTrobils) -> None:
    """Contract: determinize deals "a full state `seat` cannot tell from `state` ... from what
    the seat knows alone". Seat 0 saw seat 1 capture Trobil 18 face up and throw it into the
    Star; "Once a Trobil Card is flipped over, only the owner may look at the card" hides it
    from view, not from memory, so every world keeps it with seat 1 (all rules versions:
    determinize is not part of the record)."""
    state = table(2, active=1, game=game)
    set_display(state, ["t18", "t02", "t04"])
    set_res(state, 1, space_carrot=9, space_slug=9, trap=9, megatrap=9)
    state, facts = do(state, "place:paradise", "trobil:t18")
    assert "t18" in public_text(facts) and state["seats"][1]["trobils"] == ["t18"]
    state, _ = do(state, "place:nye", "place:star", "flip:t18")
    assert state["seats"][1]["flipped"] == ["t18"] and GAME.view(state, 0)["players"][1][
        "trobils"] == []
    for n in range(20):
        world = game.determinize(state, 0, Rng(b"worlds", n))
        assert world["seats"][1]["flipped"] == ["t18"] and "t18" not in world["deck"]
        assert game.view(world, 0) == game.view(state, 0) and all_cards(world) == FULL


def test_everything_visible_once_over() -> None:
    """Contract: after the game everything is shown (the final scoring counts flipped
    Trobils)."""
    state = table(2)
    give_trobil(state, 1, "t18", flipped=True)
    state["phase"] = "over"
    shown = GAME.view(state, 0)
    assert shown["players"][1]["flipped"] == ["t18"] and shown["score"] is not None
    assert "deck_cards" in shown and GAME.determinize(state, 0, rng()) == state
    assert shown["deck_cards"] == state["deck"] and shown["box"] == state["box"]
    assert shown["riffraff"]["deck_cards"] == state["riffraff"]["deck"]
    assert shown["connections"]["deck_cards"] == state["connections"]["deck"]
    state["phase"] = "turn"  # before the end: counts only
    shown = GAME.view(state, 0)
    assert "deck_cards" not in shown["riffraff"] and "deck_cards" not in shown["connections"]


# --- contract ------------------------------------------------------------------------------------


def test_illegal_moves_are_refused() -> None:
    """Contract: IllegalMove codes not_your_turn / illegal_move / bad_move, no change."""
    state = table(3)
    frozen = json.dumps(state)
    with pytest.raises(IllegalMove) as wrong_seat:
        GAME.play(state, 1, {"id": "place:pomi"}, rng())
    assert wrong_seat.value.code == "not_your_turn"
    with pytest.raises(IllegalMove) as made_up:
        GAME.play(state, 0, {"id": "take-back"}, rng())  # a ship is left to place
    assert made_up.value.code == "illegal_move"
    with pytest.raises(IllegalMove) as malformed:
        GAME.play(state, 0, {"label": "no id"}, rng())
    assert malformed.value.code == "bad_move"
    assert json.dumps(state) == frozen


def test_play_does_not_mutate() -> None:
    """Contract: play returns a new state and leaves its input alone."""
    state = smashed_rock(3, "courtesan")
    frozen = json.dumps(state)
    after, _ = do(state, "place:smashed-rock", "again:smashed-rock")
    assert json.dumps(state) == frozen and after != state


def test_prompts() -> None:
    """Contract: the view carries a prompt for the seat."""
    state = table(3)
    assert "place a ship" in GAME.view(state, 0)["prompt"]
    assert GAME.view(state, 1)["prompt"] == "Waiting for Seat 0."
    set_res(state, 0, ore=2, trap=1)
    state, _ = do(state, "place:megafactory")
    assert GAME.view(state, 0)["prompt"].startswith("MegaFactory: choose one")


# --- the rulebook's Example Play -----------------------------------------------------------------

ERIN, CHRIS = 0, 1


def example_start() -> State:
    """The smallest arranged mid-game position the "Example Play" starts from. It is an
    example from the middle of a game ("the Trobils he previously captured"): the players
    already hold what it takes for granted, so it agrees with the rules; it is not a game from
    setup. As dealt: 2 ships in hand and 2 on the Wormhole each, 5 Credits each. What the
    players hold before the example starts (also in games/asking_for_trobils/README.md):

    1. Erin pays "3 Credits and 3 Ore" at the Wormhole after gaining 2 Ore at Nye: she holds
       1 Ore already.
    2. Chris captures a Trobil after gaining only Credits: he holds the cost of Trobil 1
       (1 Space Carrot, 1 Space Slug, 1 Trap), which is on display.
    3. Chris flips "his 2 Trobil Cards", one of them "previously captured": he holds Trobil 4.
    4. Erin captures a Trobil after gaining Crystals and Traps: she holds 1 Space Carrot and
       1 Space Slug (Trobil 2 costs 1 + 1 + 2 Traps; it is on display).
    5. The third capture reveals a City: with 2 players at least 9 Trobils come before the
       first City, so the game is that far on: Trobil 5, then a City are on top of the deck.
    6. Who moves first in the example: Erin, as told.
    Arranged too: a Racer on the RiffRaff deck and the Ore Connections Chris buys."""
    state = table(2, active=ERIN)
    set_res(state, ERIN, credit=5, ore=1, space_carrot=1, space_slug=1)
    set_res(state, CHRIS, credit=5, space_carrot=1, space_slug=1, trap=1)
    set_display(state, ["t01", "t02", "t07"])
    give_trobil(state, CHRIS, "t04")
    city = next(c for c in state["deck"] if is_city(c))
    stack_deck(state, ["t05", city])
    stack_riffraff(state, ["racer"])
    set_offer(state, ["ore", "crystal", "trap"], top=("ore", "credit"))
    assert all_cards(state) == FULL
    return state


def test_example_play() -> None:
    """The rulebook's "Example Play", sentence by sentence (two players: Erin and Chris)."""
    state = example_start()
    city = state["deck"][-2]
    # "Erin places her first Ship on the Nye Asteroid Belt gaining 2 Ore."
    state, _ = do(state, "place:nye")
    assert res(state, ERIN)["ore"] == 3
    # "Chris places his first Ship on Smashed Rock and receives 2 Credits and draws a RiffRaff
    # Card. The card is a Racer which allows him to take another turn with the same Ship."
    state, facts = do(state, "place:smashed-rock")
    assert res(state, CHRIS)["credit"] == 7 and "Racer" in public_text(facts)
    assert state["phase"] == "extra_turn"
    # "Chris places the same first Ship on the O-Renj Station. There he buys an Ore Connection
    # for 2 Credits, and places it on the Tyson Comet Location of his Ship Card."
    state, _ = do(state, "place:station", "buy:ore:tyson")
    assert state["board"]["smashed-rock"] == [] and state["board"]["station"] == [CHRIS]
    assert state["seats"][CHRIS]["hand"] == 1 and res(state, CHRIS)["credit"] == 5
    # "He purchases a second Ore Connection and places it above the last, paying 3 Credits for
    # this placement. He skips buying his third Connection."
    state, _ = do(state, "buy:ore:tyson", "done")
    assert res(state, CHRIS)["credit"] == 2
    assert state["seats"][CHRIS]["ship_card"]["tyson"] == ["ore", "ore"]
    # "Erin places her second Ship on the Wormhole Location. She pays 3 Credits and 3 Ore. Then
    # she grabs a third Ship, and places it near her Ship Card."
    state, _ = do(state, "place:wormhole", "wormhole:buy")
    erin = state["seats"][ERIN]
    assert res(state, ERIN) == {"credit": 2, "space_carrot": 1, "space_slug": 1}
    assert (erin["hand"], erin["wormhole"]) == (1, 1)
    # "Chris places his second Ship on the Paradise Location. He grabs a Trobil Card and pays
    # the Resources required at the top of the card. He then places it face up next to his Ship
    # Card. A new Trobil Card replaces it."
    state, _ = do(state, "place:paradise", "trobil:t01")
    assert res(state, CHRIS) == {"credit": 2}
    assert state["seats"][CHRIS]["trobils"] == ["t04", "t01"]
    assert state["display"] == ["t05", "t02", "t07"]
    # "Erin places her third Ship on the Merchant Location and chooses to pay 2 Credits to gain
    # 3 Traps."
    state, _ = do(state, "place:merchant", "merchant:3")
    assert res(state, ERIN) == {"trap": 3, "space_carrot": 1, "space_slug": 1}
    # "Chris has no unused Ships to place, so he picks up his 2 Ships."
    assert ids(state) == {"take-back"}
    state, _ = do(state, "take-back")
    assert state["seats"][CHRIS]["hand"] == 2
    # "Erin has no unused Ships to place, so she picks up her 3 Ships."
    assert ids(state) == {"take-back"}
    state, _ = do(state, "take-back")
    assert state["seats"][ERIN]["hand"] == 3
    assert all(ships == [] for ships in state["board"].values())
    # "Chris places his first Ship on the Tyson Comet, gaining 2 Crystals and 2 Ore because of
    # his Connections."
    state, _ = do(state, "place:tyson")
    assert res(state, CHRIS) == {"credit": 2, "crystal": 2, "ore": 2}
    # "Erin places her first Ship on the Tyson Comet, Bumping Chris' Ship. Chris takes his Ship
    # back, and Erin takes 2 Crystals. She takes a third Crystal as a Bumping Bonus"
    state, _ = do(state, "place:tyson:bump:1")
    assert state["seats"][CHRIS]["hand"] == 2 and state["board"]["tyson"] == [ERIN]
    assert res(state, ERIN)["crystal"] == 3
    # "Chris places his first Ship on the O-Renj Star to throw the Trobils he previously
    # captured into the star. He does this by flipping his 2 Trobil Cards over and collecting
    # the amount of Credits shown at the bottom of the card."
    state, _ = do(state, "place:star", "flip:t04", "flip:t01")  # none left: the turn ends
    chris = state["seats"][CHRIS]
    assert chris["trobils"] == [] and chris["flipped"] == ["t04", "t01"]
    assert res(state, CHRIS) == {"credit": 2 + credits_of("t04") + credits_of("t01"),
                                 "crystal": 2, "ore": 2}
    # "Erin places her second Ship on Paradise to collect a new Trobil Card by paying the
    # appropriate Resources. She replaces the Trobil Card with a new one, revealing a City
    # Card! There are now only 2 spots for Trobil Cards to appear"
    state, facts = do(state, "place:paradise", "trobil:t02")
    assert state["seats"][ERIN]["trobils"] == ["t02"]
    assert res(state, ERIN) == {"crystal": 3, "trap": 1}
    assert state["display"] == ["t05", city, "t07"]
    assert sum(not is_city(c) for c in state["display"]) == 2 and not GAME.is_over(state)
    assert "(a City)" in public_text(facts)
    # Ships: Erin 1 in hand, on Tyson and Paradise, 1 on the Wormhole; Chris 1 in hand, on the
    # Star, 2 on the Wormhole.
    assert state["seats"][ERIN]["hand"] == 1 and state["seats"][ERIN]["wormhole"] == 1
    assert state["board"]["paradise"] == [ERIN] and state["board"]["star"] == [CHRIS]
    assert (chris["hand"], chris["wormhole"]) == (1, 2)
    assert ships(state, ERIN) == ships(state, CHRIS) == 4
    assert all_cards(state) == FULL
