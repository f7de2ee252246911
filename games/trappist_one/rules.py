"""Trappist One as a state machine of named phases (README "Phases and move ids").

    choose  -> every seat at once, in secret: 3 cards for Capital One; revealed together
    benefit -> the optional benefits, in any order, then "buy"
    buying  -> buy market cards, then "done" (the gaps are refilled before phase 3)
    place   -> play a mega-factory (a hired worker, a benefit): no bonus; or "skip"
    phase3  -> build a mega-factory, or call a ship / a cargo ship for a shipment
    architecton -> after a build, with Architecton: play another factory for 1/2/3, or "skip"
    react   -> out of turn: the owners of reactions to a ship call use or decline them
    produce -> non-specialised production, hangar discards, then "done"
    end     -> discard down to the hand limit; the turn passes on its own
    over

Each phase has ONE function listing its legal moves (MOVES) and one applying them (PLAY).
`play` works on a copy of the state (`copy_state`), so the state it is given never changes.

Stargold in the facts (README "Stargold in the facts"): every fact that moves stargold says
so in its data, for the seat `seat`: `gain` (taken from the supply), `cost` (paid in all) and,
when part of the cost goes to another player, `paid_to` ({"seat", "stargold"}); the rest of
a cost goes to the supply.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations_with_replacement
from typing import Any

from games.contract import Fact, Move, fact
from games.generations import note_played
from games.json_data import clone
from games.rng import Rng
from games.trappist_one.board import (
    CAPITAL,
    INVESTMENT,
    PER_PLANET,
    PLANET_NAMES,
    PLANETS,
    RESOURCES,
    SETUP,
    SHIPS,
    State,
    abilities,
    ability,
    buy_discount,
    capacity_bonus,
    controls,
    copy_player,
    draw_factories,
    factories_of,
    hand_limit,
    hand_size,
    hides_hands_on_hiring,
    new_player,
    placeable_planets,
    refills_at_once,
    satellite_slots,
    who,
)

DATA_FACTORIES = 20



def copy_state(state: State) -> State:
    """A copy that shares nothing mutable with `state`. Field by field, because a generic deep
    copy was two thirds of the time of a random playout; the small nested phase records
    (placing, shipment, reaction) are cloned whole."""
    new = dict(state)
    new["seats"] = [copy_player(p) for p in state["seats"]]
    for key in ("factory_deck", "investment_deck", "removed", "market", "points", "used"):
        new[key] = list(state[key])
    new["factory_discard"] = dict(state["factory_discard"])
    if "provenance" in state:  # its per-seat ledgers are replaced, never changed in place
        new["provenance"] = {**state["provenance"],
                             "ledger": list(state["provenance"]["ledger"])}
    new["earth"] = {clan: list(ships) for clan, ships in state["earth"].items()}
    new["options"] = dict(state["options"])
    for key in ("placing", "shipment", "reaction"):
        new[key] = clone(state[key])
    return new


# --- setup -------------------------------------------------------------------------------


def setup(players: int, options: dict[str, Any], rng: Rng, rules_version: str = "1") -> State:
    """Setup steps 3-9 of the rulebook; step 10 is the `choose` phase. Version 1's state is
    exactly what it always was (no "rules" key), so its golden records re-enact hash for hash;
    a later version writes its number (README "Rules versions")."""
    n = str(players)
    sets = ["base", "exodite"] if options.get("exodite") else ["base"]
    investment = [c for c, spec in INVESTMENT.items() if spec["set"] in sets]
    rng.shuffle(investment)
    size = int(SETUP["investment_deck"][n])
    removed, deck = investment[: len(investment) - size], investment[len(investment) - size :]
    per_clan = int(SETUP["ships_per_clan"][n])
    earth = {r: [s for s, spec in SHIPS.items() if spec["clan"] == r][:per_clan] for r in RESOURCES}
    factories = [r for r in RESOURCES for _ in range(DATA_FACTORIES)]
    rng.shuffle(factories)
    seats = [new_player() for _ in range(players)]
    for seat, player in enumerate(seats):
        for _ in range(SETUP["start_hand"][seat]):
            player["hand"][factories.pop()] += 1
    market = [deck.pop() for _ in range(SETUP["market"])]
    state: State = {
        "players": players,
        "options": {
            "expert_scoring": bool(options.get("expert_scoring", False)),
            "exodite": bool(options.get("exodite", False)),
            "refill_from_removed": bool(options.get("refill_from_removed", True)),
        },
        "phase": "choose",
        "active": 0,  # the starting player is seat 0 (README decision 1)
        "turn": 0,
        "seats": seats,
        "factory_deck": factories,
        "factory_discard": {r: 0 for r in RESOURCES},
        "reshuffles": 0,
        "investment_deck": deck,
        "removed": removed,  # back in the box, unseen
        "market": market,
        "points": list(SETUP["market_points"][n]),
        "earth": earth,
        "ship_discard": 0,  # hangar cards discarded for capacity: out of the game
        "used": [],  # the benefits used this turn
        "placing": None,
        "shipment": None,
        "reaction": None,  # reactions out of turn waiting for their owners
        "ending": None,  # the end trigger, once one fired
    }
    if rules_version != "1":
        state["rules"] = int(rules_version)
    return state


# --- the starting choice: every seat at once, in secret ----------------------------------


def _triples(hand: dict[str, int]) -> list[tuple[str, ...]]:
    return [t for t in combinations_with_replacement(RESOURCES, 3)
            if all(t.count(r) <= hand[r] for r in set(t))]


def choose_moves(state: State, seat: int) -> list[Move]:
    if state["seats"][seat]["pick"] is not None:
        return []
    return [{"id": "pick:" + "-".join(t), "label": "Place " + ", ".join(t) + " under Capital One",
             "kind": "pick", "resources": list(t)}
            for t in _triples(state["seats"][seat]["hand"])]


def play_choose(state: State, seat: int, move: Move, rng: Rng) -> list[Fact]:
    player = state["seats"][seat]
    pick = {r: 0 for r in RESOURCES}
    for r in move["resources"]:
        player["hand"][r] -= 1
        pick[r] += 1
    player["pick"] = pick
    facts = [fact(f"{who(seat)} has chosen.", seat=seat),
             fact(f"You chose {', '.join(move['resources'])}.", to=[seat], seat=seat,
                  resources=list(move["resources"]))]
    if all(p["pick"] is not None for p in state["seats"]):
        facts += _reveal(state)
    return facts


def _reveal(state: State) -> list[Fact]:
    """"every player places them under their Capital One planet at the same time" (no
    construction bonus: they are not built in phase 3(A))."""
    shown: dict[str, list[str]] = {}
    for seat, player in enumerate(state["seats"]):
        placed = [r for r in RESOURCES for _ in range(player["pick"][r])]
        player["planets"][CAPITAL] = placed
        player["pick"] = None
        shown[str(seat)] = placed
    state["phase"], state["active"], state["turn"] = "benefit", 0, 1
    return [fact("The starting choices are revealed.", choices=shown)]


# --- 1. benefit phase --------------------------------------------------------------------


def benefit_moves(state: State, seat: int) -> list[Move]:
    player, used = state["seats"][seat], state["used"]
    moves: list[Move] = []
    can_draw = bool(state["factory_deck"]) or any(state["factory_discard"].values())
    if controls(player, "lux") and "lux" not in used:
        moves.append({"id": "lux", "label": "Lux: gain 1 stargold", "kind": "lux"})
    if controls(player, "sophus") and "sophus" not in used and player["stargold"] >= 1 \
            and can_draw:
        moves.append({"id": "sophus", "label": "Sophus: pay 1 stargold, draw 2", "kind": "sophus"})
    if controls(player, "fragmentum") and "fragmentum" not in used:
        for card in [player["satellites"][p] for p in PLANETS if p in player["satellites"]] \
                + player["stations"]:
            gain = max(0, INVESTMENT[card]["cost"] - 1)
            moves.append({"id": f"fragmentum:{card}", "kind": "fragmentum", "card": card,
                          "label": f"Fragmentum: scrap {card} for {gain} stargold"})
    for card, spec in abilities(player):
        if card in used:
            continue
        if "benefit_stargold" in spec or ("benefit_draw" in spec and can_draw) \
                or ("benefit_pay1_draw2" in spec and player["stargold"] >= 1 and can_draw) \
                or ("benefit_play_factory" in spec and _play_targets(player, RESOURCES)):
            moves.append({"id": f"benefit:{card}", "label": f"Use {card}", "kind": "benefit",
                          "card": card})
    moves.append({"id": "buy", "label": "Go on to buying", "kind": "next"})
    return moves


def play_benefit(state: State, seat: int, move: Move, rng: Rng) -> list[Fact]:
    player, kind = state["seats"][seat], move["kind"]
    if kind == "next":
        state["phase"] = "buying"
        return []
    if kind == "lux":
        state["used"].append("lux")
        player["stargold"] += 1
        return [fact(f"{who(seat)} gains 1 stargold from Lux.", seat=seat, gain=1)]
    if kind == "sophus":
        state["used"].append("sophus")
        player["stargold"] -= 1
        return [fact(f"{who(seat)} pays 1 stargold to Sophus.", seat=seat, cost=1)] + \
            _draw(state, seat, 2, rng, "Sophus")
    if kind == "fragmentum":
        state["used"].append("fragmentum")
        card = move["card"]
        for planet, sat in list(player["satellites"].items()):
            if sat == card:
                del player["satellites"][planet]
        if card in player["stations"]:
            player["stations"].remove(card)
        player["scrapyard"].append(card)
        gain = max(0, INVESTMENT[card]["cost"] - 1)
        player["stargold"] += gain
        return [fact(f"{who(seat)} scraps {card} on Fragmentum for {gain} stargold.",
                     seat=seat, card=card, gain=gain)]
    card = move["card"]
    state["used"].append(card)
    spec = ability(card)
    if "benefit_stargold" in spec:
        gain = int(spec["benefit_stargold"])
        player["stargold"] += gain
        return [fact(f"{who(seat)} gains {gain} stargold from {card}.", seat=seat, card=card,
                     gain=gain)]
    if "benefit_draw" in spec:
        return _draw(state, seat, int(spec["benefit_draw"]), rng, card)
    if "benefit_pay1_draw2" in spec:
        player["stargold"] -= 1
        return [fact(f"{who(seat)} pays 1 stargold to use {card}.", seat=seat, card=card,
                     cost=1)] + _draw(state, seat, 2, rng, card)
    state["placing"] = {"resources": list(RESOURCES), "back": "benefit", "by": card}
    state["phase"] = "place"
    return [fact(f"{who(seat)} uses {card} to play a mega-factory.", seat=seat, card=card)]


def _draw(state: State, seat: int, n: int, rng: Rng, why: str) -> list[Fact]:
    before = state["reshuffles"]
    drawn = draw_factories(state, n, rng, seat)
    hand = state["seats"][seat]["hand"]
    for r, k in drawn.items():
        hand[r] += k
    count = sum(drawn.values())
    facts = []
    if state["reshuffles"] > before:
        facts.append(fact("The mega-factory discard pile is shuffled into a new deck."))
    facts += [fact(f"{who(seat)} draws {count} mega-factory card(s) ({why}).", seat=seat,
                   count=count),
              fact(f"You draw {_listed(drawn)}.", to=[seat], seat=seat, drawn=drawn)]
    return facts


def _listed(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {r}" for r, n in counts.items()) or "nothing"


# --- playing a factory (no bonus) ---------------------------------------------------------


def _play_targets(player: dict[str, Any], resources: list[str]) -> list[tuple[str, str]]:
    return [(r, p) for r in resources if player["hand"][r] > 0 for p in placeable_planets(player)]


def place_moves(state: State, seat: int) -> list[Move]:
    player = state["seats"][seat]
    moves: list[Move] = [
        {"id": f"place:{r}:{p}", "label": f"Play a {r} mega-factory on {PLANET_NAMES[p]}",
         "kind": "place", "resource": r, "planet": p}
        for r, p in _play_targets(player, state["placing"]["resources"])]
    return moves + [{"id": "skip", "label": "Play no mega-factory", "kind": "skip"}]


def play_place(state: State, seat: int, move: Move, rng: Rng) -> list[Fact]:
    back = state["placing"]["back"]
    state["placing"], state["phase"] = None, back
    if move["kind"] == "skip":
        return []
    return _put_factory(state, seat, move["resource"], move["planet"], built=False, rng=rng)


def _put_factory(state: State, seat: int, resource: str, planet: str, built: bool,
                 rng: Rng) -> list[Fact]:
    """A built factory (phase 3(A)) draws its construction bonus and, as the third, pays the
    immediate advantage; a played one counts towards control but gets neither."""
    player = state["seats"][seat]
    player["hand"][resource] -= 1
    note_played(state, seat, [resource])
    player["planets"][planet].append(resource)
    verb = "builds" if built else "plays"
    facts = [fact(f"{who(seat)} {verb} a {resource} mega-factory on {PLANET_NAMES[planet]}.",
                  seat=seat, resource=resource, planet=planet, built=built)]
    factories = player["planets"][planet]
    if built:
        facts += _draw(state, seat, len(set(factories)), rng, "construction bonus")
    if len(factories) == PER_PLANET:
        facts.append(fact(f"{who(seat)} now controls {PLANET_NAMES[planet]}.", seat=seat,
                          planet=planet))
        if built:
            gold = max(factories.count(r) for r in set(factories))
            player["stargold"] += gold
            facts.append(fact(f"{who(seat)} gains {gold} stargold.", seat=seat, gain=gold))
    return facts


# --- 2. buying phase ---------------------------------------------------------------------


def payment(state: State, seat: int, slot: int) -> tuple[int, int | None]:
    """(what `seat` pays for the card in market `slot`, the seat that gets 1 of it or None).

    "If you buy a card that points to another player, you have to pay 1 stargold of the total
    price to the player the card was pointing at. The rest of the stargold is paid to the
    supply." Nobody else is paid for a card of price 0 or with Morula Calva (note); a
    `buy_discount` comes off the supply's share (components.json, README decision 8)."""
    player, card, target = state["seats"][seat], state["market"][slot], state["points"][slot]
    cost = int(INVESTMENT[card]["cost"])
    pointed = target is not None and target != seat and cost > 0 \
        and not controls(player, "morula_calva")
    to_player = 1 if pointed else 0
    to_supply = max(0, cost - to_player - buy_discount(player))
    return to_player + to_supply, (target if pointed else None)


def buying_moves(state: State, seat: int) -> list[Move]:
    player = state["seats"][seat]
    moves: list[Move] = []
    for slot, card in enumerate(state["market"]):
        if card is None:
            continue
        cost, _ = payment(state, seat, slot)
        if cost > player["stargold"]:
            continue
        label = f"Buy {card} for {cost}"
        if INVESTMENT[card]["kind"] == "satellite":
            moves += [{"id": f"buy:{slot}:{p}", "label": f"{label}, over {PLANET_NAMES[p]}",
                       "kind": "buy", "slot": slot, "card": card, "price": cost, "planet": p}
                      for p in satellite_slots(player)]
        else:
            moves.append({"id": f"buy:{slot}", "label": label, "kind": "buy", "slot": slot,
                          "card": card, "price": cost})
    return moves + [{"id": "done", "label": "End buying", "kind": "next"}]


def play_buying(state: State, seat: int, move: Move, rng: Rng) -> list[Fact]:
    if move["kind"] == "next":
        facts = refill_market(state)
        state["phase"] = "phase3"
        return facts
    player, card, slot = state["seats"][seat], move["card"], move["slot"]
    facts = [_pay_for(state, seat, slot)]
    state["market"][slot] = None
    kind = INVESTMENT[card]["kind"]
    if kind == "satellite":
        player["satellites"][move["planet"]] = card
    elif kind == "station":
        player["stations"].append(card)
    elif kind == "cargo":
        player["cargo"].append(card)
    else:
        player["scrapyard"].append(card)
        clan = INVESTMENT[card]["clan"]
        if _may_play_for_worker(state, player, clan):
            state["placing"] = {"resources": [clan], "back": "buying", "by": card}
            state["phase"] = "place"
    if refills_at_once(player):
        facts += refill_market(state)
    return facts


def _may_play_for_worker(state: State, player: dict[str, Any], clan: str) -> bool:
    """Whether a hired worker opens the `place` step. Version 1 opened it only for a buyer
    holding a card of the worker's clan, which showed every other seat whether it did (the
    hand is secret: "Any card in your hands during the game will be kept in secret to other
    players"). Version 2 opens it whenever a planet could take a factory, which everyone
    sees; a buyer without a matching card can then only skip."""
    if hides_hands_on_hiring(state):
        return bool(placeable_planets(player))
    return bool(_play_targets(player, [clan]))


def _pay_for(state: State, seat: int, slot: int) -> Fact:
    """The payment for the card in `slot`, and its public fact (the card is bought face up)."""
    card = state["market"][slot]
    cost, target = payment(state, seat, slot)
    state["seats"][seat]["stargold"] -= cost
    if target is None:
        return fact(f"{who(seat)} buys {card} for {cost} stargold.", seat=seat, card=card,
                    slot=slot, cost=cost)
    state["seats"][target]["stargold"] += 1
    return fact(f"{who(seat)} buys {card} for {cost} stargold, 1 of it to {who(target)}.",
                seat=seat, card=card, slot=slot, cost=cost,
                paid_to={"seat": target, "stargold": 1})


def refill_market(state: State) -> list[Fact]:
    """"Before moving on to phase 3, you need to fill up all the gaps in the market area"."""
    facts: list[Fact] = []
    for slot, card in enumerate(state["market"]):
        if card is not None:
            continue
        if not state["investment_deck"] and state["ending"] is None:
            facts += _trigger(state, "investment")
        if state["investment_deck"]:
            state["market"][slot] = state["investment_deck"].pop()
        elif state["ending"] == "investment" and state["options"]["refill_from_removed"] \
                and state["removed"]:
            state["market"][slot] = state["removed"].pop()
        else:
            continue
        facts.append(fact(f"{state['market'][slot]} fills the market.", slot=slot,
                          card=state["market"][slot]))
    return facts


# --- 3. construction or shipment ---------------------------------------------------------


def phase3_moves(state: State, seat: int) -> list[Move]:
    player = state["seats"][seat]
    moves: list[Move] = [
        {"id": f"build:{r}:{p}", "label": f"Build a {r} mega-factory on {PLANET_NAMES[p]}",
         "kind": "build", "resource": r, "planet": p}
        for r, p in _play_targets(player, RESOURCES)]
    moves += [{"id": f"ship:{clan}", "label": f"Call a {clan} Biocultist ship", "kind": "ship",
               "clan": clan} for clan in RESOURCES if state["earth"][clan]]
    moves += [{"id": f"cargo:{c}", "label": f"Ship with {c}", "kind": "cargo", "card": c}
              for c in sorted(set(player["cargo"]))]
    if not moves:  # README decision 5
        moves.append({"id": "pass", "label": "Neither build nor ship", "kind": "pass"})
    return moves


def play_phase3(state: State, seat: int, move: Move, rng: Rng) -> list[Fact]:
    player, kind = state["seats"][seat], move["kind"]
    if kind == "pass":
        return _to_end(state, seat)
    if kind == "build":
        facts = _put_factory(state, seat, move["resource"], move["planet"], built=True, rng=rng)
        if controls(player, "architecton") and _architecton_targets(player):
            state["phase"] = "architecton"
            return facts
        return facts + _to_end(state, seat)
    if kind == "ship":
        ship = state["earth"][move["clan"]].pop(0)
        resources, capacity = [move["clan"]], int(SHIPS[ship]["capacity"])
        facts = [fact(f"{who(seat)} calls {ship}.", seat=seat, ship=ship)]
    else:
        ship = move["card"]
        player["cargo"].remove(ship)
        resources, capacity = list(INVESTMENT[ship]["resources"]), int(INVESTMENT[ship]["capacity"])
        facts = [fact(f"{who(seat)} ships with {ship}.", seat=seat, ship=ship)]
    state["shipment"] = {"ship": ship, "cargo": kind == "cargo", "resources": resources,
                         "capacity": capacity + capacity_bonus(player),
                         "produced": {r: 0 for r in RESOURCES}}
    pending = _reactors(state, seat, move["clan"]) if kind == "ship" else []
    if pending:
        state["reaction"] = {"trigger": "call", "clan": move["clan"], "pending": pending,
                             "answers": {}}
        state["phase"] = "react"
        return facts + [fact("Reactions are possible: their owners decide.",
                             seats=sorted({s for s, _ in pending}))]
    return facts + _specialised(state, seat, rng)


def _specialised(state: State, seat: int, rng: Rng) -> list[Fact]:
    """"1. Specialized production ... Draw as many cards ... as the number of mega-factories on
    ALL of your planets that produce the resource that matches" """
    player, ship = state["seats"][seat], state["shipment"]
    n = sum(factories_of(player, r) for r in ship["resources"])
    state["phase"] = "produce"
    return _draw(state, seat, n, rng, "specialised production") if n else []


# --- reactions out of turn ---------------------------------------------------------------


def _reactors(state: State, active: int, clan: str) -> list[list[Any]]:
    """[seat, card] of every reaction to "another player calls a ship of clan X", clockwise
    from the active player (decisions note)."""
    n = state["players"]
    return [[s, card] for s in [(active + k) % n for k in range(1, n)]
            for card, spec in abilities(state["seats"][s])
            if spec.get("react_clan_draw") == clan]


def _open_reaction(state: State, seat: int) -> str | None:
    """The first reaction of `seat` not yet decided."""
    r = state["reaction"]
    for s, card in r["pending"]:
        if s == seat and f"{s}:{card}" not in r["answers"]:
            return str(card)
    return None


def react_moves(state: State, seat: int) -> list[Move]:
    card = _open_reaction(state, seat)
    if card is None:
        return []
    return [{"id": f"react:{card}", "label": f"Use {card}: draw a mega-factory card",
             "kind": "react", "card": card},
            {"id": f"decline:{card}", "label": f"Do not use {card}", "kind": "decline",
             "card": card}]


def play_react(state: State, seat: int, move: Move, rng: Rng) -> list[Fact]:
    """Decisions are made together; they take effect once all are in, clockwise from the
    active player (README decision 16)."""
    r = state["reaction"]
    r["answers"][f"{seat}:{move['card']}"] = move["kind"] == "react"
    verb = "uses" if move["kind"] == "react" else "declines"
    facts = [fact(f"{who(seat)} {verb} {move['card']}.", seat=seat, card=move["card"])]
    if len(r["answers"]) < len(r["pending"]):
        return facts
    for s, card in r["pending"]:
        if r["answers"][f"{s}:{card}"]:
            facts += _draw(state, s, 1, rng, str(card))
    state["reaction"] = None
    return facts + _specialised(state, state["active"], rng)


def _architecton_targets(player: dict[str, Any]) -> list[tuple[str, str, int]]:
    return [(r, p, len(player["planets"][p]) + 1) for r, p in _play_targets(player, RESOURCES)
            if len(player["planets"][p]) + 1 <= player["stargold"]]


def architecton_moves(state: State, seat: int) -> list[Move]:
    moves: list[Move] = [
        {"id": f"extra:{r}:{p}", "label": f"Pay {cost}: play a {r} mega-factory on "
         f"{PLANET_NAMES[p]}", "kind": "extra", "resource": r, "planet": p, "cost": cost}
        for r, p, cost in _architecton_targets(state["seats"][seat])]
    return moves + [{"id": "skip", "label": "Play no other mega-factory", "kind": "skip"}]


def play_architecton(state: State, seat: int, move: Move, rng: Rng) -> list[Fact]:
    facts: list[Fact] = []
    if move["kind"] == "extra":
        state["seats"][seat]["stargold"] -= move["cost"]
        facts = [fact(f"{who(seat)} pays {move['cost']} stargold to Architecton.", seat=seat,
                      cost=move["cost"])]
        facts += _put_factory(state, seat, move["resource"], move["planet"], built=False, rng=rng)
    return facts + _to_end(state, seat)


def produce_moves(state: State, seat: int) -> list[Move]:
    player, ship = state["seats"][seat], state["shipment"]
    moves: list[Move] = []
    if sum(ship["produced"].values()) < ship["capacity"]:
        moves += [{"id": f"produce:{r}", "label": f"Discard a {r} card: produce 1 stargold",
                   "kind": "produce", "resource": r}
                  for r in RESOURCES
                  if player["hand"][r] > 0 and ship["produced"][r] < factories_of(player, r)]
    if player["hangar"]:
        moves.append({"id": "hangar", "label": "Discard a hangar card: +1 loading capacity",
                      "kind": "hangar"})
    return moves + [{"id": "done", "label": "End the shipment", "kind": "next"}]


def play_produce(state: State, seat: int, move: Move, rng: Rng) -> list[Fact]:
    player, ship = state["seats"][seat], state["shipment"]
    if move["kind"] == "produce":
        r = move["resource"]
        player["hand"][r] -= 1
        note_played(state, seat, [r])
        state["factory_discard"][r] += 1
        ship["produced"][r] += 1
        return [fact(f"{who(seat)} produces with a {r} mega-factory.", seat=seat, resource=r)]
    if move["kind"] == "hangar":
        player["hangar"].pop(0)
        state["ship_discard"] += 1
        ship["capacity"] += 1
        return [fact(f"{who(seat)} discards a hangar card: capacity {ship['capacity']}.",
                     seat=seat)]
    gold = sum(ship["produced"].values())
    player["stargold"] += gold
    (player["scrapyard"] if ship["cargo"] else player["hangar"]).append(ship["ship"])
    state["shipment"] = None
    return [fact(f"{who(seat)} puts {gold} stargold on Capital One.", seat=seat, gain=gold)] + \
        _to_end(state, seat)


# --- 4. end phase, the end of the turn and of the game ------------------------------------


def _to_end(state: State, seat: int) -> list[Fact]:
    state["phase"] = "end"
    if hand_size(state["seats"][seat]) <= hand_limit(state["seats"][seat]):
        return _end_turn(state)
    return []


def end_moves(state: State, seat: int) -> list[Move]:
    player = state["seats"][seat]
    return [{"id": f"discard:{r}", "label": f"Discard a {r} card", "kind": "discard",
             "resource": r} for r in RESOURCES if player["hand"][r] > 0] + \
        [{"id": f"discard:{c}", "label": f"Discard {c} to your scrapyard", "kind": "discard",
          "card": c} for c in sorted(set(player["cargo"]))]


def play_end(state: State, seat: int, move: Move, rng: Rng) -> list[Fact]:
    player = state["seats"][seat]
    if "card" in move:
        player["cargo"].remove(move["card"])
        player["scrapyard"].append(move["card"])
        facts = [fact(f"{who(seat)} discards {move['card']} to the scrapyard.", seat=seat,
                      card=move["card"])]
    else:
        player["hand"][move["resource"]] -= 1
        note_played(state, seat, [move["resource"]])
        state["factory_discard"][move["resource"]] += 1
        facts = [fact(f"{who(seat)} discards a {move['resource']} card.", seat=seat,
                      resource=move["resource"])]
    return facts + _to_end(state, seat)


TRIGGERS = {
    "all_planets": "A player controls all her planets: this round is the last.",
    "ships": "The four Biocultist ship stacks ran out: this round is the last.",
    "factories": "No mega-factory cards are left in the deck or the discard pile: this round "
                 "is the last.",
    "investment": "The investment deck ran out: this round is the last.",
}


def _trigger(state: State, reason: str) -> list[Fact]:
    state["ending"] = reason
    return [fact(TRIGGERS[reason], reason=reason)]


def check_triggers(state: State) -> list[Fact]:
    if state["ending"] is not None or state["phase"] == "choose":
        return []
    if any(all(controls(p, pl) for pl in PLANETS) for p in state["seats"]):
        return _trigger(state, "all_planets")
    if not any(state["earth"].values()):
        return _trigger(state, "ships")
    if not state["factory_deck"] and not any(state["factory_discard"].values()):
        return _trigger(state, "factories")
    return []


def _end_turn(state: State) -> list[Fact]:
    facts = check_triggers(state)
    state["used"] = []
    nxt = (state["active"] + 1) % state["players"]
    if state["ending"] is not None and nxt == 0:  # the round ends before the starting player
        state["phase"] = "over"
        return facts + [fact("The game is over.")]
    state["active"], state["phase"] = nxt, "benefit"
    if nxt == 0:
        state["turn"] += 1
    return facts


MOVES: dict[str, Callable[[State, int], list[Move]]] = {
    "choose": choose_moves, "benefit": benefit_moves, "buying": buying_moves,
    "place": place_moves, "phase3": phase3_moves, "architecton": architecton_moves,
    "produce": produce_moves, "end": end_moves, "react": react_moves,
    "over": lambda state, seat: [],
}

PLAY: dict[str, Callable[[State, int, Move, Rng], list[Fact]]] = {
    "choose": play_choose, "benefit": play_benefit, "buying": play_buying,
    "place": play_place, "phase3": play_phase3, "architecton": play_architecton,
    "produce": play_produce, "end": play_end, "react": play_react,
}


def actors(state: State) -> set[int]:
    if state["phase"] == "over":
        return set()
    if state["phase"] == "choose":
        return {s for s, p in enumerate(state["seats"]) if p["pick"] is None}
    if state["phase"] == "react":
        return {s for s in range(state["players"]) if _open_reaction(state, s) is not None}
    return {state["active"]}


def play(state: State, seat: int, move: Move, rng: Rng) -> tuple[State, list[Fact]]:
    new = copy_state(state)
    facts = PLAY[new["phase"]](new, seat, move, rng)
    if new["phase"] != "over":
        facts += check_triggers(new)
    return new, facts
