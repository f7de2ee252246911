"""High Card: a tiny hidden-information game that implements the whole `Game` contract.

It exists to prove the conformance suite (tests/games/conformance.py) on something small.

Rules. 2-4 players. The deck is the cards 1..12 (1..8 in the "short" variant); each player is
dealt 3 secret cards (2 in the short variant), the rest stay face down in the deck.
1. Ante, all at once: every player who has not yet done so puts one hand card face down. When
   the last ante is in, the antes are turned face up onto their owners' piles.
2. Turns, from seat 0 clockwise: play a hand card face up onto your pile, or, while the deck
   lasts, draw a random card from it. A player with neither is skipped.
3. When every hand and the deck are empty the game is over: highest pile total wins, equal
   totals share the rank.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from marshmallow import Schema, fields

from games.contract import Fact, IllegalMove, Move, ScoreSheet, Seat, State, fact, find_move
from games.rng import Rng
from games.standings import final_standing
from games.text import Section, listed, seat_name, section


class ToyOptions(Schema):
    short = fields.Boolean(load_default=False)


class ToyGame:
    id = "toy-high-card"
    title = "High Card (conformance toy)"
    min_players = 2
    max_players = 4
    rules_version = "1"
    options: type[Schema] = ToyOptions
    take_backs: frozenset[str] = frozenset()
    search_tree_depth: int | None = None

    # -- setup and turn structure ------------------------------------------------------------

    def setup(self, players: int, options: dict[str, Any], rng: Rng) -> State:
        deck_size, hand_size = (8, 2) if options.get("short") else (12, 3)
        deck = list(range(1, deck_size + 1))
        rng.shuffle(deck)
        hands = [sorted(deck[i * hand_size:(i + 1) * hand_size]) for i in range(players)]
        return {
            "phase": "ante",
            "deck": sorted(deck[players * hand_size:]),  # draws are random, order is moot
            "hands": hands,
            "antes": [None] * players,
            "piles": [[] for _ in range(players)],
            "turn": 0,
        }

    def actors(self, state: State) -> set[Seat]:
        if state["phase"] == "ante":
            return {seat for seat, card in enumerate(state["antes"]) if card is None}
        if state["phase"] == "turns":
            return {state["turn"]}
        return set()

    def turn(self, state: State, seat: Seat) -> int:
        return 0  # a seat always stops acting between its turns

    def legal_moves(self, state: State, seat: Seat) -> list[Move]:
        if seat not in self.actors(state):
            return []
        hand = state["hands"][seat]
        if state["phase"] == "ante":
            return [{"id": f"ante:{c}", "label": f"Ante {c} face down", "card": c} for c in hand]
        moves = [{"id": f"play:{c}", "label": f"Play {c}", "card": c} for c in hand]
        if state["deck"]:
            moves.append({"id": "draw", "label": "Draw a card"})
        return moves

    # -- moves ---------------------------------------------------------------------------------

    def play(self, state: State, seat: Seat, move: Move, rng: Rng) -> tuple[State, list[Fact]]:
        chosen = self._lookup(state, seat, move)
        new = self._copy(state)
        if chosen["id"] == "draw":
            facts = self._draw(new, seat, rng)
        elif new["phase"] == "ante":
            facts = self._ante(new, seat, chosen["card"])
        else:
            facts = self._play_card(new, seat, chosen["card"])
        if new["phase"] == "over":
            facts.append(fact("Game over", totals=[sum(p) for p in new["piles"]]))
        return new, facts

    def apply(self, state: State, seat: Seat, move: Move, rng: Rng) -> tuple[State, list[Fact]]:
        return self.play(state, seat, move, rng)  # a toy: checked all the same

    def _copy(self, state: State) -> State:
        return copy.deepcopy(state)

    def _lookup(self, state: State, seat: Seat, move: Move) -> Move:
        if seat not in self.actors(state):
            raise IllegalMove("not_your_turn", f"seat {seat!r} may not act now")
        return find_move(self.legal_moves(state, seat), move)

    def _ante(self, state: State, seat: Seat, card: int) -> list[Fact]:
        state["hands"][seat] = [c for c in state["hands"][seat] if c != card]
        state["antes"][seat] = card
        facts = [fact(f"You put {card} face down", to=[seat], card=card),
                 fact(f"Seat {seat} put a card face down", seat=seat)]
        if all(a is not None for a in state["antes"]):
            antes = state["antes"]
            for owner, ante in enumerate(antes):
                state["piles"][owner].append(ante)
            state["antes"] = [None] * len(antes)
            state["phase"] = "turns"
            self._advance(state, len(antes) - 1)
            facts.append(fact("The antes are turned face up", antes=antes))
        return facts

    def _play_card(self, state: State, seat: Seat, card: int) -> list[Fact]:
        state["hands"][seat] = [c for c in state["hands"][seat] if c != card]
        state["piles"][seat].append(card)
        self._advance(state, seat)
        return [fact(f"Seat {seat} played {card}", seat=seat, card=card)]

    def _draw(self, state: State, seat: Seat, rng: Rng) -> list[Fact]:
        card = state["deck"].pop(rng.randbelow(len(state["deck"])))
        state["hands"][seat] = sorted(state["hands"][seat] + [card])
        self._advance(state, seat)
        return [fact(f"You drew {card}", to=[seat], card=card),
                fact(f"Seat {seat} drew a card", seat=seat)]

    def _advance(self, state: State, seat: Seat) -> None:
        """Pass the turn clockwise to the next seat that can do something, or end the game."""
        players = len(state["hands"])
        for offset in range(1, players + 1):
            nxt = (seat + offset) % players
            if state["hands"][nxt] or state["deck"]:
                state["turn"] = nxt
                return
        state["phase"] = "over"

    # -- what players see ------------------------------------------------------------------------

    def view(self, state: State, seat: Seat | None) -> dict[str, Any]:
        shown: dict[str, Any] = {
            "phase": state["phase"],
            "turn": state["turn"],
            "deck": len(state["deck"]),
            "hand_sizes": [len(h) for h in state["hands"]],
            "anted": [a is not None for a in state["antes"]],
            "piles": state["piles"],
        }
        if seat is not None:
            shown["hand"] = state["hands"][seat]
            shown["my_ante"] = state["antes"][seat]
        return copy.deepcopy(shown)

    def describe(self, view: dict[str, Any], seat: Seat | None, names: Sequence[str]
                 ) -> list[Section]:
        sections = []
        if seat is not None:
            sections.append(section(f"You ({seat_name(names, seat)})", [
                f"Hand: {listed([str(card) for card in view['hand']])}",
                f"Ante: {view['my_ante'] if view['my_ante'] is not None else 'none'}",
                f"Pile: {listed([str(card) for card in view['piles'][seat]])}"]))
        for other, size in enumerate(view["hand_sizes"]):
            if other != seat:
                sections.append(section(seat_name(names, other), [
                    f"Hand: {size} cards", f"Anted: {'yes' if view['anted'][other] else 'no'}",
                    f"Pile: {listed([str(card) for card in view['piles'][other]])}"]))
        return [*sections, section("The table", [f"Deck: {view['deck']} cards"])]

    def determinize(self, state: State, seat: Seat, rng: Rng) -> State:
        """Deal everything `seat` cannot see (deck, other hands, others' face-down antes) anew."""
        new = copy.deepcopy(state)
        others = [s for s in range(len(state["hands"])) if s != seat]
        hidden_antes = [s for s in others if state["antes"][s] is not None]
        pool = new["deck"] + [c for s in others for c in new["hands"][s]]
        pool += [new["antes"][s] for s in hidden_antes]
        pool.sort()  # the seat's knowledge alone decides the deal, not the true order
        rng.shuffle(pool)
        for s in others:
            size = len(new["hands"][s])
            new["hands"][s], pool = sorted(pool[:size]), pool[size:]
        for s in hidden_antes:
            new["antes"][s], pool = pool[0], pool[1:]
        new["deck"] = sorted(pool)
        return new

    # -- the end ---------------------------------------------------------------------------------

    def is_over(self, state: State) -> bool:
        return bool(state["phase"] == "over")

    def score(self, state: State) -> ScoreSheet:
        totals = [sum(pile) for pile in state["piles"]]
        seats = [
            {"seat": s, "total": t, "breakdown": {"piles": t},
             "rank": 1 + sum(other > t for other in totals)}
            for s, t in enumerate(totals)
        ]
        ranking = [e["seat"] for e in sorted(seats, key=lambda e: (e["rank"], e["seat"]))]
        return {"ranking": ranking, "seats": seats}

    def evaluate(self, state: State) -> list[float]:
        """The standing the piles so far would give (games.standings)."""
        return final_standing(self.score(state))

    def search_value(self, state: State) -> list[float]:
        return self.evaluate(state)


GAME = ToyGame()
