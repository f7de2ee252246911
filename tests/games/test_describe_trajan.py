"""Trajan's table in words (games/trajan/describe.py), on real views from random legal play.

Rules summary: /work/shared/rulebooks/trajan.txt; the description names things as the
moves' labels do (games/trajan/describe.py docstring).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

import pytest

from games.registry import get_game
from games.rng import Rng
from games.text import Section, as_text
from games.trajan.board import COMMODITIES

GAME = get_game("trajan")
NAMES = ["alice", "bob", "carol", "dave"]
State = dict[str, Any]


def states(players: int, seed: int, game: Any = GAME) -> Iterator[State]:
    """Every state of one whole game of random legal moves (the newest rules unless told)."""
    rng = Rng(b"describe-trajan-%d" % seed, 1)
    choose = random.Random(seed)
    state = game.setup(players, {}, rng)
    yield state
    while not game.is_over(state):
        seat = min(game.actors(state))
        move = choose.choice(game.legal_moves(state, seat))
        state, _ = game.play(state, seat, move, rng)
        yield state


def text_of(sections: list[Section]) -> str:
    return as_text(sections)


def mentions(text: str, card: str) -> bool:
    """`card` as a word of its own (not inside a bonus tile id such as "B-salt-wool")."""
    return re.search(rf"(?<![\w-]){re.escape(card)}(?![\w-])", text) is not None


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_describe_every_seat(players: int) -> None:
    names = NAMES[:players]
    titles_seen: set[str] = set()
    for i, state in enumerate(states(players, players)):
        if i % 5 and not GAME.is_over(state) and state["phase"] not in ("bonus", "load"):
            continue
        for seat in [None, *range(players)]:
            sections = GAME.describe(GAME.view(state, seat), seat, names)
            assert sections and all(s.title for s in sections)
            for part in sections:
                assert part.lines, part.title
                assert all(isinstance(line, str) and line.strip() for line in part.lines)
                assert all(len(line) < 78 for line in part.lines), part.lines
            titles = [s.title for s in sections]
            titles_seen.update(titles)
            if seat is not None:
                assert titles[0] == f"You ({names[seat]})"
            others = [n for s, n in enumerate(names) if s != seat]
            assert all(n in titles for n in others)
    # the random games reach a senate vote, a shipment and the end
    assert {"Senate vote", "Final score"} <= titles_seen


def test_hand_names_are_the_labels_names() -> None:
    """A move that names a card of the hand ("Discard wool to the left pile") names it as
    the viewer's section does."""
    checked = 0
    for state in states(3, 7):
        if state["phase"] != "discard":
            continue
        seat = state["active"]
        own = GAME.describe(GAME.view(state, seat), seat, NAMES[:3])[0]
        hand = next(line for line in own.lines if line.startswith("Hand: "))
        for move in GAME.legal_moves(state, seat):
            assert move["card"] in move["label"]
            assert state["seats"][seat]["hand"][move["card"]] > 0
            assert mentions(hand, move["card"]), (hand, move["label"])
            checked += 1
    assert checked


def _public_cards(state: State, viewer: int | None) -> set[str]:
    """Commodities the viewer can see anywhere: its own hand, every display, every
    discard pile, every seat's known cards."""
    seen: set[str] = {c for pile in state["piles"] for c in pile}
    for s, p in enumerate(state["seats"]):
        seen |= {c for c, n in p["display"].items() if n} | {c for c, n in p["known"].items() if n}
        if s == viewer:
            seen |= {c for c, n in p["hand"].items() if n}
    return seen


def test_no_other_hand_leaks() -> None:
    """Another seat's hidden cards appear in neither a spectator's nor a seat's table."""
    checked = 0
    for state in (s for seed in range(11, 16) for s in states(3, seed)):
        if state["phase"] in ("over", "load"):
            continue
        viewer, other = 0, 1
        secret = [c for c in COMMODITIES if state["seats"][other]["hand"][c]
                  and c not in _public_cards(state, viewer)]
        if not secret:
            continue
        for seat in (None, viewer):
            text = text_of(GAME.describe(GAME.view(state, seat), seat, NAMES[:3]))
            assert not any(mentions(text, c) for c in secret), secret
        owner = text_of(GAME.describe(GAME.view(state, other), other, NAMES[:3]))
        assert all(mentions(owner, c) for c in secret)  # its owner does see them
        checked += 1
        if checked >= 5:
            break
    assert checked


def test_the_rulebooks_names() -> None:
    """"Move a worker from their personal supply to the military camp." / "Move a worker
    from their personal supply to the worker camp." / "Reveal the top two cards and put one
    face up on each side of the deck, creating the discard piles." / "Each player must meet
    the people's demands." / "Each player takes ... 1 Trajan arch" """
    state = next(s for s in states(2, 3) if s["phase"] == "choose")
    sections = GAME.describe(GAME.view(state, 0), 0, NAMES[:2])
    own = "\n".join(sections[0].lines)
    assert "personal supply" in own and "military camp" in own and "worker camp" in own
    assert "arch on slot" in own
    by_title = {s.title: s for s in sections}
    assert any("discard pile" in line for line in by_title["Seaport"].lines)
    assert "The people's demands" in by_title


def test_spectator_sees_every_seat_by_name() -> None:
    state = next(s for s in states(3, 5) if s["phase"] == "choose")
    sections = GAME.describe(GAME.view(state, None), None, NAMES[:3])
    assert [s.title for s in sections[:3]] == NAMES[:3]
    assert all(line.startswith("Hand: ") and "card" in line
               for s in sections[:3] for line in s.lines if line.startswith("Hand: "))


@pytest.mark.parametrize("version", ["1", "2"])
def test_every_rules_version_names_the_provinces_tiles(version: str) -> None:
    """The military map in words under either rules version: a version 1 province's one
    tile, a version 2 province's pile ("2 tiles: bread, games"), each named as the military
    move's label names it; every line short."""
    game = get_game("trajan", version)
    piles = 0
    for i, state in enumerate(states(4, 21, game)):
        if i % 7:
            continue
        view = game.view(state, None)
        military = next(s for s in game.describe(view, None, NAMES) if s.title == "Military")
        assert all(len(line) < 78 for line in military.lines)
        for pr in view["military"]["provinces"]:
            tiles = pr["tiles"] if version == "2" else [pr["tile"]] if pr["tile"] else []
            line = next(ln for ln in military.lines if ln.startswith(pr["name"] + " ("))
            if len(tiles) == 1:
                assert f"{tiles[0]['kind'].replace('_', ' ')} tile" in line
            elif len(tiles) > 1:
                piles += 1
                assert f"{len(tiles)} tiles: " in " ".join(military.lines)
    assert piles or version == "1"
