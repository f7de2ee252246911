"""The trade step: one request or offer, answered by the opponents, accepted or declined.

A *side* names at most two card types: {"items": [{"card", "n"}, ...], "join": None|"and"|"or"}.
It is composed one atomic move at a time (add an item, "and"/"or", add the second, submit).

Who gives what: in an offer both the offer and every answer (a tender) are given by their
author; in a request both the request and every answer (a demand) are received by their
author. The giver of an "or" side picks which option changes hands at the swap, and only
the two traders learn which.

Phases: "propose" (the active player composes) -> "answer" -> "choose" (accept one answer
or decline) -> "swap" (a giver of an "or" side picks) -> back to the turn's "effects" phase.

Where the rules versions differ (board.as_printed):
- answer: version 1 asks every opponent who has not yet answered or passed at once; version 2
  asks them one at a time, in clockwise order ("In clockwise order, each of your opponents
  ... names the cards he demands").
- swap: version 1 picks for a giver who can honour only one option of its "or", and skips the
  swap when nobody is left to pick, which tells everyone what that giver holds; version 2
  always lets each giver of an "or" pick as a step of its own, even with one option.
- "or" (board.or_counts_match, version 3 on): its second option names as many cards as the
  first.
- answer drafts (board.answers_bind, version 4 on): each drafting step is a move the others
  see (not what it names), so an opponent who has begun drafting an answer ("begun") may no
  longer pass, "and" and "or" follow a first card type whatever the drafter holds, and after
  them the drafter may also say the first type alone. The proposal is composed as before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from games.contract import Fact, Move, fact
from games.res_publica.board import (
    State,
    answers_bind,
    as_printed,
    flip_missions,
    or_counts_match,
    unseen_transfer,
    who,
)
from games.res_publica.cards import (
    CARD_IDS,
    COUNT,
    DATA,
    DECK,
    Hand,
    add,
    counted,
    remove,
    size,
)

Side = dict[str, Any]
REQUEST: Move = {"id": "request", "label": "Request cards", "kind": "trade", "mode": "request"}
OFFER: Move = {"id": "offer", "label": "Offer cards", "kind": "trade", "mode": "offer"}
AND: Move = {"id": "and", "label": "Name a second card type, joined by 'and'", "kind": "and"}
OR: Move = {"id": "or", "label": "Name a second card type, joined by 'or'", "kind": "or"}
SUBMIT: Move = {"id": "submit", "label": "Say it (submit)", "kind": "submit"}
# Version 4, after "and"/"or": the first card type alone is said (the open join is dropped).
SUBMIT_FIRST: Move = {"id": "submit", "label": "Say it without a second card type (submit)",
                      "kind": "submit"}
CANCEL: Move = {"id": "cancel", "label": "Cancel", "kind": "cancel"}
PASS: Move = {"id": "pass", "label": "Pass (no answer)", "kind": "pass"}
DECLINE: Move = {"id": "decline", "label": "Decline all answers", "kind": "decline"}


def empty_side() -> Side:
    return {"items": [], "join": None}


def copy_side(side: Side) -> Side:
    return {"items": [dict(it) for it in side["items"]], "join": side["join"]}


def copy_trade(trade: dict[str, Any]) -> dict[str, Any]:
    """A copy of the trade in progress deep enough for any trade move to edit (keys in order)."""
    copy = {
        **trade,
        "proposal": copy_side(trade["proposal"]),
        "order": list(trade["order"]),
        "answers": {s: None if a is None else copy_side(a) for s, a in trade["answers"].items()},
        "drafts": {s: copy_side(d) for s, d in trade["drafts"].items()},
        "picks": dict(trade["picks"]),
    }
    if "begun" in trade:  # version 4
        copy["begun"] = list(trade["begun"])
    return copy


def describe(side: Side) -> str:
    joiner = f" {side['join']} " if side["join"] else ""
    return joiner.join(counted(it["card"], it["n"]) for it in side["items"]) or "nothing"


def can_give(hand: Hand, side: Side) -> bool:
    """"or": at least one option can be given; otherwise every named item."""
    held = [hand.get(it["card"], 0) >= it["n"] for it in side["items"]]
    return any(held) if side["join"] == "or" else all(held)


def options(hand: Hand, side: Side) -> list[dict[str, Any]]:
    """The "or" options the giver can honour."""
    return [it for it in side["items"] if hand.get(it["card"], 0) >= it["n"]]


def unseen(state: State, seat: int) -> Hand:
    """Copies of each card that `seat` cannot see: not in its hand, a discard pile or under
    a card (a Trooper blocking a Space Station or location)."""
    hand, discards = state["seats"][seat]["hand"], state["discards"]
    placed: Hand = {}
    for player in state["seats"]:
        for card in player["stations"] + player["locations"]:
            if card["trooper"] is not None:
                add(placed, card["trooper"]["card"])
    return {
        c: COUNT[c] - hand.get(c, 0) - discards[DECK[c]].get(c, 0) - placed.get(c, 0)
        for c in CARD_IDS
    }


# --- composing a side ------------------------------------------------------------------


Limits = Callable[[], Hand]  # computes, when needed, the most copies of each card a side may name


def _limits(state: State, seat: int, gives: bool, counterparts: list[int]) -> Limits:
    """Most copies of a card a side may name: what you hold if you give it; if you ask for
    it, what could be hidden in the hands of whoever would give it."""
    if gives:
        return lambda: state["seats"][seat]["hand"]

    def asked() -> Hand:
        most = max((size(state["seats"][s]["hand"]) for s in counterparts), default=0)
        return {card: min(n, most) for card, n in unseen(state, seat).items()}

    return asked


def _add_move(card: str, n: int) -> Move:
    return {"id": f"add:{card}:{n}", "label": f"Name {counted(card, n)}", "kind": "add",
            "card": card, "n": n}


# ADD_MOVES[card][n - 1] names n copies of the card (templates: hand out copies only).
ADD_MOVES: dict[str, list[Move]] = {
    card: [_add_move(card, n) for n in range(1, COUNT[card] + 1)] for card in CARD_IDS
}


def _naming(card: str, most: int) -> list[Move]:
    """Fresh moves naming 1..most copies of `card`."""
    templates = ADD_MOVES[card]
    if most > len(templates):  # more than the game holds: only in hand-edited states
        templates = templates + [_add_move(card, n) for n in range(len(templates) + 1, most + 1)]
    return [dict(m) for m in templates[:most]]


def _add_moves(side: Side, limits: Hand, banned: set[str], count: int | None) -> list[Move]:
    """Naming a card not yet named: 1 to its limit copies, or exactly `count`."""
    named = banned | {it["card"] for it in side["items"]}
    moves: list[Move] = []
    for card in CARD_IDS:
        most = limits.get(card, 0)
        if card in named or most < (count or 1):
            continue
        moves += [m for m in _naming(card, most) if count in (None, m["n"])]
    return moves


def _can_add(side: Side, limits: Hand, banned: set[str], count: int | None = None) -> bool:
    named = banned | {it["card"] for it in side["items"]}
    return any(limits.get(card, 0) >= (count or 1) for card in CARD_IDS if card not in named)


def side_moves(side: Side, limits: Limits, banned: set[str], same_count: bool = False,
               every_join: bool = False) -> list[Move]:
    """The next atomic step of composing a side (without cancel/pass). `same_count` (rules
    version 3): the second option of an "or" names as many cards as the first. `every_join`
    (rules version 4, answers): "and" and "or" follow a first card type whenever the rules of
    naming allow a second (at most two types), whatever the drafter could name; after them it
    names the second type if it can, or says the first alone (`SUBMIT_FIRST`), so the number
    of steps never depends on what it holds and it is never left with cancel alone."""
    items = side["items"]
    if not items:
        return _add_moves(side, limits(), banned, None)
    or_count = items[0]["n"] if same_count else None
    if len(items) == 1 and side["join"]:
        count = or_count if side["join"] == "or" else None
        adds = _add_moves(side, limits(), banned, count)
        return adds + [dict(SUBMIT_FIRST)] if every_join else adds
    if len(items) == 1 and every_join:
        return [dict(SUBMIT), dict(AND), dict(OR)]
    if len(items) == 1 and _can_add(side, limits(), banned):
        joins = [dict(AND)]
        if _can_add(side, limits(), banned, or_count):
            joins.append(dict(OR))
        return [dict(SUBMIT), *joins]
    return [dict(SUBMIT)]


def edit_side(side: Side, move: Move) -> None:
    if move["kind"] == "add":
        side["items"].append({"card": move["card"], "n": move["n"]})
    else:  # "and" / "or"
        side["join"] = move["kind"]


# --- propose ---------------------------------------------------------------------------


def opponents(state: State, seat: int) -> list[int]:
    """The other seats in clockwise order starting left of `seat`."""
    n = state["players"]
    return [(seat + i) % n for i in range(1, n)]


def start_moves(state: State, seat: int) -> list[Move]:
    if not state["seats"][seat]["hand"]:
        return []  # each partner must swap at least one card
    if any(size(state["seats"][s]["hand"]) for s in opponents(state, seat)):
        return [dict(REQUEST), dict(OFFER)]
    return [dict(OFFER)]


def start(state: State, seat: int, mode: str) -> list[Fact]:
    state["trade"] = {
        "by": seat, "mode": mode, "proposal": empty_side(), "order": opponents(state, seat),
        "answers": {}, "drafts": {}, "partner": None, "picks": {},
    }
    if answers_bind(state):  # version 4: the opponents who have begun drafting an answer
        state["trade"]["begun"] = []
    state["phase"] = "propose"
    return []


def propose_moves(state: State, seat: int) -> list[Move]:
    trade = state["trade"]
    limits = _limits(state, seat, trade["mode"] == "offer", trade["order"])
    return side_moves(trade["proposal"], limits, set(), or_counts_match(state)) + [dict(CANCEL)]


def play_propose(state: State, seat: int, move: Move) -> list[Fact]:
    trade = state["trade"]
    if move["kind"] == "cancel":
        state["trade"], state["phase"] = None, "trade"
        return []
    if move["kind"] != "submit":
        edit_side(trade["proposal"], move)
        return []
    trade["drafts"] = {str(s): empty_side() for s in trade["order"]}
    state["phase"] = "answer"
    verb = "requests" if trade["mode"] == "request" else "offers"
    text = f"{who(seat)} {verb} {describe(trade['proposal'])}."
    return [fact(text, seat=seat, mode=trade["mode"], side=copy_side(trade["proposal"]))]


# --- answer ----------------------------------------------------------------------------


def answer_actors(state: State) -> set[int]:
    trade = state["trade"]
    waiting = [s for s in trade["order"] if str(s) not in trade["answers"]]
    if as_printed(state):  # in clockwise order: one opponent at a time
        return set(waiting[:1])
    return set(waiting)


def answer_moves(state: State, seat: int) -> list[Move]:
    trade = state["trade"]
    hand = state["seats"][seat]["hand"]
    draft = trade["drafts"][str(seat)]
    if trade["mode"] == "request" and not can_give(hand, trade["proposal"]):
        return [dict(PASS)]  # an answer must be one the opponent can honour
    limits = _limits(state, seat, trade["mode"] == "offer", [trade["by"]])
    banned = {it["card"] for it in trade["proposal"]["items"]}
    binds = answers_bind(state)
    moves = side_moves(draft, limits, banned, or_counts_match(state), binds)
    moves += [dict(CANCEL)] if draft["items"] else []
    if binds and seat in trade["begun"] and moves:
        # Version 4: having begun an answer (its steps are seen), it answers: a pass now
        # would show the others it could have answered. (No move at all is left only in a
        # world a bot imagines, where the hand dealt cannot answer: then it passes.)
        return moves
    return moves + [dict(PASS)]


def play_answer(state: State, seat: int, move: Move) -> list[Fact]:
    trade = state["trade"]
    key = str(seat)
    drafting = move["kind"] not in ("pass", "submit")
    if drafting and "begun" in trade and seat not in trade["begun"]:
        trade["begun"] = sorted([*trade["begun"], seat])  # version 4: from now on it answers
    if move["kind"] == "cancel":
        trade["drafts"][key] = empty_side()
        return []
    if move["kind"] in ("add", "and", "or"):
        edit_side(trade["drafts"][key], move)
        return []
    if move["kind"] == "pass":
        trade["answers"][key] = None  # None = passed
        facts = [fact(f"{who(seat)} passes.", seat=seat)]
    else:
        answer = trade["drafts"][key]
        if answer["join"] and len(answer["items"]) == 1:
            answer["join"] = None  # version 4: said without a second card type
        trade["answers"][key] = answer
        verb = "tenders" if trade["mode"] == "offer" else "asks for"
        text = f"{who(seat)} {verb} {describe(trade['drafts'][key])}."
        facts = [fact(text, seat=seat, side=copy_side(trade["drafts"][key]))]
    del trade["drafts"][key]
    if not answer_actors(state):
        facts += _answers_done(state)
    return facts


def _answers_done(state: State) -> list[Fact]:
    if any(a is not None for a in state["trade"]["answers"].values()):
        state["phase"] = "choose"
        return []
    return end_trade(state, "Nobody answered; the trade step ends.")


def end_trade(state: State, text: str) -> list[Fact]:
    state["trade"], state["phase"] = None, "effects"
    return [fact(text)]


# --- choose and swap -------------------------------------------------------------------


def givers(trade: dict[str, Any], partner: int) -> list[tuple[int, Side]]:
    """(seat, side it gives) for both traders."""
    answer = trade["answers"][str(partner)]
    if trade["mode"] == "offer":
        return [(trade["by"], trade["proposal"]), (partner, answer)]
    return [(partner, trade["proposal"]), (trade["by"], answer)]


def choose_moves(state: State, seat: int) -> list[Move]:
    trade = state["trade"]
    moves = []
    for partner in trade["order"]:
        answer = trade["answers"][str(partner)]
        if answer is None:
            continue
        pairs = givers(trade, partner)
        if all(can_give(state["seats"][g]["hand"], side) for g, side in pairs):
            label = f"Accept {who(partner)}: {describe(answer)}"
            moves.append({"id": f"accept:{partner}", "label": label, "kind": "accept",
                          "seat": partner})
    return moves + [dict(DECLINE)]


def play_choose(state: State, seat: int, move: Move) -> list[Fact]:
    trade = state["trade"]
    if move["kind"] == "decline":
        return end_trade(state, f"{who(seat)} declines all answers; the trade step ends.")
    partner = move["seat"]
    trade["partner"] = partner
    if not as_printed(state):  # version 1 only: this shows the others what the giver holds
        _pick_the_only_options(state, partner)
    facts = [fact(f"{who(seat)} accepts the answer of {who(partner)}.", seat=seat,
                  partner=partner)]
    if swap_actors(state):
        state["phase"] = "swap"
        return facts
    return facts + _swap(state)


def _pick_the_only_options(state: State, partner: int) -> None:
    """Version 1: a giver of an "or" who can honour one option only gives that one."""
    trade = state["trade"]
    for giver, side in givers(trade, partner):
        honourable = options(state["seats"][giver]["hand"], side)
        if side["join"] == "or" and len(honourable) == 1:
            trade["picks"][str(giver)] = honourable[0]["card"]


def swap_actors(state: State) -> set[int]:
    trade = state["trade"]
    return {
        giver
        for giver, side in givers(trade, trade["partner"])
        if side["join"] == "or" and str(giver) not in trade["picks"]
    }


def swap_moves(state: State, seat: int) -> list[Move]:
    trade = state["trade"]
    side = dict(givers(trade, trade["partner"]))[seat]
    return [
        {"id": f"give:{it['card']}", "label": f"Give {counted(it['card'], it['n'])}",
         "kind": "pick", "card": it["card"]}
        for it in options(state["seats"][seat]["hand"], side)
    ]


def play_swap(state: State, seat: int, move: Move) -> list[Fact]:
    state["trade"]["picks"][str(seat)] = move["card"]
    return [] if swap_actors(state) else _swap(state)


def _swap(state: State) -> list[Fact]:
    """Both traders hand over the named cards (the picked option of an "or")."""
    trade = state["trade"]
    by, partner = trade["by"], trade["partner"]
    pairs = givers(trade, partner)
    given = []
    for giver, side in pairs:
        pick = trade["picks"].get(str(giver))
        items = [it for it in side["items"] if pick in (None, it["card"])]
        taker = partner if giver == by else by
        for it in items:
            remove(state["seats"][giver]["hand"], it["card"], it["n"])
            add(state["seats"][taker]["hand"], it["card"], it["n"])
        given.append(" and ".join(counted(it["card"], it["n"]) for it in items))
    if any(side["join"] == "or" and len({DECK[it["card"]] for it in side["items"]}) > 1
           for _, side in pairs):
        unseen_transfer(state, by, partner)  # the pick told the others no deck
    public = "; ".join(f"{who(g)} gives {describe(side)}" for g, side in pairs)
    facts = [fact(f"Trade: {public}.", seats=[by, partner])]
    if any(side["join"] == "or" for _, side in pairs):
        told = zip(pairs, given, strict=True)
        secret = "; ".join(f"{who(g)} gave {text}" for (g, _), text in told)
        facts.append(fact(f"Trade (secret): {secret}.", to=[by, partner],
                          picks=dict(trade["picks"])))
    facts += _place_token(state, by)
    return facts + end_trade(state, "The trade step ends.")


def _place_token(state: State, seat: int) -> list[Fact]:
    """A trade accepted on your own turn puts one of your Trade tokens on the mission."""
    player, tokens = state["seats"][seat], DATA["setup"]["trade_tokens"]
    if player["trades"] >= tokens:
        return []
    player["trades"] += 1
    text = f"{who(seat)} places a Trade token ({player['trades']} of {tokens})."
    return [fact(text, seat=seat)] + flip_missions(state, seat)
