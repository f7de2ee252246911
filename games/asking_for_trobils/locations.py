"""The locations that ask the player something, one phase each (keyed by the data's action):

    capture      Paradise: take one Trobil you can pay for, or pass
    throw        Star of O-Renj: flip face-up Trobils one at a time for their credits, done
    connections  O-Renj Station: buy up to 3 Connections one at a time, done
    choose       MegaFactory, Paradise's Moon, Merchant: one of the printed actions
    ship         Wormhole: pay for a ship waiting there, or pass

`START[action]` opens the phase (see board.enter: nothing to decide ends the interaction at
once); `MOVES[phase]` lists its moves, `PLAY[phase]` plays them. Each interaction ends the turn.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from games.asking_for_trobils.board import (
    Moves,
    Phase,
    State,
    can_pay,
    end_turn,
    enter,
    exchange,
    gain,
    pay,
    who,
)
from games.asking_for_trobils.cards import (
    LOCATIONS,
    SHIP_CARD,
    cost,
    credits_of,
    describe,
    is_city,
    name,
    points,
)
from games.asking_for_trobils.connections import (
    add_connection,
    offered_kinds,
    price,
    refresh_if_identical,
    take_offered,
)
from games.asking_for_trobils.scoring import all_cities_shown, finish_game
from games.contract import Fact, Move, fact
from games.rng import Rng

PASS: Move = {"id": "pass", "label": "Pass", "kind": "leave"}
DONE: Move = {"id": "done", "label": "Done", "kind": "leave"}


def here(state: State) -> dict[str, Any]:
    """The location of the interaction in progress."""
    return LOCATIONS[state["visit"]["loc"]]


# --- Paradise: capture one Trobil -------------------------------------------------------------


def capture_moves(state: State, seat: int) -> list[Move]:
    """"they may take 1 Trobil Card if they have the indicated Resources" """
    player = state["seats"][seat]
    return [
        dict(_trobil_move(card)) for card in state["display"]
        if not is_city(card) and can_pay(player, cost(card))
    ] + [dict(PASS)]


@cache
def _trobil_move(card: str) -> Move:
    label = f"Take {name(card)} ({points(card)} points) for {describe(cost(card))}"
    return {"id": f"trobil:{card}", "label": label, "kind": "trobil", "card": card}


def play_capture(state: State, seat: int, move: Move, rng: Rng) -> list[Fact]:
    if move["kind"] == "leave":
        end_turn(state, seat)
        return []
    card, player = move["card"], state["seats"][seat]
    pay(player, cost(card))  # "Return the Resources used to capture the Trobil Card to the supply."
    player["trobils"].append(card)
    facts = [fact(f"{who(seat)} captures {name(card)} for {describe(cost(card))}.",
                  seat=seat, card=card)]
    facts += replace_on_display(state, card)
    if all_cities_shown(state):
        return facts + finish_game(state)
    end_turn(state, seat)
    return facts


def replace_on_display(state: State, card: str) -> list[Fact]:
    """"A new Trobil Card replaces the one taken." (It may be a City: "When a City Card is
    revealed, it remains out and takes the place of a Trobil Card.")"""
    display, deck = state["display"], state["deck"]
    slot = display.index(card)
    if not deck:  # never while a City is still to come: each City is in the deck or shown
        del display[slot]
        return []
    new = display[slot] = deck.pop()
    kind = "City" if is_city(new) else "Trobil"
    return [fact(f"A new card is revealed near Paradise: {name(new)} (a {kind}).", card=new)]


# --- the Star of O-Renj: throw Trobils in ----------------------------------------------------


def throw_moves(state: State, seat: int) -> list[Move]:
    """"they may immediately throw any amount of Trobil Cards they have captured into the
    star" - one card per move, then done."""
    return [dict(_flip_move(card)) for card in state["seats"][seat]["trobils"]] + [dict(DONE)]


@cache
def _flip_move(card: str) -> Move:
    label = f"Throw {name(card)} into the Star for {credits_of(card)} Credits"
    return {"id": f"flip:{card}", "label": label, "kind": "flip", "card": card}


def play_throw(state: State, seat: int, move: Move, rng: Rng) -> list[Fact]:
    if move["kind"] == "leave":
        end_turn(state, seat)
        return []
    card, player = move["card"], state["seats"][seat]
    player["trobils"].remove(card)
    player["flipped"].append(card)  # "Turn the Cards face down"
    earned = credits_of(card)
    gain(player, {"credit": earned})
    state["visit"]["count"] += 1
    facts = [
        fact(f"{who(seat)} throws a Trobil into the Star and gains {earned} Credits.",
             seat=seat, count=1, credits=earned),
        fact(f"You throw {name(card)} ({points(card)} points) into the Star.", to=[seat],
             card=card),
    ]
    return facts + enter(state, seat, "throw", throw_moves, play_throw, rng)


# --- O-Renj Station: buy Connections ---------------------------------------------------------


def connection_moves(state: State, seat: int) -> list[Move]:
    station, player = here(state), state["seats"][seat]
    if state["visit"]["count"] >= station["max_buys"]:
        return [dict(DONE)]
    credits = player["res"]["credit"]
    prices = {loc: price(station, player, loc) for loc in SHIP_CARD}
    return [
        dict(_buy_move(kind, loc, prices[loc]))
        for kind in offered_kinds(state) for loc in SHIP_CARD if prices[loc] <= credits
    ] + [dict(DONE)]


@cache
def _buy_move(kind: str, loc: str, credits: int) -> Move:
    label = f"Buy a {name(kind)} for {credits} Credits and put it on {name(loc)}"
    return {"id": f"buy:{kind}:{loc}", "label": label, "kind": "buy", "card": kind, "loc": loc,
            "price": credits}


def play_connections(state: State, seat: int, move: Move, rng: Rng) -> list[Fact]:
    if move["kind"] == "leave":
        end_turn(state, seat)
        return refresh_if_identical(state, rng)
    player, kind, loc = state["seats"][seat], move["card"], move["loc"]
    pay(player, {"credit": move["price"]})
    take_offered(state, kind)
    add_connection(player, kind, loc)
    state["visit"]["count"] += 1
    text = f"{who(seat)} buys a {name(kind)} for {move['price']} Credits, on {name(loc)}."
    facts = [fact(text, seat=seat, card=kind, loc=loc, price=move["price"])]
    return facts + enter(state, seat, "connections", connection_moves, play_connections, rng)


# --- MegaFactory, Paradise's Moon, Merchant: choose one action -------------------------------


def choose_moves(state: State, seat: int) -> list[Move]:
    loc = state["visit"]["loc"]
    spec, player = LOCATIONS[loc], state["seats"][seat]
    moves = [
        dict(_option_move(loc, n)) for n, option in enumerate(spec["options"], 1)
        if can_pay(player, option["pay"])
    ]
    return moves + [dict(PASS)] if spec["optional"] else moves


@cache
def _option_move(loc: str, n: int) -> Move:
    option = LOCATIONS[loc]["options"][n - 1]
    paid = f"Pay {describe(option['pay'])} and collect" if option["pay"] else "Collect"
    label = f"{paid} {describe(option['gain'])}"
    return {"id": f"{loc}:{n}", "label": label, "kind": "option", "option": n}


def play_choose(state: State, seat: int, move: Move, rng: Rng) -> list[Fact]:
    loc = state["visit"]["loc"]
    end_turn(state, seat)
    if move["kind"] == "leave":
        return []
    option = LOCATIONS[loc]["options"][move["option"] - 1]
    return exchange(state, seat, option["pay"], option["gain"])


# --- the Wormhole: buy a ship ----------------------------------------------------------------


def ship_moves(state: State, seat: int) -> list[Move]:
    """"they may pay 3 Credits and 3 Ore Resources to gain an additional Ship" - one of
    those waiting there ("place 2 additional Ships on the Wormhole to purchase later")."""
    loc, player = state["visit"]["loc"], state["seats"][seat]
    if player["wormhole"] and can_pay(player, LOCATIONS[loc]["pay"]):
        return [dict(_ship_move(loc)), dict(PASS)]
    return [dict(PASS)]


@cache
def _ship_move(loc: str) -> Move:
    label = f"Pay {describe(LOCATIONS[loc]['pay'])} for another ship"
    return {"id": f"{loc}:buy", "label": label, "kind": "ship"}


def play_ship(state: State, seat: int, move: Move, rng: Rng) -> list[Fact]:
    price_paid = here(state)["pay"]
    end_turn(state, seat)  # "Players may only purchase a Ship once per turn."
    if move["kind"] == "leave":
        return []
    player = state["seats"][seat]
    pay(player, price_paid)
    player["wormhole"] -= 1
    player["hand"] += 1
    return [fact(f"{who(seat)} pays {describe(price_paid)} for another ship.", seat=seat)]


# --- dispatch --------------------------------------------------------------------------------

MOVES: dict[str, Moves] = {
    "capture": capture_moves,
    "throw": throw_moves,
    "connections": connection_moves,
    "choose": choose_moves,
    "ship": ship_moves,
}

PLAY: dict[str, Phase] = {
    "capture": play_capture,
    "throw": play_throw,
    "connections": play_connections,
    "choose": play_choose,
    "ship": play_ship,
}


def start(action: str, state: State, seat: int, rng: Rng) -> list[Fact]:
    """Open the location's phase (the visit is already in state["visit"])."""
    return enter(state, seat, action, MOVES[action], PLAY[action], rng)
