"""Trajan rules version 2 (games/trajan/README.md "Rules versions"), each test quoting the
rulebook sentence it checks, with its version 1 counterpart: version 1 keeps its rules for
its games and golden records.

Rulebook: /work/shared/rulebooks/trajan.txt (line numbers below); decisions note:
/work/shared/games/trajan.md. The scenarios build on tests/games/test_trajan.py's helpers;
the rules code is one for both versions (the state says which), so only `setup` differs.
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema_rs
import pytest

from games.contract import Fact
from games.registry import get_game
from games.rng import Rng
from games.schemas import move_schema, view_schema
from games.text import as_text
from games.trajan import GAME, VERSIONS
from games.trajan.board import COMMODITIES, DATA, FORUM, PROVINCES
from games.trajan.scoring import bonus_value, breakdown
from tests.games.test_trajan import (
    aim,
    finish_turn,
    forum_tile,
    ids,
    play,
    set_tiles,
    tiles_in,
    trajan_tile,
)

State = dict[str, Any]
V1 = get_game("trajan", "1")
V2 = get_game("trajan", "2")
NAMES = ["alice", "bob", "carol", "dave"]


def started(version: str, players: int = 2, seed: int = 0) -> State:
    """Every seat takes its first listed setup choices under that rules version."""
    game = get_game("trajan", version)
    state = game.setup(players, {}, Rng(b"seed-%d" % seed, 0))
    while state["phase"] in ("start_cards", "start_trajan"):
        seat = state["active"]
        state, _ = game.play(state, seat, {"id": game.legal_moves(state, seat)[0]["id"]},
                             Rng(b"trajan-tests", 1))
    return state


def quarter_end(version: str, players: int = 2) -> State:
    """Seat 0 is about to end the 4th round of quarter 1."""
    state = started(version, players)
    state["round"], state["time"] = 4, state["lap"] - 1
    state["demands"] = ["bread", "bread", "games"]
    return state


def end_quarter(state: State) -> tuple[State, list[Fact]]:
    """Seat 0 ends the quarter; every seat asked about the demands takes the first way
    offered; the senate's winner takes the first bonus tile."""
    state = finish_turn(aim(state, 0, "construction"))
    facts: list[Fact] = []
    while state["phase"] in ("demands", "bonus"):
        seat = state["active"]
        state, more = play(state, seat, ids(state, seat)[0])
        facts += more
    return state, facts


def laid(facts: list[Fact]) -> dict[str, str]:
    return dict(next(f for f in facts if "province(s) without figures" in f["text"])
                ["data"]["tiles"])


def test_versions() -> None:
    """New tables get version 2; a version 1 state is what version 1 always dealt (no
    "rules" key, one tile a province), so its golden records re-enact hash for hash."""
    assert [g.rules_version for g in VERSIONS] == ["1", "2"] and GAME is V2
    old, new = (game.setup(3, {}, Rng(b"seed-0", 0)) for game in (V1, V2))
    assert "rules" not in old and "meeting" not in old
    assert all(set(spot) == {"tile", "legions"} for spot in old["provinces"].values())
    assert new["rules"] == 2 and new["meeting"] is None
    assert {p: [s["tile"]] for p, s in old["provinces"].items()} == \
        {p: s["tiles"] for p, s in new["provinces"].items()}
    same = {k: v for k, v in new.items() if k not in ("rules", "meeting", "provinces")}
    assert same == {k: v for k, v in old.items() if k != "provinces"}


# --- 1. a pile of tiles in a province -------------------------------------------------------


def test_a_province_without_figures_gets_a_new_tile_on_its_old_one() -> None:
    """"Place a new forum tile in each province that does not contain any figures." (l.78;
    note: "Provinces without figures get a new tile each quarter.") Version 2: the new tile
    goes on the one still there (a pile)."""
    state = quarter_end("2")
    [old] = tiles_in(state, "britannia")  # setup's tile, untaken; no leader, no legionnaire
    state, facts = end_quarter(state)
    assert "britannia" in laid(facts)
    assert tiles_in(state, "britannia") == [old, laid(facts)["britannia"]]
    # no province holds a figure: every one of the 10 gets a new tile
    assert set(laid(facts)) == set(PROVINCES)


def test_version_1_lays_a_tile_only_where_none_lies() -> None:
    """Version 1 (README decision 14, version 1): a province holds one tile at most."""
    state = quarter_end("1")
    old = state["provinces"]["britannia"]["tile"]
    set_tiles(state, "alpes", [])
    state, facts = end_quarter(state)
    assert "britannia" not in laid(facts) and set(laid(facts)) == {"alpes"}
    assert state["provinces"]["britannia"] == {"tile": old, "legions": []}


def test_the_pile_grows_each_quarter_while_no_figure_comes() -> None:
    """"Place a new forum tile in each province that does not contain any figures." each
    quarter (note), and none where a figure is (a legionnaire, a leader)."""
    state = quarter_end("2")
    state["provinces"]["raetia"]["legions"] = [1]
    state["seats"][1]["leader"] = "noricum"
    state, _ = end_quarter(state)
    state["round"], state["time"] = 4, state["lap"] - 1
    state["active"] = 0
    state, _ = end_quarter(state)
    assert state["quarter"] == 3
    assert len(tiles_in(state, "britannia")) == 3
    assert len(tiles_in(state, "raetia")) == 1 and len(tiles_in(state, "noricum")) == 1


def test_the_provinces_get_their_tiles_before_the_forum() -> None:
    """"Place a new forum tile in each province that does not contain any figures." (l.78)
    Version 2: the rulebook's step comes first (as at setup, l.10), then the forum is laid
    again (note: "the forum is cleared and laid again the same way") from what remains, so
    a short stack at 4 players still gives the provinces their tiles."""
    state = quarter_end("2", 4)
    for name in ("alpes", "raetia", "noricum"):
        set_tiles(state, name, [])
    state["forum_stack"] = state["forum_stack"][:5]
    state, facts = end_quarter(state)
    assert {"alpes", "raetia", "noricum"} <= set(laid(facts)) and len(laid(facts)) == 5
    assert all(t in DATA["extra"] for t in state["forum"])  # nothing left for the forum
    texts = [f["text"] for f in facts]
    assert texts.index(next(t for t in texts if "province(s)" in t)) < \
        texts.index("The forum is laid anew.")


def test_version_1_lays_the_forum_first() -> None:
    """Version 1 (README decision 15, version 1): the forum is laid before the provinces,
    from the same stack."""
    state = quarter_end("1", 4)
    for name in ("alpes", "raetia", "noricum"):
        set_tiles(state, name, [])
    state["forum_stack"] = state["forum_stack"][:5]
    state, facts = end_quarter(state)
    assert laid(facts) == {} and len(state["forum"]) == 3 + 5


def test_the_leader_takes_every_tile_of_the_pile() -> None:
    """"Move their leader to an adjacent province and take any tile that is currently
    there." (l.46) Version 2: every tile of the pile, each as one tile is taken, in the order
    they were laid."""
    state = started("2")
    first, second = forum_tile(state, "bread"), forum_tile(state, "votes_3")
    state["gone"] += tiles_in(state, "raetia")  # out of the way (the test's bookkeeping)
    set_tiles(state, "raetia", [first, second])
    state = aim(state, 0, "military")
    move = next(m for m in GAME.legal_moves(state, 0) if m["id"] == "military:move:raetia")
    assert move["label"] == "Military: move your leader to Raetia, take its 2 tiles " \
        "(bread, votes 3)"
    state, facts = play(state, 0, "military:move:raetia")
    assert state["seats"][0]["tiles"] == [first, second] and tiles_in(state, "raetia") == []
    assert [f["data"].get("tile") for f in facts if "tile there" in f["text"]] == \
        [first, second]


def test_version_1_the_leader_takes_the_one_tile() -> None:
    """Version 1: a province holds one tile; the move's label and facts as they were."""
    state = aim(started("1"), 0, "military")
    tile = state["provinces"]["raetia"]["tile"]
    kind = FORUM[tile]["kind"].replace("_", " ")
    move = next(m for m in V1.legal_moves(state, 0) if m["id"] == "military:move:raetia")
    assert move["label"] == f"Military: move your leader to Raetia, take its {kind} tile"
    state, _ = play(state, 0, "military:move:raetia")
    assert state["provinces"]["raetia"] == {"tile": None, "legions": []}


# --- 3. the player chooses the tiles that meet the demands ----------------------------------


def _bonus_bread(state: State, seat: int) -> None:
    """`seat` holds the bread bonus tile, gold side (and nobody else can get it)."""
    for where in (state["bag"], state["senate_bonus"]):
        if "B-bread" in where:
            where.remove("B-bread")
    for other in state["seats"]:
        other["bonus"] = [b for b in other["bonus"] if b["tile"] != "B-bread"]
    state["seats"][seat]["bonus"] = [{"tile": "B-bread", "side": "gold"}]


def _last_quarter_with_a_choice(version: str) -> State:
    state = quarter_end(version)
    state["quarter"] = 4  # the last quarter: what is left now scores at the end
    state["demands"] = ["bread", "games", "religion"]
    _bonus_bread(state, 0)
    state["seats"][0]["tiles"] = [forum_tile(state, k)
                                  for k in ("bread", "games", "religion", "wild_demand")]
    return finish_turn(aim(state, 0, "construction"))


def test_the_player_chooses_to_spend_the_wildcard_and_keep_the_tile() -> None:
    """"Each player must spend a matching forum tile for each demand." (l.68) A demand
    wildcard meets a demand too (note); which tiles to hand in is the player's choice, so a
    player may keep the bread tile its gold bread bonus tile needs ("9 gold ... if you own at
    least one forum tile with that icon", note). Version 2."""
    state = _last_quarter_with_a_choice("2")
    assert state["phase"] == "demands" and state["active"] == 0
    assert ids(state, 0) == ["demand:bread:tile", "demand:bread:wild"]
    wild = next(t for t in state["seats"][0]["tiles"] if FORUM[t]["kind"] == "wild_demand")
    state, facts = play(state, 0, "demand:bread:wild")
    assert facts[0]["data"] == {"seat": 0, "demand": "bread", "tile": wild, "used": "wild"}
    summary = next(f for f in facts if f["text"].startswith("Player 1 meets 3"))
    assert summary["data"]["unmet"] == [] and wild in summary["data"]["spent"]
    assert state["phase"] == "bonus"  # games and religion had one way left: met on their own
    state, _ = play(state, state["active"], f"bonus:{state['senate_bonus'][0]}")
    assert state["phase"] == "over"
    assert breakdown(state, 0)["track"] == 0  # every demand was met
    kept = state["seats"][0]["tiles"]
    assert [FORUM[t]["kind"] for t in kept] == ["bread"]
    assert bonus_value(state, 0, "B-bread", "gold") == 9


def test_the_player_may_spend_the_matching_tiles_and_keep_the_wildcard() -> None:
    """The other way (l.68): a bread tile, then a games tile, then a religion tile, each a
    choice while the wildcard could meet it; the wildcard stays on the mat."""
    state = _last_quarter_with_a_choice("2")
    turn = GAME.turn(state, 0)
    for demand in ("bread", "games", "religion"):
        assert state["phase"] == "demands" and GAME.turn(state, 0) == turn
        assert ids(state, 0) == [f"demand:{demand}:tile", f"demand:{demand}:wild"]
        state, _ = play(state, 0, f"demand:{demand}:tile")
    assert [FORUM[t]["kind"] for t in state["seats"][0]["tiles"]] == ["wild_demand"]
    assert state["phase"] == "bonus" and state["seats"][0]["points"] == 0


def test_version_1_meets_the_demands_on_its_own() -> None:
    """Version 1 (README decision 13, version 1): matching tiles first, then wildcards, with
    no question asked: the bread tile is spent and the bread bonus tile is worth nothing."""
    state = _last_quarter_with_a_choice("1")
    assert state["phase"] == "bonus"
    state, _ = play(state, state["active"], f"bonus:{state['senate_bonus'][0]}")
    assert [FORUM[t]["kind"] for t in state["seats"][0]["tiles"]] == ["wild_demand"]
    assert bonus_value(state, 0, "B-bread", "gold") == 0


@pytest.mark.parametrize(("tiles", "demands", "left", "points"), [
    (["bread", "games", "wild_demand"], ["bread", "games", "religion"], [], 0),  # one way
    (["bread", "wild_demand"], ["games", "religion"], ["bread"], -4),  # no tile for either
    (["bread", "bread"], ["bread", "games"], ["bread"], -4),  # no wildcard
    ([], ["bread", "games", "religion"], [], -15),  # no way
    (["bread", "wild_demand"], ["bread", "games", "religion"], [], -4),  # not all: one way
])
def test_a_player_with_one_way_or_none_is_not_asked(
        tiles: list[str], demands: list[str], left: list[str], points: int) -> None:
    """"Each player must spend a matching forum tile for each demand." "Players lose points
    if they cannot meet all of the demands" (l.68, l.70): a player whose ways all leave the
    same mat is not asked; it is done on its own as in version 1."""
    state = quarter_end("2")
    state["demands"] = list(demands)
    state["seats"][0]["tiles"] = [forum_tile(state, k) for k in tiles]
    state = finish_turn(aim(state, 0, "construction"))
    assert state["phase"] == "bonus"
    assert sorted(FORUM[t]["kind"] for t in state["seats"][0]["tiles"]) == left
    assert state["seats"][0]["points"] == points


def test_a_trajan_demand_tile_is_used_first_and_kept() -> None:
    """"A player may meet a demand by a Trajan tile showing the matching demand, but each
    Trajan tile once per quarter. Any tokens used this way are kept." (l.69) Version 2 uses
    it first (never worse): the bread demand is met by it, and the wildcard must go to games,
    so nothing is left to choose."""
    state = quarter_end("2")
    state["demands"] = ["bread", "games"]
    bread = trajan_tile(state, "demand", demand="bread")
    state["seats"][0]["kept"] = [bread]
    state["seats"][0]["tiles"] = [forum_tile(state, "bread"), forum_tile(state, "wild_demand")]
    state = finish_turn(aim(state, 0, "construction"))
    assert state["phase"] == "bonus" and state["seats"][0]["kept"] == [bread]
    assert [FORUM[t]["kind"] for t in state["seats"][0]["tiles"]] == ["bread"]


def test_the_seats_choose_in_seat_order_each_a_turn_of_its_own() -> None:
    """The quarter's end in seat order (README decision 13, version 2): each seat with a
    choice is asked in turn, a new turn for each (README decision 24), the next seat only
    after the last one's choices; then the senate vote."""
    state = quarter_end("2", 3)
    state["demands"] = ["bread"]
    for seat in (0, 2):
        state["seats"][seat]["tiles"] = [forum_tile(state, "bread"),
                                         forum_tile(state, "wild_demand")]
    state = finish_turn(aim(state, 0, "construction"))
    assert state["phase"] == "demands" and state["active"] == 0
    assert GAME.actors(state) == {0} and GAME.legal_moves(state, 2) == []
    turn = GAME.turn(state, 0)
    state, facts = play(state, 0, "demand:bread:tile")
    assert state["phase"] == "demands" and state["active"] == 2
    assert GAME.turn(state, 2) == turn + 1
    # seat 1 (no tiles) met nothing on its own, between the two
    assert any(f["data"].get("seat") == 1 and f["data"].get("unmet") == ["bread"]
               for f in facts)
    state, _ = play(state, 2, "demand:bread:wild")
    assert state["phase"] == "bonus" and state["meeting"] is None


def test_the_demand_step_shows_nothing_hidden() -> None:
    """The mat is public: whether a seat is asked, and what it is offered, follows from its
    forum tiles and the demands alone; another seat's hand changes nothing any other seat or
    a spectator sees. The view fits the schema and names the step."""
    state = _last_quarter_with_a_choice("2")
    other = json.loads(json.dumps(state))  # seat 0 holds another card of the same count
    hand = other["seats"][0]["hand"]
    held = next(c for c in COMMODITIES if hand[c] > other["seats"][0]["known"][c])
    instead = next(c for c in other["deck"] if c != held)
    other["deck"].remove(instead)
    other["deck"].append(held)
    hand[held], hand[instead] = hand[held] - 1, hand[instead] + 1
    for seat in (1, None):
        assert GAME.view(state, seat) == GAME.view(other, seat)
    view = GAME.view(state, 1)
    assert view["demand_choice"] == {"seat": 0, "open": ["bread", "games", "religion"],
                                     "met": [], "spent": []}
    validator = jsonschema_rs.Draft202012Validator(view_schema("trajan"))
    for seat in (0, 1, None):
        assert validator.is_valid(GAME.view(state, seat))
    moves = jsonschema_rs.Draft202012Validator(move_schema("trajan"))
    assert all(moves.is_valid(m) for m in GAME.legal_moves(state, 0))
    text = as_text(GAME.describe(view, 1, NAMES[:2]))
    assert "alice chooses how to meet the people's demands" in text
    assert "Demands still to meet: bread, games, religion" in text
    own = as_text(GAME.describe(GAME.view(state, 0), 0, NAMES[:2]))
    assert "Choose the tile that meets the people's demand" in own
    for seat in (0, 1):  # a bot's worlds keep the step and the piles (public)
        world = GAME.determinize(state, seat, Rng(b"world", seat))
        assert GAME.view(world, seat) == GAME.view(state, seat)
        assert world["meeting"] == state["meeting"]
        assert world["provinces"] == state["provinces"]


def test_version_1_views_keep_their_shape() -> None:
    """A version 1 view is what it was: one `tile` a province, no `demand_choice`."""
    view = V1.view(started("1"), 0)
    assert "demand_choice" not in view
    assert all(set(p) >= {"tile"} and "tiles" not in p for p in view["military"]["provinces"])
    view = V2.view(started("2"), 0)
    assert view["demand_choice"] is None
    assert all("tiles" in p and "tile" not in p for p in view["military"]["provinces"])


def test_a_pile_in_words() -> None:
    """describe names a province's pile as the move's label does."""
    state = started("2")
    first, second = forum_tile(state, "bread"), forum_tile(state, "games")
    state["gone"] += tiles_in(state, "raetia")
    set_tiles(state, "raetia", [first, second])
    text = as_text(GAME.describe(GAME.view(state, None), None, NAMES[:2]))
    assert "Raetia (3 points): 2 tiles: bread, games" in text
