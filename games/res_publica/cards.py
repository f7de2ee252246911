"""Component data from cards.json, and small helpers on hands.

A hand (or a discard pile) is a dict {card id: count} without zero entries, so two
identical cards are simply a count of 2. Decks are lists of card ids, top = last.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DATA: dict[str, Any] = json.loads((Path(__file__).parent / "cards.json").read_text())
CARDS: dict[str, dict[str, Any]] = DATA["cards"]
CARD_IDS: list[str] = list(CARDS)
DISPLAYS: dict[str, dict[str, Any]] = DATA["displays"]
MISSIONS: dict[str, dict[str, Any]] = DATA["missions"]
LOCATIONS: dict[str, dict[str, Any]] = DATA["locations"]
SCORE_PILES: dict[str, dict[str, Any]] = DATA["score_piles"]

Hand = dict[str, int]


# Per-card lookup tables (the hot paths read these instead of the nested data).
NAMES: dict[str, str] = {c: str(spec["name"]) for c, spec in CARDS.items()}
CATEGORY: dict[str, str] = {c: str(spec["category"]) for c, spec in CARDS.items()}
DECK: dict[str, str] = {c: str(spec["deck"]) for c, spec in CARDS.items()}
COUNT: dict[str, int] = {c: int(spec["count"]) for c, spec in CARDS.items()}
KEYWORDS: dict[str, frozenset[str]] = {c: frozenset(spec["keywords"]) for c, spec in CARDS.items()}


def name(card: str) -> str:
    return NAMES[card]


def has(card: str, keyword: str) -> bool:
    return keyword in KEYWORDS[card]


def category(card: str) -> str:
    return CATEGORY[card]


def pair_points(hand: Hand) -> int:
    """"Each pair of identical cards remaining in your hand scores 1 point" (grey cards form
    no pairs: decision 2)."""
    return sum(n // 2 for c, n in hand.items() if category(c) != "grey")


def grey_points(hand: Hand) -> int:
    """"Each Trooper or Pilot in your hand counts for 1 point"."""
    return sum(n for c, n in hand.items() if category(c) == "grey")


def deck_of(card: str) -> str:
    """Which deck (and so which discard pile) the card belongs to: "race" or "tech"."""
    return DECK[card]


def with_keyword(keyword: str) -> list[str]:
    return [c for c in CARD_IDS if has(c, keyword)]


def of_category(cat: str) -> list[str]:
    return [c for c in CARD_IDS if category(c) == cat]


def full_deck(deck: str) -> list[str]:
    return [c for c in CARD_IDS if deck_of(c) == deck for _ in range(CARDS[c]["count"])]


def add(hand: Hand, card: str, n: int = 1) -> None:
    hand[card] = hand.get(card, 0) + n


def remove(hand: Hand, card: str, n: int = 1) -> None:
    left = hand.get(card, 0) - n
    if left < 0:
        raise ValueError(f"not enough {card}")
    if left:
        hand[card] = left
    else:
        del hand[card]


def size(hand: Hand) -> int:
    return sum(hand.values())


def counted(card: str, n: int) -> str:
    return f"{n} {NAMES[card]}"


def listing(cards: Hand) -> str:
    """'2 Terrans, 1 Pilot' in data order (or 'nothing')."""
    parts = [counted(c, cards[c]) for c in CARD_IDS if cards.get(c)]
    return ", ".join(parts) or "nothing"
