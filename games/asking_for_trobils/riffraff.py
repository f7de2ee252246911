"""RiffRaff cards: drawn at Smashed Rock, "revealed and played immediately".

Each card's `effect` keyword (cards.json) decides what happens; no card is named in code:

    gain             gain resources, done
    exchange         phase "exchange": pay for resources once, or pass
    free_connection  phase "free_connection": take an offered Connection for free
    stand            phase "stand": put the card's RiffRaff Stand on a location (lasting effect)
    extra_turn       phase "extra_turn"       } their moves place a ship or interact, so they
    interact_again   phase "interact_again"   } live in turn.py

The drawn card is in state["visit"]["card"]; it goes to the discard pile at once, except a
stand card, which stays in the visit until its stand is placed.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

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
    RIFFRAFF,
    SETUP,
    SHIP_CARD,
    STAND_SPOTS,
    Amount,
    describe,
    effect,
    name,
)
from games.asking_for_trobils.connections import add_connection, offered_kinds, take_offered
from games.contract import Fact, Move, fact
from games.rng import Rng

PASS: Move = {"id": "pass", "label": "Pass", "kind": "leave"}


def card_here(state: State) -> str:
    return str(state["visit"]["card"])


def draw(state: State, seat: int, rng: Rng) -> list[Fact]:
    """Draw the top RiffRaff card and play it at once."""
    facts = reshuffle_if_empty(state, rng)
    deck = state["riffraff"]["deck"]
    if not deck:  # every card stands on the board: nothing to draw
        end_turn(state, seat)
        return facts
    card = deck.pop()
    state["visit"]["card"] = card
    kind = effect(card)
    if kind != "stand":
        state["riffraff"]["discard"].append(card)
    facts.append(fact(f"{who(seat)} draws a RiffRaff card: {name(card)}.", seat=seat, card=card))
    return facts + START[kind](state, seat, rng)


def reshuffle_if_empty(state: State, rng: Rng) -> list[Fact]:
    """"If the RiffRaff Card deck runs out, they should be reshuffled and placed back on the
    board." (when the next card is needed)"""
    riffraff = state["riffraff"]
    if riffraff["deck"] or not riffraff["discard"]:
        return []
    riffraff["deck"], riffraff["discard"] = riffraff["discard"], []
    rng.shuffle(riffraff["deck"])
    return [fact("The RiffRaff deck ran out: the discard pile is shuffled into a new deck.")]


# --- gain ------------------------------------------------------------------------------------


def start_gain(state: State, seat: int, rng: Rng) -> list[Fact]:
    amount: Amount = RIFFRAFF[card_here(state)]["gain"]
    gain(state["seats"][seat], amount)
    end_turn(state, seat)
    return [fact(f"{who(seat)} gains {describe(amount)}.", seat=seat, gained=amount)]


# --- exchange --------------------------------------------------------------------------------


def exchange_moves(state: State, seat: int) -> list[Move]:
    card = card_here(state)
    if can_pay(state["seats"][seat], RIFFRAFF[card]["pay"]):
        return [dict(_exchange_move(card)), dict(PASS)]
    return [dict(PASS)]


@cache
def _exchange_move(card: str) -> Move:
    spec = RIFFRAFF[card]
    label = f"Pay {describe(spec['pay'])} to gain {describe(spec['gain'])}"
    return {"id": "exchange", "label": label, "kind": "exchange"}


def play_exchange(state: State, seat: int, move: Move, rng: Rng) -> list[Fact]:
    spec = RIFFRAFF[card_here(state)]
    end_turn(state, seat)
    if move["kind"] == "leave":
        return []
    return exchange(state, seat, spec["pay"], spec["gain"])


# --- free connection -------------------------------------------------------------------------


def free_connection_moves(state: State, seat: int) -> list[Move]:
    return [dict(_take_move(kind, loc)) for kind in offered_kinds(state) for loc in SHIP_CARD]


@cache
def _take_move(kind: str, loc: str) -> Move:
    label = f"Take a {name(kind)} for free and put it on {name(loc)}"
    return {"id": f"take:{kind}:{loc}", "label": label, "kind": "take", "card": kind, "loc": loc}


def play_free_connection(state: State, seat: int, move: Move, rng: Rng) -> list[Fact]:
    take_offered(state, move["card"])
    add_connection(state["seats"][seat], move["card"], move["loc"])
    end_turn(state, seat)
    text = f"{who(seat)} takes a {name(move['card'])} for free, on {name(move['loc'])}."
    return [fact(text, seat=seat, card=move["card"], loc=move["loc"])]


# --- stands ----------------------------------------------------------------------------------


def free_spots(state: State) -> list[str]:
    """"No Location may hold more than 1 RiffRaff Stand." "No RiffRaff Stand may be placed
    on the Star of O-Renj Location." And there are 12 stands in all."""
    if len(state["stands"]) >= SETUP["stands"]:
        return []
    return [loc for loc in STAND_SPOTS if loc not in state["stands"]]


def stand_moves(state: State, seat: int) -> list[Move]:
    card = card_here(state)
    return [dict(_stand_move(card, loc)) for loc in free_spots(state)]


@cache
def _stand_move(card: str, loc: str) -> Move:
    label = f"Put the {name(card)}'s RiffRaff Stand on {name(loc)}"
    return {"id": f"stand:{loc}", "label": label, "kind": "stand", "loc": loc}


def start_stand(state: State, seat: int, rng: Rng) -> list[Fact]:
    if free_spots(state):
        return enter(state, seat, "stand", stand_moves, play_stand, rng)
    card = card_here(state)  # no room for a stand: the card has no effect
    state["riffraff"]["discard"].append(card)
    end_turn(state, seat)
    return [fact(f"There is no room for the {name(card)}'s stand: it is discarded.", card=card)]


def play_stand(state: State, seat: int, move: Move, rng: Rng) -> list[Fact]:
    card, loc = card_here(state), move["loc"]
    state["stands"][loc] = {"card": card, "owner": seat}
    end_turn(state, seat)
    return [fact(f"{who(seat)} puts a {name(card)} stand on {name(loc)}.", seat=seat, card=card,
                 loc=loc)]


def on_arrival(state: State, seat: int, loc: str) -> list[Fact]:
    """The lasting effect of the stand on `loc`, when `seat` places a ship there."""
    stand = state["stands"].get(loc)
    if stand is None:
        return []
    spec, owner = RIFFRAFF[stand["card"]], stand["owner"]
    if spec["lasting"] == "toll" and owner != seat:
        return _toll(state, seat, owner, spec["amount"], stand["card"])
    if spec["lasting"] == "bonus" and owner == seat:
        gain(state["seats"][seat], spec["amount"])
        return [fact(f"{who(seat)}'s {name(stand['card'])} gives {describe(spec['amount'])}.",
                     seat=seat, gained=spec["amount"])]
    return []


def _toll(state: State, seat: int, owner: int, amount: Amount, card: str) -> list[Fact]:
    """The visitor pays what it can of the toll to the stand's owner."""
    player = state["seats"][seat]
    paid = {r: min(n, player["res"][r]) for r, n in amount.items() if player["res"][r]}
    if not paid:
        return []
    pay(player, paid)
    gain(state["seats"][owner], paid)
    text = f"{who(seat)} pays {describe(paid)} to {who(owner)}'s {name(card)}."
    return [fact(text, seat=seat, owner=owner, paid=paid)]


# --- dispatch --------------------------------------------------------------------------------

Start = Callable[[State, int, Rng], list[Fact]]

MOVES: dict[str, Moves] = {
    "exchange": exchange_moves,
    "free_connection": free_connection_moves,
    "stand": stand_moves,
}

PLAY: dict[str, Phase] = {
    "exchange": play_exchange,
    "free_connection": play_free_connection,
    "stand": play_stand,
}


def _ask(phase: str) -> Start:
    """Open a phase of this module (nothing to decide: board.enter settles it at once)."""
    def start(state: State, seat: int, rng: Rng) -> list[Fact]:
        return enter(state, seat, phase, MOVES[phase], PLAY[phase], rng)
    return start


def _wait(phase: str) -> Start:
    """Open a phase of turn.py; it always offers a choice (a place or a location, or pass)."""
    def start(state: State, seat: int, rng: Rng) -> list[Fact]:
        state["phase"] = phase
        return []
    return start


START: dict[str, Start] = {
    "gain": start_gain,
    "exchange": _ask("exchange"),
    "free_connection": _ask("free_connection"),
    "stand": start_stand,
    "extra_turn": _wait("extra_turn"),
    "interact_again": _wait("interact_again"),
}
