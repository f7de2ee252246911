"""Res Publica 2230 AD as a state machine of named phases.

A turn walks forward through three phases; each also offers the moves of the later ones,
so a player may skip ahead but never go back:

    trade   -> request / offer (then propose -> answer -> choose -> swap, see trade.py)
    effects -> play Troopers, use a New Colony (sub-phase "colony")
    display -> display groups of cards
    (draw)  -> the mandatory draw ends the turn; it is offered in all three phases

When the game ends: "reveal" (from the finishing player clockwise, each may still display
for Stations and Cities, then says "done"), then "over".

Five rules versions share this code (README "Rules versions"): a state of version 2 or later
carries "rules": N, and `as_printed(state)` switches where the printed rules differ from
version 1: the fourth mission ends the game at once (`play`), Troopers are all discarded when
the game ends (`end_game`), and the stall end waits until nobody can ever draw again
(`end_turn`). The trade step has the other two differences, and those of versions 3 and 4
(trade.py); version 4 also counts what each draw option draws (`draw_options`); version 5
only groups tied seats in the score sheet's `ranking` (`score`).

Each phase has ONE function listing its legal moves (MOVES) and one applying them (PLAY).
State is plain JSON data; `play` works on a copy of the parts the move changes (FOOTPRINT).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from games.contract import Fact, Move, fact
from games.res_publica import trade
from games.res_publica.board import (
    State,
    active_locations,
    active_stations,
    as_printed,
    block,
    blockable,
    copy_player,
    draws_counted,
    new_player,
    release_all_troopers,
    release_troopers,
    ties_as_lists,
    unseen_transfer,
    who,
)
from games.res_publica.cards import (
    CARD_IDS,
    DATA,
    LOCATIONS,
    MISSIONS,
    SCORE_PILES,
    Hand,
    add,
    category,
    deck_of,
    full_deck,
    grey_points,
    listing,
    name,
    pair_points,
    remove,
    size,
    with_keyword,
)
from games.res_publica.displays import apply_display, display_moves
from games.rng import Rng
from games.standings import rank_tied_together

TROOPERS = with_keyword("trooper")
DONE: Move = {"id": "done", "label": "Done displaying", "kind": "done"}


# --- copy-on-write: `play` copies only the parts of the state a move may change -----------

# The top-level parts each kind of move changes in place (below the top level). Everything
# else is shared between the old and the new state, so no code may mutate it in place:
# reassigning a top-level key ("phase", "trade" = None, ...) is always fine.
FOOTPRINT: dict[str, tuple[str, ...]] = {
    "trade": (),  # a new trade dict replaces None
    "use": (),  # a new colony dict replaces None
    "trooper": ("seats",),
    "display": ("seats", "discards", "piles", "locations"),
    "draw": ("seats", "decks", "discards"),  # the end of the turn releases Troopers
    "add": ("trade",),
    "and": ("trade",),
    "or": ("trade",),
    "submit": ("trade",),
    "pass": ("trade",),
    "cancel": ("trade",),  # a draft is reset (the other cancels reassign only)
    "accept": ("trade", "seats"),  # the swap: hands, Trade tokens, missions
    "decline": (),  # the trade ends: None replaces it
    "pick": ("trade", "seats"),
    "give": ("colony", "seats"),
    "discard": ("colony", "seats", "discards"),
    "take": ("colony", "seats", "discards"),
    "done": ("reveal",),
}


COPIERS: dict[str, Callable[[Any], Any]] = {
    "seats": lambda seats: [copy_player(p) for p in seats],
    "decks": lambda decks: {deck: list(cards) for deck, cards in decks.items()},
    "discards": lambda piles: {deck: dict(pile) for deck, pile in piles.items()},
    "piles": lambda piles: {pile: list(values) for pile, values in piles.items()},
    "locations": dict,
    "trade": lambda t: None if t is None else trade.copy_trade(t),
    "colony": lambda colony: None if colony is None else dict(colony),
    "reveal": lambda reveal: None if reveal is None else dict(reveal),
}


# What the end of the game changes in place (the reveal is reassigned).
GAME_END_FOOTPRINT = ("seats", "discards")  # Troopers go to the discard pile (version 2)


def play(state: State, seat: int, move: Move) -> tuple[State, list[Fact]]:
    """Apply a legal move to a copy: new containers for what it changes, the rest shared."""
    new = dict(state)
    for part in FOOTPRINT[move["kind"]]:
        new[part] = COPIERS[part](state[part])
    facts = PLAY[new["phase"]](new, seat, move)
    if _fourth_mission_ends_now(new):
        for part in GAME_END_FOOTPRINT:  # a trade or a display may end it: copy what is shared
            if new[part] is state[part]:
                new[part] = COPIERS[part](state[part])
        facts += end_game(new, new["active"], FOUR_MISSIONS)
    return new, facts


def _fourth_mission_ends_now(state: State) -> bool:
    """Version 2: "The game ends ... when a player completes all 4 missions": nothing more of
    that turn is played. (Version 1 plays the turn on to the draw: `_game_end`.)"""
    return as_printed(state) and state["ending"] and state["phase"] not in ("reveal", "over")


# --- setup -------------------------------------------------------------------------------


def setup(players: int, rng: Rng, rules: int = 1) -> State:
    """The dealt table under rules version `rules` (1 to 5; version 1 states carry no
    key)."""
    decks = {deck: full_deck(deck) for deck in DATA["decks"]}
    for cards in decks.values():
        rng.shuffle(cards)
    seats = [new_player() for _ in range(players)]
    for player in seats:
        for _ in range(DATA["setup"]["start_hand"]):
            add(player["hand"], decks[DATA["setup"]["start_deck"]].pop())
    state: State = {
        "players": players,
        "phase": "trade",
        "active": 0,  # "The oldest player begins": seat 0
        "turn": 1,
        "decks": decks,
        "discards": {deck: {} for deck in DATA["decks"]},
        "piles": {pile: list(spec["values"]) for pile, spec in SCORE_PILES.items()},
        "locations": {loc: spec["count"] for loc, spec in LOCATIONS.items()},
        "seats": seats,
        "trade": None,
        "colony": None,
        "reveal": None,
        "ending": False,  # a player completed all four missions (v1: the turn goes on)
        "dry_turns": 0,  # consecutive turns in which nobody drew a card
    }
    if rules >= 2:
        del state["dry_turns"]
        # The turn at whose end nobody could ever draw again (None: somebody still can).
        state["stalled_since"] = None
        state["rules"] = rules
    return state


# --- the turn phases: trade -> effects -> display, draw ends the turn --------------------


def trade_phase_moves(state: State, seat: int) -> list[Move]:
    return trade.start_moves(state, seat) + effects_moves(state, seat)


def effects_moves(state: State, seat: int) -> list[Move]:
    own = trooper_moves(state, seat) + colony_use_moves(state, seat)
    return own + display_phase_moves(state, seat)


def display_phase_moves(state: State, seat: int) -> list[Move]:
    return display_moves(state, seat) + draw_moves(state, seat)


def play_turn(state: State, seat: int, move: Move) -> list[Fact]:
    kind = move["kind"]
    if kind == "trade":
        return trade.start(state, seat, move["mode"])
    if kind == "trooper":
        state["phase"] = "effects"
        return play_trooper(state, seat, move)
    if kind == "use":
        return start_colony(state, seat)
    if kind == "display":
        state["phase"] = "display"
        return apply_display(state, seat, move)
    return draw(state, seat, move)


# --- Troopers ----------------------------------------------------------------------------


def trooper_moves(state: State, seat: int) -> list[Move]:
    held = [c for c in TROOPERS if state["seats"][seat]["hand"].get(c)]
    if not held:
        return []
    return [
        {"id": f"trooper:{other}:{target}", "kind": "trooper", "card": held[0], "seat": other,
         "target": target, "label": f"Play a {name(held[0])} on {who(other)}'s {_target(target)}"}
        for other in trade.opponents(state, seat)
        for target in blockable(state["seats"][other])
    ]


def _target(target: str) -> str:
    return "Space Station" if target == "station" else str(LOCATIONS[target]["name"])


def play_trooper(state: State, seat: int, move: Move) -> list[Fact]:
    remove(state["seats"][seat]["hand"], move["card"])
    block(state["seats"][move["seat"]], move["target"], move["card"], seat)
    text = f"{who(seat)} blocks {who(move['seat'])}'s {_target(move['target'])} with a Trooper."
    return [fact(text, seat=seat, target_seat=move["seat"], target=move["target"])]


# --- New Colony: give a card, discard a card, take a non-grey card from a discard pile ---


def _unused_colonies(state: State, seat: int) -> list[dict[str, Any]]:
    return [loc for loc in active_locations(state["seats"][seat], "colony") if not loc["used"]]


def colony_use_moves(state: State, seat: int) -> list[Move]:
    if not _unused_colonies(state, seat) or size(state["seats"][seat]["hand"]) < 2:
        return []
    return [{"id": "use:colony", "label": "Use your New Colony", "kind": "use"}]


def start_colony(state: State, seat: int) -> list[Fact]:
    state["colony"] = {"step": "give", "back": state["phase"]}
    state["phase"] = "colony"
    return []


def _takeable(state: State) -> list[str]:
    return [
        c for c in CARD_IDS if category(c) != "grey" and state["discards"][deck_of(c)].get(c)
    ]


def colony_moves(state: State, seat: int) -> list[Move]:
    step, hand = state["colony"]["step"], state["seats"][seat]["hand"]
    held = [c for c in CARD_IDS if hand.get(c)]
    if step == "give":
        return [
            {"id": f"give:{c}:{other}", "label": f"Give {name(c)} to {who(other)}",
             "kind": "give", "card": c, "seat": other}
            for c in held
            for other in trade.opponents(state, seat)
        ] + [{"id": "cancel", "label": "Cancel", "kind": "cancel"}]
    if step == "discard":
        return [
            {"id": f"discard:{c}", "label": f"Discard {name(c)}", "kind": "discard", "card": c}
            for c in held
        ]
    return [
        {"id": f"take:{c}", "label": f"Take {name(c)} from the discard pile", "kind": "take",
         "card": c}
        for c in _takeable(state)
    ]


def play_colony(state: State, seat: int, move: Move) -> list[Fact]:
    if move["kind"] == "cancel":
        state["phase"], state["colony"] = state["colony"]["back"], None
        return []
    if move["kind"] == "give":
        return _colony_give(state, seat, move["card"], move["seat"])
    if move["kind"] == "discard":
        return _colony_discard(state, seat, move["card"])
    return _colony_take(state, seat, move["card"])


def _colony_give(state: State, seat: int, card: str, other: int) -> list[Fact]:
    _unused_colonies(state, seat)[0]["used"] = True
    remove(state["seats"][seat]["hand"], card)
    add(state["seats"][other]["hand"], card)
    unseen_transfer(state, seat, other)
    state["colony"]["step"] = "discard"
    return [
        fact(f"{who(seat)} uses a New Colony and gives a card to {who(other)}.", seat=seat,
             other=other),
        fact(f"{who(seat)} gives {name(card)} to {who(other)}.", to=[seat, other], card=card),
    ]


def _colony_discard(state: State, seat: int, card: str) -> list[Fact]:
    remove(state["seats"][seat]["hand"], card)
    add(state["discards"][deck_of(card)], card)
    state["colony"]["step"] = "take"
    if not _takeable(state):  # only grey cards in the discard piles: nothing to take
        state["phase"], state["colony"] = "effects", None
    return [fact(f"{who(seat)} discards {name(card)}.", seat=seat, card=card)]


def _colony_take(state: State, seat: int, card: str) -> list[Fact]:
    remove(state["discards"][deck_of(card)], card)
    add(state["seats"][seat]["hand"], card)
    state["phase"], state["colony"] = "effects", None
    return [fact(f"{who(seat)} takes {name(card)} from the discard pile.", seat=seat, card=card)]


# --- drawing and the end of a turn ---------------------------------------------------------


def draw_options(state: State, seat: int) -> list[tuple[int, int]]:
    """(race, tech) card counts the player may draw: all they are entitled to, at most 3.
    Version 4: the counts of what each option draws, the Technology deck being short ("the
    player draws what is left", README decision 9); two options drawing the same are one.
    (Versions 1 to 3 count what the option entitles to, and draw what is left.)"""
    rule = DATA["draw"]
    race = min(rule["race"], len(state["decks"]["race"]))
    tech = active_stations(state["seats"][seat]) * rule["tech_per_station"]
    total = min(race + tech, rule["max"])
    options = [(r, total - r) for r in range(race, -1, -1) if total - r <= tech]
    if not draws_counted(state):
        return options
    left = len(state["decks"]["tech"])
    drawn: list[tuple[int, int]] = []
    for r, t in options:
        if (r, min(t, left)) not in drawn:
            drawn.append((r, min(t, left)))
    return drawn


def draw_moves(state: State, seat: int) -> list[Move]:
    options = draw_options(state, seat)
    return [dict(_draw_move(race, tech, len(options) == 1)) for race, tech in options]


@cache
def _draw_move(race: int, tech: int, only: bool) -> Move:
    """The move drawing (race, tech) cards (a template: hand out copies only)."""
    code = (f"{race}r" if race else "") + (f"{tech}t" if tech else "")
    what = " + ".join(
        text for n, text in ((race, f"{race} Race"), (tech, f"{tech} Technology")) if n
    )
    label = f"Draw {what or 'nothing'} and end your turn"
    move_id = "draw" if only else f"draw:{code}"
    return {"id": move_id, "label": label, "kind": "draw", "race": race, "tech": tech}


def draw(state: State, seat: int, move: Move) -> list[Fact]:
    hand = state["seats"][seat]["hand"]
    drawn: Hand = {}
    got = {}
    for deck in DATA["decks"]:  # the move says how many from each: move["race"], move["tech"]
        cards = state["decks"][deck]
        got[deck] = min(move[deck], len(cards))  # a short deck gives what it has
        for _ in range(got[deck]):
            card = cards.pop()
            add(hand, card)
            add(drawn, card)
    facts = [
        fact(f"{who(seat)} draws {size(drawn)} card(s).", seat=seat, **got),
        fact(f"You draw {listing(drawn)}.", to=[seat], cards=drawn),
    ]
    return facts + end_turn(state, seat, size(drawn))


LAST_TECH = "The last Technology card has been drawn: the game ends."
FOUR_MISSIONS = "A player has completed all four missions: the game ends."
DRY_ROUND = "Nobody could draw a card for a whole round: the game ends."  # version 1
STALLED = "Nobody can draw a card any more, for a whole round now: the game ends."  # version 2


def end_turn(state: State, seat: int, drawn: int) -> list[Fact]:
    facts = release_troopers(state, seat)
    for loc in state["seats"][seat]["locations"]:
        loc["used"] = False
    if as_printed(state):
        _note_stall(state)
    else:
        state["dry_turns"] = 0 if drawn else state["dry_turns"] + 1
    reason = _game_end(state)
    if reason is None:
        state["active"] = (seat + 1) % state["players"]
        state["turn"] += 1
        state["phase"] = "trade"
        return facts
    return facts + end_game(state, seat, reason)


def _game_end(state: State) -> str | None:
    if not state["decks"]["tech"]:
        return LAST_TECH
    if state["ending"]:  # version 1 only: version 2 has ended the game already (`play`)
        return FOUR_MISSIONS
    if as_printed(state):
        stalled_since = state["stalled_since"]
        if stalled_since is not None and state["turn"] - stalled_since >= state["players"]:
            return STALLED
        return None
    if state["dry_turns"] >= state["players"]:
        return DRY_ROUND
    return None


def nobody_can_draw(state: State) -> bool:
    """The Race deck is empty and no player owns a Space Station (blocked or not): nobody can
    ever draw again, unless somebody builds a Station."""
    return not state["decks"]["race"] and not any(p["stations"] for p in state["seats"])


def _note_stall(state: State) -> None:
    """Version 2, at the end of each turn: since which turn's end nobody can draw any more.
    Only a draw empties the Race deck and Stations are never lost, so the stall begins at the
    end of a turn and ends only when somebody builds a Station; the game ends once every
    player has had a whole turn in it."""
    if not nobody_can_draw(state):
        state["stalled_since"] = None
    elif state["stalled_since"] is None:
        state["stalled_since"] = state["turn"]


def end_game(state: State, finisher: int, reason: str) -> list[Fact]:
    """The game ends: the final reveal starts with the player whose turn ended it."""
    facts = [fact(reason)]
    if as_printed(state):  # the reveal is nobody's turn: no Trooper blocks anything in it
        facts += release_all_troopers(state)
    return facts + start_reveal(state, finisher)


# --- the final reveal and scoring ----------------------------------------------------------


def start_reveal(state: State, first: int) -> list[Fact]:
    n = state["players"]
    state["phase"] = "reveal"
    state["reveal"] = {"order": [(first + i) % n for i in range(n)], "index": 0}
    hands = {str(s): dict(p["hand"]) for s, p in enumerate(state["seats"])}
    text = "All players reveal their hands: " + "; ".join(
        f"{who(s)}: {listing(p['hand'])}" for s, p in enumerate(state["seats"])
    )
    return [fact(text + ".", hands=hands)]


def reveal_seat(state: State) -> int:
    reveal = state["reveal"]
    return int(reveal["order"][reveal["index"]])


def reveal_moves(state: State, seat: int) -> list[Move]:
    return display_moves(state, seat, ("station", "city")) + [dict(DONE)]


def play_reveal(state: State, seat: int, move: Move) -> list[Fact]:
    if move["kind"] == "display":
        return apply_display(state, seat, move)
    state["reveal"]["index"] += 1
    if state["reveal"]["index"] == state["players"]:
        state["phase"] = "over"
        return [fact("The game is over.")]
    return [fact(f"{who(seat)} is done displaying.", seat=seat)]


def breakdown(state: State, seat: int) -> dict[str, int]:
    player = state["seats"][seat]
    hand = player["hand"]
    return {
        "stations": sum(s["points"] for s in player["stations"]),
        "cities": sum(player["cities"]),
        "resorts": sum(player["resorts"]),
        "missions": sum(MISSIONS[m]["points"] for m, done in player["missions"].items() if done),
        "pairs": pair_points(hand),
        "grey": grey_points(hand),
    }


def score(state: State) -> dict[str, Any]:
    """The score sheet. Ties share the rank (decision 13: the rulebook prints no tie-break);
    `ranking` lists the seats best first, tied seats as one list from rules version 5
    (`board.ties_as_lists`), one by one in seat order before."""
    parts = [breakdown(state, seat) for seat in range(state["players"])]
    totals = [sum(part.values()) for part in parts]
    sheets: list[dict[str, Any]] = [
        {"seat": seat, "total": total, "breakdown": parts[seat],
         "rank": 1 + sum(1 for other in totals if other > total)}
        for seat, total in enumerate(totals)
    ]
    ranking: list[int | list[int]]
    if ties_as_lists(state):  # version 5: seats sharing a rank are one list
        # No tie-break is printed (decision 13): equal totals share the rank.
        ranking = rank_tied_together([{**s, "tiebreak": 0} for s in sheets])
    else:  # versions 1 to 4: every seat alone, tied seats in seat order (as recorded)
        ranking = [s["seat"] for s in sorted(sheets, key=lambda s: (s["rank"], s["seat"]))]
    return {"seats": sheets, "ranking": ranking}


# --- dispatch ------------------------------------------------------------------------------

MOVES: dict[str, Callable[[State, int], list[Move]]] = {
    "trade": trade_phase_moves,
    "effects": effects_moves,
    "display": display_phase_moves,
    "propose": trade.propose_moves,
    "answer": trade.answer_moves,
    "choose": trade.choose_moves,
    "swap": trade.swap_moves,
    "colony": colony_moves,
    "reveal": reveal_moves,
    "over": lambda state, seat: [],
}

PLAY: dict[str, Callable[[State, int, Move], list[Fact]]] = {
    "trade": play_turn,
    "effects": play_turn,
    "display": play_turn,
    "propose": trade.play_propose,
    "answer": trade.play_answer,
    "choose": trade.play_choose,
    "swap": trade.play_swap,
    "colony": play_colony,
    "reveal": play_reveal,
}


def actors(state: State) -> set[int]:
    phase = state["phase"]
    if phase == "over":
        return set()
    if phase == "answer":
        return trade.answer_actors(state)
    if phase == "swap":
        return trade.swap_actors(state)
    if phase == "reveal":
        return {reveal_seat(state)}
    return {int(state["active"])}
