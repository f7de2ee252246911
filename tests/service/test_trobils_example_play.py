"""The rulebook's "Example Play" of Asking for Trobils (Erin and Chris), through the public API.

Rulebook: /work/shared/rulebooks/asking-for-trobils.txt, "Example Play". The example agrees
with the rules; it is a mid-game example, not a game from setup (games/asking_for_trobils/
README.md, "Example Play"): the players already hold cards and resources from earlier turns -
Erin the Ore that with Nye's 2 makes the Wormhole's 3, Chris what his Trobil costs and a Trobil
captured earlier ("the Trobils he previously captured", so he flips "his 2 Trobil Cards"), and
the game is far enough on for a City to come up. So this test deals a real game and first
plays an ordinary stretch of it (the *prelude*) with a plain greedy policy: gather what the
cheapest Trobil on display needs, capture it, never visit Smashed Rock, the Station or the
Wormhole, never bump. The example starts at the first round in which the position it describes
holds: every ship at home and Erin to move; eight Trobils captured, so Chris's capture reveals
a Trobil and Erin's the first City; Chris holds one face-up Trobil; a Racer on top of the
RiffRaff deck; two Ore Connections to buy; and enough resources for the example's payments.
The seed is the first of a fixed series for which the rules module alone finds such a round
(exactly the computation the server will make); the app is given that seed, and then every
move, prelude and example, goes through HTTP.

Rules version: the newest (GAME; a new table gets it). The example bumps only on Tyson Comet
and the prelude never bumps, so version 2's bumps on Paradise and the Star while a space is
free change neither the deal found nor a move played.

Every quantity the example states is checked as a change between two answers of the API.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask

from games.asking_for_trobils import GAME
from games.asking_for_trobils.cards import LOCATIONS, RIFFRAFF, cost, credits_of, is_city
from games.contract import State
from games.rng import DRAWS_BY_MOVE, Rng, move_stream, seats_key, setup_stream
from service import create_app
from tests.service.conftest import Caller

TROBILS = "asking-for-trobils"
ERIN, CHRIS = 0, 1
# Each seat's own seed (docs/records.md, "Nobody chooses the deal"): the deal is keyed by the
# server's seed and these, so the seats send them and the search below uses the same key.
SEAT_SEEDS = ("erin", "chris")
STARTED_AT = 4  # GameCreated, Erin's SeatTaken, Chris's SeatTaken, GameStarted: setup at v4
AVOIDED = {"smashed-rock", "station", "wormhole"}
SOURCE = {"space_carrot": "pomi", "space_slug": "moon", "trap": "merchant", "ore": "nye",
          "crystal": "tyson"}
CAPTURES_BEFORE = 8  # then Chris's capture reveals the 9th card on top (a Trobil), Erin's a City
SEEDS_TRIED = 3000
PRELUDE_TURNS = 600


# --- the deal: a seed and a prelude, found with the rules module alone --------------------------


class Sim:
    """A game played the way the server plays it (a new table's `"draws": "moves"`): the
    setup from random stream 0, each move from its number among the moves."""

    def __init__(self, seed: bytes) -> None:
        self.seed = seed
        self.version = STARTED_AT
        self.state: State = GAME.setup(2, {"short_game": False},
                                       Rng(seed, setup_stream(DRAWS_BY_MOVE, STARTED_AT)))
        self.played: list[tuple[int, str]] = []

    def copy(self) -> Sim:
        twin = Sim.__new__(Sim)
        twin.seed, twin.version, twin.state = self.seed, self.version, self.state
        twin.played = list(self.played)
        return twin

    @property
    def seat(self) -> int:
        return int(self.state["active"])

    def legal(self) -> list[str]:
        return [m["id"] for m in GAME.legal_moves(self.state, self.seat)]

    def play(self, move_id: str) -> None:
        assert move_id in self.legal(), (move_id, self.state["phase"], self.legal())
        self.version += 1
        seat = self.seat
        stream = move_stream(DRAWS_BY_MOVE, self.version, len(self.played))
        self.state, _ = GAME.play(self.state, seat, {"id": move_id}, Rng(self.seed, stream))
        self.played.append((seat, move_id))


def captured(state: State) -> int:
    return sum(len(p["trobils"]) + len(p["flipped"]) for p in state["seats"])


def missing(res: dict[str, int], card: str) -> dict[str, int]:
    return {r: n - res[r] for r, n in cost(card).items() if res[r] < n}


def cheapest_need(state: State, seat: int) -> dict[str, int]:
    res = state["seats"][seat]["res"]
    needs = [missing(res, card) for card in state["display"] if not is_city(card)]
    return min(needs, key=lambda need: sum(need.values()), default={})


def gather_spot(state: State, seat: int) -> str:
    """Where the resource most missing for the cheapest Trobil on display comes from."""
    need, res = cheapest_need(state, seat), state["seats"][seat]["res"]
    if need.get("megatrap"):  # the MegaFactory turns 2 Ore and 1 Trap into one
        if res["ore"] < 2:
            return "nye"
        return "megafactory" if res["trap"] >= 1 else "merchant"
    for resource in sorted(need, key=lambda r: -need[r]):
        return SOURCE[resource]
    return "pomi"


def prelude_move(state: State, seat: int, legal: list[str]) -> str:
    """The greedy policy; it never spends Credits (Erin needs 5 for the example)."""
    me, phase = state["seats"][seat], state["phase"]
    if phase == "turn":
        if legal == ["take-back"]:
            return "take-back"
        can_capture = captured(state) < CAPTURES_BEFORE and not any(cheapest_need(state, seat)
                                                                      .values())
        wanted = ["paradise"] if can_capture else []
        if seat == CHRIS and len(me["trobils"]) >= 2:
            wanted.append("star")
        if seat == ERIN and me["res"]["ore"] < 1:
            wanted.append("nye")
        wanted += [gather_spot(state, seat), "pomi", "nye", "tyson", "moon", "merchant"]
        return next(f"place:{loc}" for loc in wanted if f"place:{loc}" in legal)
    if phase == "capture":
        affordable = [m for m in legal if m.startswith("trobil:")]
        return affordable[0] if affordable and captured(state) < CAPTURES_BEFORE else "pass"
    if phase == "throw":  # Chris keeps one face up: the example has him flip two
        flips = [m for m in legal if m.startswith("flip:")]
        return flips[0] if len(me["trobils"]) > 1 else "done"
    if phase == "choose":  # the option that gains most without paying Credits
        loc = state["visit"]["loc"]
        options = [(sum(o["gain"].values()), f"{loc}:{n}")
                   for n, o in enumerate(LOCATIONS[loc]["options"], 1)
                   if f"{loc}:{n}" in legal and not o["pay"].get("credit")]
        return max(options)[1] if options else "pass"
    raise AssertionError(f"the prelude never enters phase {phase}")


def at_home(state: State) -> bool:
    return all(not ships for ships in state["board"].values())


def promising(state: State) -> bool:
    """What the prelude cannot change (it never draws RiffRaff or buys Connections): Erin
    first, a Racer on top, two Ore Connections to buy, and the first City right under the
    ninth Trobil still to come."""
    deck, offer = state["deck"], state["connections"]["offer"]
    after_first_ore = [*offer, state["connections"]["deck"][-1]]  # its replacement comes in
    if "ore" in after_first_ore:
        after_first_ore.remove("ore")
    return (state["active"] == ERIN
            and RIFFRAFF[state["riffraff"]["deck"][-1]]["effect"] == "extra_turn"
            and "ore" in offer and "ore" in after_first_ore
            and not any(is_city(card) for card in deck[-CAPTURES_BEFORE - 1:])
            and is_city(deck[-CAPTURES_BEFORE - 2]))


def example_can_start(state: State) -> bool:
    erin, chris = state["seats"][ERIN], state["seats"][CHRIS]
    return (state["phase"] == "turn" and state["active"] == ERIN and at_home(state)
            and captured(state) == CAPTURES_BEFORE
            and erin["res"]["ore"] >= 1 and erin["res"]["credit"] >= 5 and erin["wormhole"] >= 1
            and chris["res"]["credit"] >= 3 and len(chris["trobils"]) == 1)


def affordable(sim: Sim) -> str:
    return next(m for m in sim.legal() if m.startswith("trobil:"))


# Each sentence of the example: who acts, and its moves (a function picks a Trobil the player
# can pay for: the example does not say which).
Step = tuple[int, list[str | Callable[[Sim], str]]]
EXAMPLE: list[Step] = [
    (ERIN, ["place:nye"]),
    (CHRIS, ["place:smashed-rock"]),
    (CHRIS, ["place:station", "buy:ore:tyson", "buy:ore:tyson", "done"]),
    (ERIN, ["place:wormhole", "wormhole:buy"]),
    (CHRIS, ["place:paradise", affordable]),
    (ERIN, ["place:merchant", "merchant:3"]),
    (CHRIS, ["take-back"]),
    (ERIN, ["take-back"]),
    (CHRIS, ["place:tyson"]),
    (ERIN, ["place:tyson:bump:1"]),
    (CHRIS, ["place:star", "flip:*", "flip:*"]),
    (ERIN, ["place:paradise", affordable]),
]


def example_moves(sim: Sim) -> list[tuple[int, list[str]]] | None:
    """The example's moves from here, or None if the rules refuse one of them."""
    steps = []
    for seat, moves in EXAMPLE:
        ids = []
        for move in moves:
            if sim.seat != seat:
                return None
            legal = sim.legal()
            if callable(move):
                move = next((m for m in legal if m.startswith("trobil:")), "")
            elif move == "flip:*":
                move = next((m for m in legal if m.startswith("flip:")), "")
            if move not in legal:
                return None
            sim.play(move)
            ids.append(move)
        steps.append((seat, ids))
    return steps


def find_deal() -> tuple[bytes, list[tuple[int, str]], list[tuple[int, list[str]]]]:
    for n in range(SEEDS_TRIED):
        seed = hashlib.sha256(b"trobils example play %d" % n).digest()
        sim = Sim(seats_key(seed, SEAT_SEEDS))
        if not promising(sim.state):
            continue
        for _ in range(PRELUDE_TURNS):
            if example_can_start(sim.state):
                steps = example_moves(sim.copy())
                if steps is not None:
                    return seed, list(sim.played), steps
            if captured(sim.state) > CAPTURES_BEFORE or GAME.is_over(sim.state):
                break
            sim.play(prelude_move(sim.state, sim.seat, sim.legal()))
    raise AssertionError(f"none of {SEEDS_TRIED} deals reaches the example: the rules changed?")


# --- the API side ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def deal() -> tuple[bytes, list[tuple[int, str]], list[tuple[int, list[str]]]]:
    return find_deal()


@pytest.fixture()
def seeded_app(redis_url: str, deal: Any) -> Flask:
    seed = deal[0]
    return create_app({"REDIS_URL": redis_url, "DISPATCH": False,
                       "RATELIMIT_PER_CALLER": "100000 per minute",
         "RATELIMIT_REGISTRATION": "100000 per minute", "NEW_SEED": lambda: seed})


class Table:
    def __init__(self, app: Flask) -> None:
        client = app.test_client()
        self.players = [Caller(client, "Erin"), Caller(client, "Chris")]
        made = self.players[ERIN].post("/v1/games", {"type": TROBILS, "seats": 2,
                                                      "seed": SEAT_SEEDS[ERIN]})
        assert made.status_code == 201, made.json
        self.id = made.json["id"]
        joined = self.players[CHRIS].post(f"/v1/games/{self.id}/join",
                                          {"seed": SEAT_SEEDS[CHRIS]})
        assert joined.json["status"] == "active"

    def play(self, seat: int, moves: list[str]) -> dict[str, Any]:
        """Several moves of one seat, as few requests as the API allows: a move that reveals
        something (a draw) must end its request, so the rest goes in the next one. The answer
        of the last request, with the events of them all."""
        caller = self.players[seat]
        events: list[Any] = []
        while moves:
            version = caller.get(f"/v1/games/{self.id}").json["version"]
            answer = caller.post(f"/v1/games/{self.id}/moves",
                                 {"expected_version": version, "seat": seat,
                                  "moves": [{"id": m} for m in moves]})
            if answer.status_code == 422 and answer.json["code"] == "reveals_hidden_information":
                send, moves = moves[:answer.json["move_index"]], moves[answer.json["move_index"]:]
                answer = caller.post(f"/v1/games/{self.id}/moves",
                                     {"expected_version": version, "seat": seat,
                                      "moves": [{"id": m} for m in send]})
            else:
                moves = []
            assert answer.status_code == 201, answer.json
            events += answer.json["events"]
        return {**answer.json, "events": events}

    def view(self, seat: int = ERIN) -> dict[str, Any]:
        return dict(self.players[seat].get(f"/v1/games/{self.id}").json["view"])

    def me(self, seat: int, as_seat: int | None = None) -> dict[str, Any]:
        view = self.view(seat if as_seat is None else as_seat)
        return dict(view["players"][seat])


def changed(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    return {r: after[r] - before[r] for r in after if after[r] != before[r]}


def test_the_example_play_through_the_api(seeded_app: Flask, deal: Any) -> None:
    seed, prelude, steps = deal
    table = Table(seeded_app)
    for seat, move in prelude:
        table.play(seat, [move])
    before = table.view()
    assert before["active"] == ERIN and all(not s for s in before["board"].values())
    erin, chris = before["players"][ERIN], before["players"][CHRIS]
    assert (erin["ships_in_hand"], chris["ships_in_hand"]) == (2, 2)
    (_, nye), (_, rock), (_, station), (_, wormhole), (_, paradise), (_, merchant), \
        (_, chris_back), (_, erin_back), (_, tyson), (_, bump), (_, star), (_, last) = steps

    # "Erin places her first Ship on the Nye Asteroid Belt gaining 2 Ore."
    e0 = table.me(ERIN)
    table.play(ERIN, nye)
    assert changed(e0["resources"], table.me(ERIN)["resources"]) == {"ore": 2}
    assert table.view()["board"]["nye"] == [ERIN]

    # "Chris places his first Ship on Smashed Rock and receives 2 Credits and draws a RiffRaff
    # Card. The card is a Racer which allows him to take another turn with the same Ship."
    c0 = table.me(CHRIS)
    answer = table.play(CHRIS, rock)
    assert changed(c0["resources"], table.me(CHRIS)["resources"]) == {"credit": 2}
    assert "Racer" in " ".join(f["text"] for e in answer["events"] for f in e["data"]["facts"])
    assert answer["game"]["view"]["phase"] == "extra_turn" and answer["game"]["actors"] == [CHRIS]

    # "Chris places the same first Ship on the O-Renj Station. There he buys an Ore Connection
    # for 2 Credits, and places it on the Tyson Comet Location of his Ship Card. He purchases a
    # second Ore Connection and places it above the last, paying 3 Credits for this placement.
    # He skips buying his third Connection."
    c1 = table.me(CHRIS)
    table.play(CHRIS, station[:2])
    assert changed(c1["resources"], table.me(CHRIS)["resources"]) == {"credit": -2}
    table.play(CHRIS, station[2:])
    c2 = table.me(CHRIS)
    assert changed(c1["resources"], c2["resources"]) == {"credit": -5}
    assert c2["ship_card"]["tyson"] == ["ore", "ore"] and c2["connections"] == 2
    board = table.view()["board"]
    assert board["smashed-rock"] == [] and board["station"] == [CHRIS]
    assert c2["ships_in_hand"] == 1  # the same ship moved on

    # "Erin places her second Ship on the Wormhole Location. She pays 3 Credits and 3 Ore. Then
    # she grabs a third Ship, and places it near her Ship Card."
    e1 = table.me(ERIN)
    table.play(ERIN, wormhole)
    e2 = table.me(ERIN)
    assert changed(e1["resources"], e2["resources"]) == {"credit": -3, "ore": -3}
    assert (e2["ships_in_hand"], e2["ships_on_wormhole"]) == (1, e1["ships_on_wormhole"] - 1)

    # "Chris places his second Ship on the Paradise Location. He grabs a Trobil Card and pays
    # the Resources required at the top of the card. He then places it face up next to his Ship
    # Card. A new Trobil Card replaces it."
    taken = paradise[1].removeprefix("trobil:")
    shown = table.view()["display"]
    table.play(CHRIS, paradise)
    c3, view = table.me(CHRIS), table.view()
    assert changed(c2["resources"], c3["resources"]) == {r: -n for r, n in cost(taken).items()}
    assert c3["trobils"] == [*c2["trobils"], taken]
    assert taken not in view["display"] and len(view["display"]) == len(shown)
    new_card = next(card for card in view["display"] if card not in shown)
    assert not is_city(new_card)

    # "Erin places her third Ship on the Merchant Location and chooses to pay 2 Credits to gain
    # 3 Traps."
    table.play(ERIN, merchant)
    e3 = table.me(ERIN)
    assert changed(e2["resources"], e3["resources"]) == {"credit": -2, "trap": 3}

    # "Chris has no unused Ships to place, so he picks up his 2 Ships."
    assert [m["id"] for m in table.players[CHRIS].get(f"/v1/games/{table.id}/moves")
            .json["moves"]] == ["take-back"]
    table.play(CHRIS, chris_back)
    assert table.me(CHRIS)["ships_in_hand"] == 2
    # "Erin has no unused Ships to place, so she picks up her 3 Ships."
    table.play(ERIN, erin_back)
    assert table.me(ERIN)["ships_in_hand"] == 3
    assert all(not ships for ships in table.view()["board"].values())

    # "Chris places his first Ship on the Tyson Comet, gaining 2 Crystals and 2 Ore because of
    # his Connections."
    c4 = table.me(CHRIS)
    table.play(CHRIS, tyson)
    c5 = table.me(CHRIS)
    assert changed(c4["resources"], c5["resources"]) == {"crystal": 2, "ore": 2}

    # "Erin places her first Ship on the Tyson Comet, Bumping Chris' Ship. Chris takes his Ship
    # back, and Erin takes 2 Crystals. She takes a third Crystal as a Bumping Bonus"
    e4 = table.me(ERIN)
    table.play(ERIN, bump)
    assert changed(e4["resources"], table.me(ERIN)["resources"]) == {"crystal": 3}
    assert table.me(CHRIS)["ships_in_hand"] == 2 and table.view()["board"]["tyson"] == [ERIN]

    # "Chris places his first Ship on the O-Renj Star to throw the Trobils he previously
    # captured into the star. He does this by flipping his 2 Trobil Cards over and collecting
    # the amount of Credits shown at the bottom of the card."
    thrown = [m.removeprefix("flip:") for m in star[1:]]
    assert sorted(thrown) == sorted(c5["trobils"]) and len(thrown) == 2
    table.play(CHRIS, star)
    c6 = table.me(CHRIS)
    assert changed(c5["resources"], c6["resources"]) == {
        "credit": sum(credits_of(card) for card in thrown)}
    assert c6["trobils"] == [] and sorted(c6["flipped"]) == sorted(c5["flipped"] + thrown)
    # "Once a Trobil Card is flipped over, only the owner may look at the card."
    seen_by_erin = table.me(CHRIS, as_seat=ERIN)
    assert seen_by_erin["face_down"] == len(c6["flipped"]) and "flipped" not in seen_by_erin

    # "Erin places her second Ship on Paradise to collect a new Trobil Card by paying the
    # appropriate Resources. She replaces the Trobil Card with a new one, revealing a City Card!
    # There are now only 2 spots for Trobil Cards to appear"
    taken = last[1].removeprefix("trobil:")
    e5, shown = table.me(ERIN), table.view()["display"]
    answer = table.play(ERIN, last)
    e6, view = table.me(ERIN), table.view()
    assert changed(e5["resources"], e6["resources"]) == {r: -n for r, n in cost(taken).items()}
    assert e6["trobils"] == [*e5["trobils"], taken]
    revealed = next(card for card in view["display"] if card not in shown)
    assert is_city(revealed)
    assert sum(not is_city(card) for card in view["display"]) == 2
    assert answer["game"]["status"] == "active"
    # Ships at the end: Erin one in hand, on Tyson and on Paradise; Chris one in hand, on the Star.
    assert view["board"]["tyson"] == [ERIN] and ERIN in view["board"]["paradise"]
    assert view["board"]["star"] == [CHRIS]
    assert (e6["ships_in_hand"], table.me(CHRIS)["ships_in_hand"]) == (1, 1)
