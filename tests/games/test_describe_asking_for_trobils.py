"""Asking for Trobils `describe`: the table in words, from a seat's view alone.

Rulebook: /work/shared/rulebooks/asking-for-trobils.txt. The description names every card,
location and resource as the legal moves' labels do, and never names another seat's
face-down Trobils ("Once a Trobil Card is flipped over, only the owner may look at the card.").
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

import pytest

from games.asking_for_trobils.cards import name as card_name
from games.registry import get_game
from games.rng import Rng
from games.text import Section, as_text

GAME = get_game("asking-for-trobils")
NAMES = ["alice", "bob", "carol", "dave", "erin", "frank", "grace"]
State = dict[str, Any]


def play(players: int, seed: int) -> Iterator[State]:
    """Every state of a whole random game, from setup to the end."""
    chooser = random.Random(seed)
    state = GAME.setup(players, {}, Rng(b"describe-%d" % seed, 1))
    yield state
    step = 0
    while not GAME.is_over(state):
        seat = chooser.choice(sorted(GAME.actors(state)))
        move = chooser.choice(GAME.legal_moves(state, seat))
        state, _ = GAME.play(state, seat, {"id": move["id"]}, Rng(b"play-%d" % seed, step))
        step += 1
        yield state


def describe(state: State, seat: int | None) -> list[Section]:
    names = NAMES[: state["players"]]
    return GAME.describe(GAME.view(state, seat), seat, names)


def text_of(sections: list[Section], title: str) -> str:
    return "\n".join(line for part in sections if part.title == title for line in part.lines)


def mentions(text: str, card: str) -> bool:
    """`card` ("Trobil 1") named in `text` - not as the start of "Trobil 10"."""
    return re.search(re.escape(card) + r"(?!\d)", text) is not None


def assert_well_formed(state: State, seat: int | None) -> None:
    sections = describe(state, seat)
    names = NAMES[: state["players"]]
    assert sections and all(part.title and part.lines for part in sections)
    for part in sections:
        for line in part.lines:
            assert isinstance(line, str) and line.strip(), part.title
            assert len(line) < 80, line
            assert "Seat " not in line, line
    titles = [part.title for part in sections]
    if seat is not None:
        assert titles[0] == f"You ({names[seat]})"
    others = [name for s, name in enumerate(names) if s != seat]
    assert set(others) <= set(titles)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6, 7])
def test_describe_every_view_of_whole_games(players: int) -> None:
    for step, state in enumerate(play(players, seed=players)):
        assert_well_formed(state, state["active"])
        if step % 25 == 0 or GAME.is_over(state):
            for seat in [None, *range(players)]:
                assert_well_formed(state, seat)
    assert "Final score" in [part.title for part in describe(state, None)]


def label_names(state: State, seat: int, pattern: str) -> set[str]:
    return {m.group(1) for move in GAME.legal_moves(state, seat)
            if (m := re.match(pattern, move["label"]))}


def test_cards_are_named_as_the_moves_name_them() -> None:
    """A face-up Trobil in the seat's area is named as the Star's `flip` label names it; the
    Trobils on display as Paradise's `trobil` labels; the offer as the Station's `buy` labels;
    the resources as the payment labels; the locations as the `place` labels."""
    checked = set()
    for state in play(3, seed=11):
        seat = state["active"]
        sections = describe(state, seat)
        mine = text_of(sections, f"You ({NAMES[seat]})")
        for card in label_names(state, seat, r"Throw (Trobil \d+) into the Star"):
            assert mentions(mine, card)
            checked.add("flip")
        for card in label_names(state, seat, r"Take (Trobil \d+) \("):
            assert mentions(text_of(sections, "Near Paradise"), card)
            checked.add("trobil")
        for card in label_names(state, seat, r"Buy a (.+ Connection) for"):
            assert card in text_of(sections, "O-Renj Station")
            checked.add("buy")
        for paid in label_names(state, seat, r"Pay \d+ (\w[\w ]*?)(?: and| to| for|$)"):
            assert paid in mine
            checked.add("pay")
        for loc in label_names(state, seat, r"Place a ship on (.+?)(?:, bumping|$)"):
            assert re.search(rf"^{re.escape(loc)}[ :]", text_of(sections, "The board"), re.M)
            checked.add("place")
    assert checked == {"flip", "trobil", "buy", "pay", "place"}


def test_face_down_trobils_stay_secret() -> None:
    """"Once a Trobil Card is flipped over, only the owner may look at the card. It is secret
    from other Players." A spectator and the other seats read a count, the owner the card."""
    for state in play(3, seed=5):
        owners = [s for s, player in enumerate(state["seats"]) if player["flipped"]]
        if state["phase"] == "over" or not owners:
            continue
        owner = owners[0]
        viewer = (owner + 1) % 3
        secret = [card_name(card) for card in state["seats"][owner]["flipped"]]
        for seen_by in (viewer, None):
            told = as_text(describe(state, seen_by))
            assert not any(mentions(told, card) for card in secret), told
            assert "Trobils face down: 1 Trobil (only they know which)" in text_of(
                describe(state, seen_by), NAMES[owner])
        own = text_of(describe(state, owner), f"You ({NAMES[owner]})")
        assert all(mentions(own, card) for card in secret)
        return
    raise AssertionError("no face-down Trobil in this game")


def test_the_rulebooks_names_for_the_board() -> None:
    """"Shuffle the Connection Cards and place them by the O-Renj Station Location. Place 3
    face up on the indicated spaces." and "Draw cards equal to the number of players +1 and
    place them face up near Planet Paradise." - and the Locations by their headings (Star of
    O-Renj, Nye Asteroid Belt, Paradise's Moon, ...)."""
    state = GAME.setup(4, {}, Rng(b"rulebook", 1))
    sections = describe(state, 0)
    offer = text_of(sections, "O-Renj Station")
    assert offer.startswith("Connections on offer: ")
    assert offer.split("\nConnection deck")[0].count(" Connection") == 3
    near = text_of(sections, "Near Paradise")
    assert sum(1 for line in near.splitlines() if " at the Star" in line
               or "(a City)" in line) == 4 + 1
    board = text_of(sections, "The board")
    for heading in ["Paradise", "Star of O-Renj", "Planet Pomi", "Tyson Comet",
                    "Nye Asteroid Belt", "Smashed Rock", "O-Renj Station", "MegaFactory",
                    "Paradise's Moon", "Merchant", "Wormhole"]:
        assert re.search(rf"^{re.escape(heading)}[ :]", board, re.M), heading
    mine = text_of(sections, "You (alice)")
    # "Give each Player a Ship Card, 5 Credits, and a number of matching Ships"
    assert "Resources: 5 Credits" in mine and "Ship Card: no Connections" in mine
    assert "Ships: 1 in hand, 0 on the board, 2 on the Wormhole" in mine


def test_a_visit_in_progress() -> None:
    """"When a Player places a Ship here, they may purchase up to 3 Connection Cards (1 at a
    time)": mid-visit, everyone reads how many are bought; the visitor gets the prompt."""
    for state in play(3, seed=2):
        if state["phase"] == "connections" and state["visit"]["count"] == 1:
            seat = state["active"]
            now = text_of(describe(state, (seat + 1) % 3), "Now")
            assert f"{NAMES[seat]} is visiting O-Renj Station" in now
            assert "Connections bought: 1 of 3" in now
            assert f"Waiting for {NAMES[seat]}." in now
            assert "buy a Connection" in text_of(describe(state, seat), "Now")
            return
    raise AssertionError("no Station visit with one Connection bought")


def test_final_score_with_a_shared_rank_under_every_version() -> None:
    """"If there's still a tie, the Player with the most Trobil Cards wins." - still tied,
    they share the rank: the final score reads the same whether the ranking lists them one
    by one (rules versions 1 and 2) or as one list (version 3)."""
    from games.asking_for_trobils import VERSIONS
    from tests.games.test_asking_for_trobils import tied_three

    texts = []
    for game in VERSIONS:
        state = tied_three(game)
        state["phase"], state["visit"] = "over", None
        view = game.view(state, None)
        texts.append(text_of(game.describe(view, None, NAMES[:3]), "Final score"))
    assert texts[0] == texts[1] == texts[2]
    lines = [line for line in texts[2].splitlines() if line[0].isdigit()]
    assert [line.split(":")[0] for line in lines] == ["1. alice", "1. bob", "3. carol"]
