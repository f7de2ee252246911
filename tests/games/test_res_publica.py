"""Scenario tests for Res Publica 2230 AD: each quotes the rulebook sentence it checks.

Rulebook: /work/shared/rulebooks/res-publica-2230ad.txt. States are built with `setup` and
then edited with the helpers below, which move cards between hands and decks so every card
stays in exactly one place.

Long (one test per rule sentence, in the rulebook's order) so that it reads alongside the
rulebook; the helpers at the top are shared by every scenario.

Rules versions: the scenarios play the newest rules (GAME, version 5: the rules as printed,
with the options of an "or" naming as many cards each, an answer once begun given, and draw
options counting what they draw, as version 4; tied seats are one list in the score sheet's
`ranking`) unless they say otherwise; tests/games/test_res_publica_v4.py has version 4's own
scenarios, tests/games/test_res_publica_v5.py version 5's. The last
section, "Version 1", keeps the tests of the version 1 behaviour that version 2 changes
(issue 12), so games still running under version 1 stay covered; each of the five changes
has its version 2 scenario beside the rule it quotes.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from marshmallow import ValidationError

from games.contract import Fact, Game, IllegalMove
from games.res_publica import GAME, VERSIONS
from games.res_publica.board import gain
from games.res_publica.cards import CARDS, DATA, deck_of
from games.rng import Rng

State = dict[str, Any]
V1, V2, V3, V4, V5 = VERSIONS


# --- helpers ---------------------------------------------------------------------------------


def rng(n: int = 0) -> Rng:
    return Rng(b"res-publica-tests", n)


def new_game(players: int = 3, seed: int = 0, game: Game = GAME) -> State:
    """A dealt table under `game`'s rules version (the state remembers it: any version's
    `play` then follows those rules, so the helpers below play through GAME)."""
    return game.setup(players, {}, Rng(b"seed-%d" % seed, 0))


def _take_from_deck(state: State, card: str) -> None:
    deck = state["decks"][deck_of(card)]
    if card not in deck:
        raise AssertionError(f"no {card} left in its deck")
    deck.remove(card)


def set_hand(state: State, seat: int, **cards: int) -> None:
    """Give `seat` exactly these cards: its old hand goes back under the decks."""
    hand = state["seats"][seat]["hand"]
    for card, n in hand.items():
        state["decks"][deck_of(card)][0:0] = [card] * n
    hand.clear()
    for card, n in cards.items():
        for _ in range(n):
            _take_from_deck(state, card)
        if n:
            hand[card] = n


def empty_hands(state: State) -> None:
    for seat in range(state["players"]):
        set_hand(state, seat)


def stack_deck(state: State, deck: str, top: list[str]) -> None:
    """Put these cards on top of the deck, top[0] drawn first."""
    for card in top:
        _take_from_deck(state, card)
    state["decks"][deck] += list(reversed(top))


def to_discard(state: State, **cards: int) -> None:
    for card, n in cards.items():
        for _ in range(n):
            _take_from_deck(state, card)
        pile = state["discards"][deck_of(card)]
        pile[card] = pile.get(card, 0) + n


def hand(state: State, seat: int) -> dict[str, int]:
    return dict(state["seats"][seat]["hand"])


def ids(state: State, seat: int) -> set[str]:
    return {m["id"] for m in GAME.legal_moves(state, seat)}


def do(state: State, seat: int, *move_ids: str) -> tuple[State, list[Fact]]:
    facts: list[Fact] = []
    for move_id in move_ids:
        state, more = GAME.play(state, seat, {"id": move_id}, rng())
        facts += more
    return state, facts


def all_cards(state: State) -> dict[str, int]:
    """Every card by type, wherever it is."""
    count: dict[str, int] = {}

    def put(card: str, n: int = 1) -> None:
        count[card] = count.get(card, 0) + n

    for deck in state["decks"].values():
        for card in deck:
            put(card)
    for pile in state["discards"].values():
        for card, n in pile.items():
            put(card, n)
    for player in state["seats"]:
        for card, n in player["hand"].items():
            put(card, n)
        for placed in player["stations"] + player["locations"]:
            if placed["trooper"]:
                put(placed["trooper"]["card"])
    return count


def public_text(facts: list[Fact]) -> str:
    return json.dumps([f for f in facts if f["to"] == "all"])


# --- the game object -----------------------------------------------------------------------


def test_game_metadata_and_registry() -> None:
    """Contract: id, title, 2-5 players, an options schema without options; rules versions
    "1" to "5" side by side, new tables get "5"."""
    from games.registry import get_game

    assert all(isinstance(game, Game) for game in VERSIONS)
    assert [game.rules_version for game in VERSIONS] == ["1", "2", "3", "4", "5"]
    assert GAME is V5
    assert get_game("res-publica-2230ad") is GAME
    assert get_game("res-publica-2230ad", "1") is V1
    assert (GAME.title, GAME.min_players, GAME.max_players) == ("Res Publica 2230 AD", 2, 5)
    assert "rules" not in new_game(game=V1) and new_game(game=V2)["rules"] == 2
    assert new_game(game=V3)["rules"] == 3 and new_game(game=V4)["rules"] == 4
    assert new_game(game=V5)["rules"] == 5
    assert GAME.options().load({}) == {}
    with pytest.raises(ValidationError):
        GAME.options().load({"variant": True})


def test_state_is_plain_json() -> None:
    """Contract: state is plain JSON data."""
    state = new_game(4)
    assert json.loads(json.dumps(state)) == state


# --- Game Preparation -----------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_setup(players: int) -> None:
    """"Deal four Race cards to each player as their starting hands." ...
    "Each player receives four face-down pieces of the Narkh Aduul Planet, the reference
    board and 3 Trade tokens." ... "The oldest player begins." """
    state = new_game(players)
    for seat in range(players):
        player = state["seats"][seat]
        assert sum(player["hand"].values()) == 4
        assert all(deck_of(card) == "race" for card in player["hand"])
        assert player["missions"] == {m: False for m in DATA["missions"]}
        assert GAME.view(state, seat)["players"][seat]["trade_tokens"] == 3
    assert len(state["decks"]["race"]) == 72 - 4 * players
    assert GAME.actors(state) == {0}


def test_decks_and_score_piles() -> None:
    """"Take all the Technology cards and add to them the 6 Trooper cards." ... "Take all the
    Race cards and add to them the 6 Pilot cards." ... "The first pile contains all ten City
    cards, in descending order - the 9 on top, then both 8s and so on, down to the 4 as the
    last card." "The second pile contains all ten Space Station cards (value 3)." "The third
    scoring pile contains both Resort cards (value 7)." """
    state = new_game(2)
    assert all_cards(state) == {c: spec["count"] for c, spec in CARDS.items()}
    assert len(state["decks"]["tech"]) == 72 and state["decks"]["tech"].count("trooper") == 6
    assert state["piles"] == {"city": [9, 8, 8, 7, 7, 6, 6, 5, 5, 4], "station": [3] * 10,
                              "resort": [7, 7]}
    assert state["locations"] == {"colony": 2, "university": 2}


# --- Trade ------------------------------------------------------------------------------------


def trade_table(game: Game = GAME) -> State:
    state = new_game(3, game=game)
    set_hand(state, 0, terrans=2, galaesh=1)
    set_hand(state, 1, skythris=1, damakros=2)
    set_hand(state, 2, skythris=2, teleport=1)
    return state


def test_request_answered_and_accepted() -> None:
    """"Example: "I request one Skythris." ... In clockwise order, each of your opponents who is
    able and willing to trade names the cards he demands in return for meeting your request.
    Example response: "For one Galaesh." ... As the requesting player, you decide which
    response to accept." """
    state = trade_table()
    state, _ = do(state, 0, "request", "add:skythris:1", "submit")
    assert state["phase"] == "answer"
    assert GAME.actors(state) == {1}  # in clockwise order: seat 1 first
    state, _ = do(state, 1, "add:galaesh:1", "submit")
    assert GAME.actors(state) == {2}
    state, _ = do(state, 2, "pass")
    assert ids(state, 0) == {"accept:1", "decline"}
    state, _ = do(state, 0, "accept:1")
    assert hand(state, 0) == {"terrans": 2, "skythris": 1}
    assert hand(state, 1) == {"damakros": 2, "galaesh": 1}
    assert state["phase"] == "effects"


def test_answers_in_clockwise_order_each_sees_the_earlier_ones() -> None:
    """"In clockwise order, each of your opponents interested in your offer names the cards he
    is willing to tender in exchange." — one opponent at a time, starting left of the active
    player; each sees the answers given before its own, and nobody sees another's draft."""
    state = new_game(4)
    set_hand(state, 0, terrans=1)
    for seat in (1, 2, 3):
        set_hand(state, seat, damakros=2, teleport=1)
    state, _ = do(state, 0, "offer", "add:terrans:1", "submit")
    assert GAME.actors(state) == {1} and ids(state, 2) == set() and ids(state, 3) == set()
    with pytest.raises(IllegalMove):
        do(state, 2, "pass")  # not yet: seat 1 answers first
    state, _ = do(state, 1, "add:damakros:2")
    assert "damakros" not in json.dumps(GAME.view(state, 2)["trade"])  # a draft is secret
    state, _ = do(state, 1, "submit")
    assert GAME.actors(state) == {2}
    seen = GAME.view(state, 2)["trade"]
    assert seen["answers"] == {"1": {"items": [{"card": "damakros", "n": 2}], "join": None}}
    assert seen["order"] == [1, 2, 3]
    assert "Waiting for Seat 2" in GAME.view(state, 3)["prompt"]
    state, _ = do(state, 2, "pass")
    assert GAME.actors(state) == {3}
    state, _ = do(state, 3, "add:teleport:1", "submit")
    assert state["phase"] == "choose" and ids(state, 0) == {"accept:1", "accept:3", "decline"}


def test_offer_with_or_is_secret() -> None:
    """"Watch out! When you make an offer using "or" ("I offer one Damarkos or one Terrans.")
    you leave your opponents in the dark as to what they will receive." ... "You are not
    allowed to negotiate which card your opponent will get." """
    state = trade_table()
    set_hand(state, 0, damakros=1, terrans=1)
    set_hand(state, 1, teleport=1)
    state, _ = do(state, 0, "offer", "add:damakros:1", "or", "add:terrans:1", "submit")
    state, _ = do(state, 1, "add:teleport:1", "submit")
    state, _ = do(state, 2, "pass")
    state, _ = do(state, 0, "accept:1")
    assert state["phase"] == "swap" and GAME.actors(state) == {0}
    assert ids(state, 0) == {"give:damakros", "give:terrans"}
    state, facts = do(state, 0, "give:terrans")
    assert hand(state, 1) == {"terrans": 1}
    assert hand(state, 0) == {"damakros": 1, "teleport": 1}
    secret = [f for f in facts if f["to"] != "all"]
    assert [f["to"] for f in secret] == [[0, 1]] and "Terrans" in secret[0]["text"]
    assert "1 Damakros or 1 Terrans" in public_text(facts)
    assert "gave 1 Terrans" not in public_text(facts)


def test_the_options_of_an_or_name_as_many_cards() -> None:
    """"Watch out! When you make an offer using "or" ... you leave your opponents in the dark
    as to what they will receive." Hand sizes are public, so under rules version 3 the second
    option of an "or" names as many cards as the first (as every example does: "three
    Teleport or three Warp Speed", "two Pilots or two Aturians"): the others cannot tell by
    counting which one changed hands. An "and" may still name any numbers."""
    state = trade_table()  # seat 0 holds 2 Terrans and 1 Galaesh
    offer, _ = do(state, 0, "offer", "add:terrans:2")
    assert "and" in ids(offer, 0) and "or" not in ids(offer, 0)  # no second card twice
    request, _ = do(state, 0, "request", "add:skythris:2", "or")
    named = {m for m in ids(request, 0) if m.startswith("add:")}
    assert named and all(m.endswith(":2") for m in named)
    both, _ = do(state, 0, "request", "add:skythris:2", "and")
    assert "add:damakros:1" in ids(both, 0)
    with pytest.raises(IllegalMove):
        do(request, 0, "add:damakros:1")


def test_which_option_of_an_or_changed_hands_shows_nobody_else() -> None:
    """The third seat's view, and a spectator's, after the swap are the same whichever
    option of the requested "or" seat 1 gave ("leave your opponents in the dark")."""
    views = []
    for chosen in ("give:teleport", "give:warp"):
        state = trade_table()
        set_hand(state, 0, pilot=1)
        set_hand(state, 1, teleport=1, warp=1)
        state, _ = do(state, 0, "request", "add:teleport:1", "or", "add:warp:1", "submit")
        state, _ = do(state, 1, "add:pilot:1", "submit")
        state, _ = do(state, 2, "pass")
        state, _ = do(state, 0, "accept:1")
        state, _ = do(state, 1, chosen)
        views.append((GAME.view(state, 2), GAME.view(state, None)))
    assert views[0] == views[1]


def test_v2_an_or_across_counts_showed_the_others_which_option_changed_hands() -> None:
    """Why version 3: under version 2, "1 Teleport or 2 Warp Speed" was allowed, and the
    hand sizes (public) told the third seat which option seat 1 gave."""
    seen = []
    for chosen in ("give:teleport", "give:warp"):
        state = trade_table(V2)
        set_hand(state, 0, pilot=1)
        set_hand(state, 1, teleport=1, warp=2)
        state, _ = do(state, 0, "request", "add:teleport:1", "or", "add:warp:2", "submit")
        state, _ = do(state, 1, "add:pilot:1", "submit")
        state, _ = do(state, 2, "pass")
        state, _ = do(state, 0, "accept:1")
        state, _ = do(state, 1, chosen)
        seen.append([p["hand_count"] for p in V2.view(state, 2)["players"]])
    assert seen[0] != seen[1]


def test_request_with_or_the_giver_picks() -> None:
    """"I request three Teleport or three Warp Speed." ... Example response: ... "For two
    Pilots or two Aturians." (Meeple: the holder of an "or" side picks at the swap.)"""
    state = trade_table()
    set_hand(state, 0, pilot=2, aturians=2)
    set_hand(state, 1, teleport=3, warp=3)
    set_hand(state, 2)
    state, _ = do(state, 0, "request", "add:teleport:3", "or", "add:warp:3", "submit")
    state, _ = do(state, 1, "add:pilot:2", "or", "add:aturians:2", "submit")
    state, _ = do(state, 2, "pass", )
    state, _ = do(state, 0, "accept:1")
    assert GAME.actors(state) == {0, 1}  # both must pick which option they give
    state, _ = do(state, 1, "give:warp")
    assert GAME.view(state, 0)["trade"].get("my_pick") is None
    state, _ = do(state, 0, "give:aturians")
    assert hand(state, 0) == {"pilot": 2, "warp": 3}
    assert hand(state, 1) == {"teleport": 3, "aturians": 2}


def test_requested_or_the_giver_picks_even_with_one_option() -> None:
    """"Watch out! When you make an offer using "or" ... you leave your opponents in the dark
    as to what they will receive." — so the course of the trade may not tell the others what
    the giver of an "or" holds: seat 1 holds only the Teleports, and still picks as a step of
    its own, as it would holding both."""
    state = trade_table()
    set_hand(state, 0, pilot=1)
    set_hand(state, 1, teleport=3)
    state, _ = do(state, 0, "request", "add:teleport:3", "or", "add:warp:3", "submit")
    state, _ = do(state, 1, "add:pilot:1", "submit")
    state, _ = do(state, 2, "pass")
    state, facts = do(state, 0, "accept:1")
    assert state["phase"] == "swap" and GAME.actors(state) == {1}
    assert ids(state, 1) == {"give:teleport"}
    assert "Waiting for Seat 1" in GAME.view(state, 2)["prompt"]
    assert [f["text"] for f in facts] == ["Seat 0 accepts the answer of Seat 1."]
    state, facts = do(state, 1, "give:teleport")
    assert hand(state, 0) == {"teleport": 3} and hand(state, 1) == {"pilot": 1}
    assert "3 Teleport or 3 Warp Speed" in public_text(facts)
    assert "gave 3 Teleport" not in public_text(facts)


def test_demanded_or_the_giver_picks_even_with_one_option() -> None:
    """"Example response: ... "For two Pilots or two Aturians."" — the requesting player gives
    the demanded "or"; holding only one option, it still picks as a step of its own."""
    state = trade_table()
    set_hand(state, 0, aturians=2, terrans=1)
    state, _ = do(state, 0, "request", "add:skythris:1", "submit")
    state, _ = do(state, 1, "add:pilot:2", "or", "add:aturians:2", "submit")
    state, _ = do(state, 2, "pass")
    state, _ = do(state, 0, "accept:1")
    assert state["phase"] == "swap" and GAME.actors(state) == {0}
    assert ids(state, 0) == {"give:aturians"}
    state, _ = do(state, 0, "give:aturians")
    assert hand(state, 0) == {"terrans": 1, "skythris": 1}
    assert hand(state, 1) == {"damakros": 2, "aturians": 2}
    assert state["phase"] == "effects"


def test_at_most_two_types() -> None:
    """"When requesting, offering or responding, you may never name more than two types,
    combining them with "and/or."" """
    state = trade_table()
    state, _ = do(state, 0, "offer", "add:terrans:1")
    assert ids(state, 0) == {"submit", "and", "or", "cancel"}
    state, _ = do(state, 0, "and", "add:galaesh:1")
    assert ids(state, 0) == {"submit", "cancel"}


def test_request_and_offer_are_never_combined() -> None:
    """"You may never combine the two trading options ("I request one Terrans and offer one
    Teleport.")." """
    state = trade_table()
    state, _ = do(state, 0, "request")
    assert not {"offer", "request"} & ids(state, 0)
    state, _ = do(state, 0, "add:skythris:1", "and")
    assert all(i.startswith("add:") or i == "cancel" for i in ids(state, 0))


def test_offer_only_cards_you_possess() -> None:
    """"Your word is your bond: A) you must swap the cards you named. B) You may only offer
    cards which you possess." """
    state = trade_table()
    state, _ = do(state, 0, "offer")
    assert ids(state, 0) == {"add:terrans:1", "add:terrans:2", "add:galaesh:1", "cancel"}


def test_answer_must_be_honourable() -> None:
    """"each of your opponents who is able and willing to trade names the cards he demands in
    return for meeting your request" — seat 1 holds no Teleport: it can only pass."""
    state = trade_table()
    state, _ = do(state, 0, "request", "add:teleport:1", "submit")
    assert ids(state, 1) == {"pass"}
    state, _ = do(state, 1, "pass")
    assert "pass" in ids(state, 2) and "add:galaesh:1" in ids(state, 2)


def test_tender_only_cards_held_and_accept_only_what_you_can_give() -> None:
    """"B) You may only offer cards which you possess." — a tender names held cards; and the
    requester can only accept a demand it can meet ("A) you must swap the cards you named.")."""
    state = trade_table()
    state, _ = do(state, 0, "offer", "add:terrans:1", "submit")
    assert {i for i in ids(state, 1) if i.startswith("add:")} == {
        "add:skythris:1", "add:damakros:1", "add:damakros:2"}
    state = trade_table()
    state, _ = do(state, 0, "request", "add:skythris:1", "submit")
    state, _ = do(state, 1, "add:warp:1", "submit")  # seat 0 has no Warp Speed
    state, _ = do(state, 2, "add:terrans:2", "submit")
    assert ids(state, 0) == {"accept:2", "decline"}


def test_decline_all_responses() -> None:
    """"Of course, you may choose to decline all responses when trading." """
    state = trade_table()
    before = [hand(state, s) for s in range(3)]
    state, _ = do(state, 0, "offer", "add:terrans:1", "submit")
    state, _ = do(state, 1, "add:damakros:1", "submit")
    state, _ = do(state, 2, "pass", )
    state, _ = do(state, 0, "decline")
    assert [hand(state, s) for s in range(3)] == before
    assert state["phase"] == "effects" and not {"offer", "request"} & ids(state, 0)


def test_only_one_attempt() -> None:
    """"You have only one attempt - if you request a specific card, but do not receive any
    response (as your opponents cannot or will not trade with you), you may not attempt a
    second trade." """
    state = trade_table()
    state, facts = do(state, 0, "request", "add:warp:1", "submit")
    state, _ = do(state, 1, "pass")
    state, facts = do(state, 2, "pass")
    assert state["phase"] == "effects"
    assert not {"offer", "request"} & ids(state, 0)
    assert "Nobody answered" in public_text(facts)


def test_cancel_before_saying_anything() -> None:
    """Meeple: composing can be cancelled before submit; nothing was named, so the one
    attempt ("You may only perform one trade per turn.") is not used."""
    state = trade_table()
    state, _ = do(state, 0, "offer", "add:terrans:1", "cancel")
    assert state["phase"] == "trade" and {"offer", "request"} <= ids(state, 0)


def test_one_trade_per_turn_and_uneven_numbers() -> None:
    """"You may only perform one trade per turn." ... "There is no obligation to trade the
    same number of cards. However, each partner in a trade must swap at least one card." """
    state = trade_table()
    state, _ = do(state, 0, "offer", "add:galaesh:1", "submit")
    state, _ = do(state, 1, "add:damakros:2", "and", "add:skythris:1", "submit")
    state, _ = do(state, 2, "pass")
    state, _ = do(state, 0, "accept:1")
    assert hand(state, 0) == {"terrans": 2, "damakros": 2, "skythris": 1}
    assert hand(state, 1) == {"galaesh": 1}
    assert not {"offer", "request"} & ids(state, 0)


def test_no_trade_with_an_empty_hand() -> None:
    """"However, each partner in a trade must swap at least one card." """
    state = trade_table()
    set_hand(state, 0)
    assert not {"offer", "request"} & ids(state, 0)


def test_three_trades_on_your_turn_complete_the_mission() -> None:
    """"Make 3 trades during the game and collect 3 Points. In order to remember when you trade
    with another player, place 1 of the Trade tokens on that mission. These trades must occur
    on your turn." """
    state = new_game(2)
    for turn in range(3):
        set_hand(state, 0, terrans=1)
        set_hand(state, 1, galaesh=1)
        state, _ = do(state, 0, "offer", "add:terrans:1", "submit")
        state, _ = do(state, 1, "add:galaesh:1", "submit")
        state, facts = do(state, 0, "accept:1")
        assert state["seats"][0]["trades"] == turn + 1
        state, _ = do(state, 0, "draw")
        set_hand(state, 1, galaesh=1)
        set_hand(state, 0, terrans=1)
        state, _ = do(state, 1, "offer", "add:galaesh:1", "submit")
        state, _ = do(state, 0, "add:terrans:1", "submit")
        state, _ = do(state, 1, "accept:0", "draw")
        assert state["seats"][0]["trades"] == turn + 1  # not on seat 0's turn
    assert state["seats"][0]["missions"]["trades"] and state["seats"][1]["missions"]["trades"]
    assert "completes the mission" in public_text(facts)
    assert GAME.score(state)["seats"][0]["breakdown"]["missions"] == 3


# --- Display ---------------------------------------------------------------------------------


def display_table(game: Game = GAME, **cards: int) -> State:
    state = new_game(2, game=game)
    set_hand(state, 0, **cards)
    return state


def test_station_for_five_identical_race_cards() -> None:
    """"For five identical Race cards (except Aturians), you receive one Space Station card from
    the appropriate pile. All of these cards score 3 points." """
    state = display_table(terrans=5, aturians=5)
    assert "station:terrans" in ids(state, 0)
    assert not any(i.startswith("station:aturians") for i in ids(state, 0))
    state, _ = do(state, 0, "station:terrans")
    assert len(state["seats"][0]["stations"]) == 1 and len(state["piles"]["station"]) == 9
    assert GAME.score(state)["seats"][0]["breakdown"]["stations"] == 3


def test_displayed_cards_go_to_their_discard_piles() -> None:
    """"When you display cards, you place them in their respective discard piles. You create
    one discard pile for the Race cards and one for the Technology cards." """
    state = display_table(terrans=5, warp=5)
    state, _ = do(state, 0, "station:terrans", "city:warp")
    assert state["discards"] == {"race": {"terrans": 5}, "tech": {"warp": 5}}


def test_pilots_are_wild_several_per_display() -> None:
    """"Pilots work as a wild card for any Race card (except the Aturians). You may use multiple
    Pilots in a single Display action. The Pilots stay in the discard pile after being used." """
    state = display_table(galaesh=3, pilot=2, aturians=2)
    assert {"station:galaesh:p2"} == {i for i in ids(state, 0) if i.startswith("station")}
    assert not any(i.startswith("resort") for i in ids(state, 0))  # not for Aturians
    state, _ = do(state, 0, "station:galaesh:p2")
    assert state["discards"]["race"] == {"galaesh": 3, "pilot": 2}
    assert len(state["seats"][0]["stations"]) == 1


def test_pilot_choice_of_how_many() -> None:
    """"You may use multiple Pilots in a single Display action." (Meeple: the player chooses
    how many, and at least one real card of the race must be shown.)"""
    state = display_table(skythris=5, pilot=5)
    stations = {i for i in ids(state, 0) if i.startswith("station")}
    assert stations == {"station:skythris", "station:skythris:p1", "station:skythris:p2",
                        "station:skythris:p3", "station:skythris:p4"}


def test_cities_come_from_the_top_of_the_pile() -> None:
    """"For five identical Technology cards (except Cloning Facilities), you receive the top
    card from the Cities pile. According to the sorting of the Cities pile, you will always
    receive the highest available card." """
    state = display_table(warp=5, teleport=5, cloning=5)
    assert not any(i.startswith("city:cloning") for i in ids(state, 0))
    state, _ = do(state, 0, "city:warp", "city:teleport")
    assert state["seats"][0]["cities"] == [9, 8]
    assert state["piles"]["city"] == [8, 7, 7, 6, 6, 5, 5, 4]


def test_resort_for_three_aturians() -> None:
    """"For three Aturian cards, you receive 1 Resort card and score 7 points." """
    state = display_table(aturians=3)
    state, _ = do(state, 0, "resort:aturians")
    assert state["seats"][0]["resorts"] == [7]
    assert GAME.score(state)["seats"][0]["breakdown"]["resorts"] == 7


def test_university_and_four_card_cities() -> None:
    """"For three Cloning Facility cards, you receive 1 University card. From now on you may
    display 4 Technology cards instead 5 in order to collect a City card." """
    state = display_table(cloning=3, mining=4)
    assert "city:mining" not in ids(state, 0)
    state, _ = do(state, 0, "university:cloning")
    assert state["seats"][0]["locations"][0]["card"] == "university"
    state, _ = do(state, 0, "city:mining")
    assert state["seats"][0]["cities"] == [9] and hand(state, 0) == {}


def test_new_colony_display_pilots_may_help() -> None:
    """"For three identical Race cards and three identical Technology cards, receive a New
    Colony." (Meeple: Pilots may stand in for the race part, "Pilots work as a wild card for
    any Race card (except the Aturians).")"""
    state = display_table(ornopeans=2, pilot=1, bionics=3)
    assert "colony:ornopeans:bionics:p1" in ids(state, 0)
    state, _ = do(state, 0, "colony:ornopeans:bionics:p1")
    assert state["seats"][0]["locations"][0]["card"] == "colony"
    assert state["locations"]["colony"] == 1


def test_five_different_technologies_mission() -> None:
    """"For five different Technology cards (except Cloning Facilities), fulfil a Mission" ...
    "Top right side: Display 5 different Technology cards (except Cloning Facility) to receive
    5 Points." """
    state = display_table(mining=1, bionics=1, warfare=1, teleport=1, cloning=1)
    assert not any(i.startswith("mission") for i in ids(state, 0))
    set_hand(state, 0, mining=1, bionics=1, warfare=1, teleport=1, warp=1)
    state, _ = do(state, 0, "mission:tech5")
    assert state["seats"][0]["missions"]["tech5"]
    assert GAME.score(state)["seats"][0]["breakdown"]["missions"] == 5
    set_hand(state, 0, mining=1, bionics=1, warfare=1, teleport=1, warp=1)
    assert "mission:tech5" not in ids(state, 0)  # the section is flipped once


def test_several_groups_in_one_turn() -> None:
    """"If you hold a group of identical cards in your hand, you may display them. You may
    display several groups in one turn." """
    state = display_table(terrans=10)
    state, _ = do(state, 0, "station:terrans", "station:terrans")
    assert len(state["seats"][0]["stations"]) == 2


def test_empty_pile_no_more_display() -> None:
    """"The third scoring pile contains both Resort cards (value 7)." — once both are taken,
    three Aturians gain nothing (Meeple: an empty pile means that display can no longer be
    made)."""
    state = display_table(aturians=6)
    state, _ = do(state, 0, "resort:aturians", "resort:aturians")
    state["discards"]["race"]["aturians"] -= 3  # three Aturians back in hand
    state["seats"][0]["hand"]["aturians"] = 3
    assert not any(i.startswith("resort") for i in ids(state, 0))


def test_trade_then_display_never_back() -> None:
    """"However, if you choose to do both, you must do them in the order shown above (first
    Trade, then Display)." """
    state = display_table(terrans=5, galaesh=1)
    state, _ = do(state, 0, "station:terrans")
    assert state["phase"] == "display"
    assert not {"offer", "request"} & ids(state, 0)


# --- End of a turn: drawing ------------------------------------------------------------------


def test_draw_one_race_card_without_stations() -> None:
    """"At the end of your turn, draw one Race card from the deck." """
    state = new_game(2)
    top = state["decks"]["race"][-1]
    assert [m for m in GAME.legal_moves(state, 0) if m["kind"] == "draw"][0]["id"] == "draw"
    state, facts = do(state, 0, "draw")
    assert hand(state, 0).get(top, 0) >= 1 and sum(hand(state, 0).values()) == 5
    assert GAME.actors(state) == {1}
    private = [f for f in facts if f["to"] != "all"]
    assert private and all(f["to"] == [0] for f in private)


def test_draw_technology_per_station() -> None:
    """"In addition, for each of your displayed Space Station, you receive one Technology card
    from the respective deck. You receive these cards irrespective of whether you displayed
    the Space Stations on this round or in previous rounds." """
    state = display_table(terrans=5)
    gain(state, 0, "station")
    state, _ = do(state, 0, "station:terrans")
    state, _ = do(state, 0, "draw")
    assert sum(hand(state, 0).values()) == 3
    assert sum(1 for c in hand(state, 0) if deck_of(c) == "tech") >= 1


def test_three_stations_choose() -> None:
    """"For example, if you have three Space Stations displayed in front of you, you must decide
    whether to take one Race and two Technology cards, or just take three Technology cards." """
    state = display_table()
    for _ in range(3):
        gain(state, 0, "station")
    draws = {m["id"]: (m["race"], m["tech"]) for m in GAME.legal_moves(state, 0)
             if m["kind"] == "draw"}
    assert draws == {"draw:1r2t": (1, 2), "draw:3t": (0, 3)}
    state, _ = do(state, 0, "draw:3t")
    assert sum(hand(state, 0).values()) == 3
    assert all(deck_of(c) == "tech" for c in hand(state, 0))


def test_race_deck_used_up() -> None:
    """"Once the deck is used up, no more Race cards may be picked up." """
    state = display_table()
    gain(state, 0, "station")
    state["decks"]["tech"] += state["decks"]["race"]  # park the race cards (count kept)
    state["decks"]["race"] = []
    draws = [m for m in GAME.legal_moves(state, 0) if m["kind"] == "draw"]
    assert [(m["race"], m["tech"]) for m in draws] == [(0, 1)]


def test_drawing_is_the_only_way_to_end_a_turn() -> None:
    """"You must always draw card/s at the end of your turn." """
    state = trade_table()
    for moves in (GAME.legal_moves(state, 0),):
        enders = [m for m in moves if m["kind"] == "draw"]
        assert len(enders) == 1 and enders[0]["race"] == 1
    state, _ = do(state, 0, "draw")
    assert state["active"] == 1


# --- Troopers, New Colony, University ------------------------------------------------------


def test_trooper_blocks_a_station() -> None:
    """"On your turn play a Trooper from your hand and select a Location or Space Station of
    another player." ... "If a player blocks one of your Space Stations, then during that turn
    you cannot draw 3 cards. You can draw only 1 Race card and 1 Technology card because you
    have 1 active Space Station." ... "They may discard the Trooper card to the discard pile at
    the end of their turn." """
    state = new_game(2)
    set_hand(state, 0, trooper=1)
    gain(state, 1, "station")
    gain(state, 1, "station")
    state, _ = do(state, 0, "trooper:1:station")
    assert state["seats"][1]["stations"][0]["trooper"] == {"card": "trooper", "by": 0}
    state, _ = do(state, 0, "draw")
    draws = [m for m in GAME.legal_moves(state, 1) if m["kind"] == "draw"]
    assert [(m["race"], m["tech"]) for m in draws] == [(1, 1)]
    state, _ = do(state, 1, "draw")
    assert all(s["trooper"] is None for s in state["seats"][1]["stations"])
    assert state["discards"]["tech"] == {"trooper": 1}
    assert all_cards(state) == {c: spec["count"] for c, spec in CARDS.items()}


def test_trooper_only_on_opponents_cards() -> None:
    """"select a Location or Space Station of another player" """
    state = new_game(3)
    set_hand(state, 0, trooper=2)
    gain(state, 0, "station")
    gain(state, 2, "university")
    troopers = {i for i in ids(state, 0) if i.startswith("trooper")}
    assert troopers == {"trooper:2:university"}


def test_blocked_university() -> None:
    """"On that player's turn they may not use the ability of the deactivated Location or Space
    Station." — a blocked University does not lower the City requirement."""
    state = new_game(2)
    set_hand(state, 0, trooper=1)
    set_hand(state, 1, mining=4)
    gain(state, 1, "university")
    state, _ = do(state, 0, "trooper:1:university", "draw")
    assert "city:mining" not in ids(state, 1)
    state, _ = do(state, 1, "draw")  # the Trooper leaves at the end of this turn
    state, _ = do(state, 0, "draw")
    assert "city:mining" in ids(state, 1)


def test_blocked_new_colony() -> None:
    """"This card is blocked for a round and your opponent must leave your trooper on this card
    to indicate that it is deactivated." """
    state = new_game(2)
    set_hand(state, 0, trooper=1)
    set_hand(state, 1, terrans=2)
    gain(state, 1, "colony")
    state, _ = do(state, 0, "trooper:1:colony", "draw")
    assert "use:colony" not in ids(state, 1)


def test_new_colony_use() -> None:
    """"You can use the New Colony once during each of your turns. Choose one of the cards in
    your hand and give it to a player of your choice. Then choose another card from your hand
    and discard it to the equivalent discard pile. Now draw 1 card of your choice from either
    discard pile. You cannot take any grey cards (Troopers or Pilots)." """
    state = new_game(3)
    set_hand(state, 0, terrans=1, galaesh=1, warp=1)
    to_discard(state, pilot=1, teleport=1)
    gain(state, 0, "colony")
    state, _ = do(state, 0, "use:colony")
    assert "give:terrans:2" in ids(state, 0) and "cancel" in ids(state, 0)
    state, facts = do(state, 0, "give:terrans:2")
    assert hand(state, 2).get("terrans", 0) >= 1
    assert [f["to"] for f in facts if f["to"] != "all"] == [[0, 2]]
    state, _ = do(state, 0, "discard:galaesh")
    assert ids(state, 0) == {"take:galaesh", "take:teleport"}  # no grey Pilot
    state, _ = do(state, 0, "take:teleport")
    assert hand(state, 0) == {"warp": 1, "teleport": 1}
    assert state["phase"] == "effects" and "use:colony" not in ids(state, 0)


def test_new_colony_skips_the_take_when_only_grey_cards() -> None:
    """"You cannot take any grey cards (Troopers or Pilots)." """
    state = new_game(2)
    set_hand(state, 0, terrans=1, pilot=1)
    gain(state, 0, "colony")
    state, _ = do(state, 0, "use:colony", "give:terrans:1", "discard:pilot")
    assert state["phase"] == "effects" and state["colony"] is None


# --- Planet missions -------------------------------------------------------------------------


def test_two_stations_and_two_cities_missions() -> None:
    """"Top left side: Build 2 Space Stations to receive 7 points." ... "Bottom right side:
    Build 2 Cities to receive 5 Points." """
    state = display_table(terrans=5, damakros=5, warp=5, teleport=5)
    state, _ = do(state, 0, "station:terrans", "station:damakros", "city:warp")
    missions = state["seats"][0]["missions"]
    assert missions["stations"] and not missions["cities"]
    state, _ = do(state, 0, "city:teleport")
    assert state["seats"][0]["missions"]["cities"]
    assert GAME.score(state)["seats"][0]["breakdown"]["missions"] == 12


# --- Game end --------------------------------------------------------------------------------


def test_last_technology_card_ends_the_game() -> None:
    """"The game ends when the last Technology card is drawn from the respective deck" ...
    "All players reveal their hands. If any player can display cards to build a Station or a
    City they may do so, starting with the finishing player and progressing clockwise." """
    state = new_game(3)
    gain(state, 1, "station")
    state["active"] = 1
    set_hand(state, 2, warp=5, terrans=5, aturians=3)
    state["decks"]["race"] += state["decks"]["tech"][1:]  # park all but one tech card
    state["decks"]["tech"] = state["decks"]["tech"][:1]
    state, _ = do(state, 1, "draw")
    assert state["phase"] == "reveal" and GAME.actors(state) == {1}
    assert "hand" in GAME.view(state, 0)["players"][2]  # hands are revealed
    state, _ = do(state, 1, "done")
    assert GAME.actors(state) == {2}
    assert ids(state, 2) == {"station:terrans", "city:warp", "done"}  # no Resort now
    state, _ = do(state, 2, "station:terrans", "city:warp", "done")
    state, _ = do(state, 0, "done")
    assert GAME.is_over(state) and GAME.actors(state) == set()
    assert GAME.legal_moves(state, 0) == []


def test_the_fourth_mission_ends_the_game_at_once() -> None:
    """"The game ends when the last Technology card is drawn from the respective deck or when a
    player completes all 4 missions of their Planet." — at once: nothing more of that turn is
    played (no draw); the final reveal starts with that player."""
    state = display_table(terrans=5, warp=5, teleport=5)
    player = state["seats"][0]
    player["missions"].update(stations=True, tech5=True, trades=True)
    player["trades"] = 3
    decks = {deck: len(cards) for deck, cards in state["decks"].items()}
    state, facts = do(state, 0, "city:warp", "city:teleport")
    assert state["phase"] == "reveal" and GAME.actors(state) == {0}
    assert "completes all four missions" not in public_text(facts)
    assert "A player has completed all four missions: the game ends." in public_text(facts)
    assert {deck: len(cards) for deck, cards in state["decks"].items()} == decks  # no draw
    assert ids(state, 0) == {"station:terrans", "done"}  # the reveal's displays only


def test_the_fourth_mission_by_a_trade_ends_the_game_at_once() -> None:
    """"Make 3 trades during the game and collect 3 Points." ... "The game ends ... when a
    player completes all 4 missions of their Planet." — the third trade ends the game at
    once: no effect, display or draw follows it."""
    state = display_table(terrans=5)
    set_hand(state, 1, galaesh=1)
    player = state["seats"][0]
    player["missions"].update(stations=True, tech5=True, cities=True)
    player["trades"] = 2
    state, _ = do(state, 0, "offer", "add:terrans:1", "submit")
    state, _ = do(state, 1, "add:galaesh:1", "submit")
    state, facts = do(state, 0, "accept:1")
    assert state["seats"][0]["missions"]["trades"] and state["trade"] is None
    assert state["phase"] == "reveal" and GAME.actors(state) == {0}
    assert public_text(facts).index("Make 3 trades") < public_text(facts).index("game ends")
    assert "station:terrans" not in ids(state, 0)  # four Terrans left: no Station now


def test_final_scoring() -> None:
    """"Total the values of your Score cards (Space Stations and Cities)." "Total the values of
    your Resort cards." "Add the points from each completed mission of your Planet." "Each pair
    of identical cards remaining in your hand scores 1 point. Also each Trooper or Pilot in your
    hand counts for 1 point." """
    state = new_game(2)
    set_hand(state, 0, terrans=5, warp=3, pilot=2, trooper=1)
    set_hand(state, 1, galaesh=2)
    gain(state, 0, "station")
    gain(state, 0, "city")
    gain(state, 0, "resort")
    gain(state, 0, "tech5")
    sheet = GAME.score(state)
    assert sheet["seats"][0]["breakdown"] == {"stations": 3, "cities": 9, "resorts": 7,
                                              "missions": 5, "pairs": 3, "grey": 3}
    assert sheet["seats"][0]["total"] == 30 and sheet["ranking"] == [0, 1]


def test_ties_share_the_rank() -> None:
    """"The player with the most points wins the game." (No tie-break is printed: ties share
    the rank.) Rules version 5 lists the tied seats as one list in `ranking`, versions 1 to 4
    one by one in seat order (tests/games/test_res_publica_v5.py)."""
    state = new_game(3)
    set_hand(state, 0, terrans=2)
    set_hand(state, 1, warp=2)
    set_hand(state, 2)
    sheet = GAME.score(state)
    assert [s["rank"] for s in sheet["seats"]] == [1, 1, 3]
    assert sheet["ranking"] == [[0, 1], 2]
    assert V4.score({**state, "rules": 4})["ranking"] == [0, 1, 2]  # the same table, v4


def park_race_deck(state: State, keep: int = 0) -> None:
    """Move all but `keep` Race-deck cards under the Technology deck (every card kept)."""
    race = state["decks"]["race"]
    state["decks"]["tech"][0:0] = race[: len(race) - keep]
    del race[: len(race) - keep]


def test_stall_ends_the_game_when_nobody_can_ever_draw() -> None:
    """Meeple: "Once the deck is used up, no more Race cards may be picked up." and "Space
    Stations allow you to draw Technology cards at the end of a turn" — once the Race deck is
    gone and nobody owns a Space Station, nobody can draw again (else the game never could
    end): after one whole round in that condition, the game ends."""
    state = new_game(2)
    park_race_deck(state, keep=1)
    state, _ = do(state, 0, "draw")  # the last Race card: nobody can draw any more
    assert state["phase"] == "trade" and not state["decks"]["race"]
    state, _ = do(state, 1, "draw")
    assert state["phase"] == "trade"
    state, facts = do(state, 0, "draw")  # each has had a whole turn in the stall
    assert state["phase"] == "reveal" and GAME.actors(state) == {0}
    assert "Nobody can draw a card any more" in public_text(facts)


def test_stall_a_blocked_station_still_counts_as_owned() -> None:
    """"This card is blocked for a round" — a Space Station under a Trooper is still owned and
    draws again once the Trooper is gone, so a round without draws does not end the game."""
    state = new_game(2)
    set_hand(state, 0, trooper=1)  # (its old hand goes back under the Race deck)
    park_race_deck(state)
    gain(state, 1, "station")
    state, _ = do(state, 0, "trooper:1:station", "draw")  # seat 0 draws nothing
    state, _ = do(state, 1, "draw")  # blocked: seat 1 draws nothing either
    assert state["phase"] == "trade" and state["active"] == 0
    held = sum(hand(state, 1).values())
    state, _ = do(state, 0, "draw")
    state, _ = do(state, 1, "draw")
    assert sum(hand(state, 1).values()) == held + 1  # the Station draws again


def test_troopers_block_nothing_in_the_final_reveal() -> None:
    """"On that player's turn they may not use the ability of the deactivated Location or Space
    Station." ... "If any player can display cards to build a Station or a City they may do
    so" — the reveal is nobody's turn: when the game ends every Trooper is discarded, and a
    University blocked during the last turn lowers the City requirement again."""
    state = new_game(2)
    set_hand(state, 0, trooper=1)
    set_hand(state, 1, mining=4)
    gain(state, 0, "station")
    gain(state, 1, "university")
    state["decks"]["race"] += state["decks"]["tech"][1:]  # park all but one tech card
    state["decks"]["tech"] = state["decks"]["tech"][:1]
    state, _ = do(state, 0, "trooper:1:university", "draw")  # the last Technology card
    assert state["phase"] == "reveal"
    assert state["seats"][1]["locations"][0]["trooper"] is None
    assert state["discards"]["tech"] == {"trooper": 1}
    state, _ = do(state, 0, "done")
    assert ids(state, 1) == {"city:mining", "done"}
    assert all_cards(state) == {c: spec["count"] for c, spec in CARDS.items()}


# --- Contract ----------------------------------------------------------------------------------


def test_illegal_moves_are_refused() -> None:
    """Contract: IllegalMove codes not_your_turn / illegal_move / bad_move."""
    state = new_game(3)
    with pytest.raises(IllegalMove) as wrong_seat:
        GAME.play(state, 1, {"id": "draw"}, rng())
    assert wrong_seat.value.code == "not_your_turn"
    with pytest.raises(IllegalMove) as made_up:
        GAME.play(state, 0, {"id": "station:pilot"}, rng())
    assert made_up.value.code == "illegal_move"
    with pytest.raises(IllegalMove) as malformed:
        GAME.play(state, 0, {"label": "no id"}, rng())
    assert malformed.value.code == "bad_move"


def test_play_does_not_mutate_and_view_hides_hands() -> None:
    """Contract: play copies; a view shows the own hand only, deck sizes not contents."""
    state = new_game(3)
    frozen = json.dumps(state)
    after, _ = do(state, 0, "request")
    assert json.dumps(state) == frozen and after is not state
    for seat in (0, 1, 2, None):
        players = GAME.view(state, seat)["players"]
        assert [("hand" in p) for p in players] == [s == seat for s in range(3)]
        assert all(p["hand_count"] == 4 for p in players)
    assert "race" in GAME.view(state, None)["decks"]
    assert GAME.view(state, None)["decks"]["race"] == len(state["decks"]["race"])


def test_prompts() -> None:
    """Contract: the view carries a prompt for the seat."""
    state = trade_table()
    assert "trade" in GAME.view(state, 0)["prompt"]
    assert "Waiting for Seat 0" in GAME.view(state, 1)["prompt"]
    state, _ = do(state, 0, "request", "add:skythris:1", "submit")
    assert "requests 1 Skythris" in GAME.view(state, 1)["prompt"]


def test_determinize_keeps_what_the_seat_knows() -> None:
    """Contract: determinize resamples hidden cards but keeps what the seat knows."""
    state = trade_table()
    state, _ = do(state, 0, "offer", "add:terrans:2", "submit")
    state, _ = do(state, 1, "add:damakros:2", "submit")
    other = GAME.determinize(state, 2, Rng(b"det", 1))
    assert hand(other, 2) == hand(state, 2)
    assert other["seats"][0]["hand"].get("terrans", 0) >= 2  # offered: known to be held
    assert other["seats"][1]["hand"].get("damakros", 0) >= 2  # tendered: known to be held
    assert [sum(p["hand"].values()) for p in other["seats"]] == [3, 3, 3]
    assert {d: len(c) for d, c in other["decks"].items()} == {
        d: len(c) for d, c in state["decks"].items()}
    assert all_cards(other) == all_cards(state)
    assert GAME.view(other, 2) == GAME.view(state, 2)


def _after_an_or_across_the_decks(chosen: str) -> State:
    """Seat 1 gives 1 Terrans (a Race card) or 1 Teleport (a Technology card) for a Pilot."""
    state = trade_table()
    set_hand(state, 0, pilot=1, skythris=1)
    set_hand(state, 1, terrans=1, teleport=1)
    state, _ = do(state, 0, "request", "add:terrans:1", "or", "add:teleport:1", "submit")
    state, _ = do(state, 1, "add:pilot:1", "submit")
    state, _ = do(state, 2, "pass")
    state, _ = do(state, 0, "accept:1")
    state, _ = do(state, 1, chosen)
    return state


def test_a_third_seats_worlds_do_not_tell_which_option_changed_hands() -> None:
    """"Watch out! When you make an offer using "or" ... you leave your opponents in the dark
    as to what they will receive." Seat 2 sees the same whichever card seat 1 gave, so the
    worlds a bot of seat 2 imagines may not depend on it either (issue 17: a bot never peeks):
    how many cards of each deck seats 0 and 1 hold is no longer known to seat 2, only their
    sum."""
    race, tech = (_after_an_or_across_the_decks(m) for m in ("give:terrans", "give:teleport"))
    assert GAME.view(race, 2) == GAME.view(tech, 2)
    for n in range(8):
        assert GAME.determinize(race, 2, Rng(b"det", n)) == \
            GAME.determinize(tech, 2, Rng(b"det", n))
    # The two traders still know each other's split: seat 0 knows what it got.
    assert GAME.determinize(race, 0, Rng(b"det", 0))["seats"][1]["hand"] != \
        GAME.determinize(tech, 0, Rng(b"det", 0))["seats"][1]["hand"]


def test_a_new_colony_gift_hides_both_splits_from_the_others() -> None:
    """New Colony: "give one hand card to a player of your choice": which card only the two
    see, so a third seat's worlds do not depend on it."""
    worlds = []
    for card in ("terrans", "teleport"):
        state = trade_table()
        set_hand(state, 0, terrans=1, teleport=1, galaesh=1)
        state["seats"][0]["locations"].append({"card": "colony", "trooper": None,
                                               "used": False})
        state, _ = do(state, 0, "use:colony", f"give:{card}:1")
        worlds.append([GAME.determinize(state, 2, Rng(b"det", n)) for n in range(4)])
    assert worlds[0] == worlds[1]


def test_a_third_seats_worlds_do_not_tell_which_option_a_mixed_hand_can_give() -> None:
    """After a card changed hands unseen between seats 0 and 1, seat 2 knows how many cards of
    each deck the two hold together, not each. When seat 1 then owes "1 Terrans or 1
    Teleport" (a Race card or a Technology card), which option seat 2 imagines it keeping may
    not depend on seat 1's true split (issue 17: a bot never peeks): here one twin's seat 1
    holds only the Race option, the other's only the Technology one."""
    worlds = []
    for mine, theirs in (("terrans", "teleport"), ("teleport", "terrans")):
        state = trade_table()
        set_hand(state, 0, pilot=1, **{theirs: 1})
        set_hand(state, 1, skythris=1, **{mine: 1})
        state["unseen_transfers"] = [[0, 1]]  # e.g. an earlier New Colony gift
        state, _ = do(state, 0, "request", "add:terrans:1", "or", "add:teleport:1", "submit")
        state, _ = do(state, 1, "add:pilot:1", "submit")
        state, _ = do(state, 2, "pass")
        state, _ = do(state, 0, "accept:1")
        worlds.append(state)
    assert GAME.view(worlds[0], 2) == GAME.view(worlds[1], 2)
    for n in range(8):
        assert GAME.determinize(worlds[0], 2, Rng(b"det", n)) == \
            GAME.determinize(worlds[1], 2, Rng(b"det", n))
    # Both options are imagined kept, in some worlds each.
    kept = {GAME.determinize(worlds[0], 2, Rng(b"det", n))["seats"][1]["hand"].get("terrans", 0)
            for n in range(16)}
    assert kept == {0, 1}


# --- Version 1: the rules as first hosted, kept for the games played under them ---------------
# Version 2 changed these five behaviours (issue 12); each test states the version 1 rule.


def test_v1_answers_are_collected_at_once() -> None:
    """Version 1: "In clockwise order, each of your opponents interested in your offer names the
    cards he is willing to tender in exchange." was read as: the opponents answer at the same
    time, each seeing the answers already given (clockwise is the listing order)."""
    state = trade_table(V1)
    state, _ = do(state, 0, "offer", "add:terrans:1", "submit")
    assert GAME.actors(state) == {1, 2}
    state, _ = do(state, 2, "add:teleport:1")
    seen_by_1 = GAME.view(state, 1)["trade"]
    assert seen_by_1["draft"] == {"items": [], "join": None}  # its own, not seat 2's
    assert "teleport" not in json.dumps(seen_by_1)
    state, _ = do(state, 1, "add:damakros:2", "submit")
    seen = GAME.view(state, 2)["trade"]
    assert seen["answers"] == {"1": {"items": [{"card": "damakros", "n": 2}], "join": None}}
    assert seen["order"] == [1, 2]


def test_v1_an_or_with_one_option_is_picked_automatically() -> None:
    """Version 1: the giver of an "or" who can honour only one option gives it without a swap
    step, so everyone sees the trade end at once (version 2 fixes this leak)."""
    def accepted(**held: int) -> State:
        state = trade_table(V1)
        set_hand(state, 0, pilot=1)
        set_hand(state, 1, **held)
        state, _ = do(state, 0, "request", "add:teleport:3", "or", "add:warp:3", "submit")
        state, _ = do(state, 1, "add:pilot:1", "submit")
        state, _ = do(state, 2, "pass", )
        return do(state, 0, "accept:1")[0]

    one = accepted(teleport=3)
    assert one["phase"] == "effects" and hand(one, 0) == {"teleport": 3}
    both = accepted(teleport=3, warp=3)
    assert both["phase"] == "swap" and GAME.actors(both) == {1}


def test_v1_all_four_missions_end_the_game_after_that_turn() -> None:
    """Version 1: "The game ends ... when a player completes all 4 missions of their Planet."
    was read as: at the end of that turn, after its draw."""
    state = display_table(V1, terrans=5, warp=5, teleport=5)
    player = state["seats"][0]
    player["missions"].update(stations=True, tech5=True, trades=True)
    player["trades"] = 3
    state, facts = do(state, 0, "city:warp", "city:teleport")
    assert state["ending"] and state["phase"] == "display"
    assert "completed all four missions: last turn" in public_text(facts)
    assert "station:terrans" in ids(state, 0)  # the turn goes on
    state, _ = do(state, 0, "draw")
    assert state["phase"] == "reveal" and GAME.actors(state) == {0}


def test_v1_troopers_keep_blocking_in_the_final_reveal() -> None:
    """Version 1 (README decision 7): Troopers still on cards when the game ends keep blocking
    during the final reveal — a blocked University needs five cards for a City."""
    state = new_game(2, game=V1)
    set_hand(state, 0, trooper=1)
    set_hand(state, 1, mining=4)
    gain(state, 0, "station")
    gain(state, 1, "university")
    state["decks"]["race"] += state["decks"]["tech"][1:]  # park all but one tech card
    state["decks"]["tech"] = state["decks"]["tech"][:1]
    state, _ = do(state, 0, "trooper:1:university", "draw", "done")
    assert state["phase"] == "reveal" and state["seats"][1]["locations"][0]["trooper"]
    assert ids(state, 1) == {"done"}


def test_v1_stall_counts_turns_without_a_draw() -> None:
    """Version 1: "Once the deck is used up, no more Race cards may be picked up." — if then a
    whole round passes without anyone drawing, the game ends, even when a Trooper-blocked
    Station would draw again."""
    state = new_game(2, game=V1)
    park_race_deck(state)
    state, _ = do(state, 0, "draw")
    assert state["phase"] == "trade"
    state, _ = do(state, 1, "draw")
    assert state["phase"] == "reveal"
    state = new_game(2, game=V1)
    set_hand(state, 0, trooper=1)  # (its old hand goes back under the Race deck)
    park_race_deck(state)
    gain(state, 1, "station")
    state, _ = do(state, 0, "trooper:1:station", "draw")
    state, _ = do(state, 1, "draw")
    assert state["phase"] == "reveal"
