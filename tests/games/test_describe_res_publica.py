"""Res Publica 2230 AD's table in words (games/res_publica/describe.py): on views from random
legal play under every rules version, the same card names as the moves' labels, nothing of
another player's hand before the reveal, and the rulebook's names for the components."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from typing import Any

import pytest

from games.contract import Game
from games.registry import get_game
from games.res_publica import VERSIONS
from games.res_publica.cards import CARD_IDS, CATEGORY, NAMES
from games.rng import Rng
from games.text import Section, as_text
from tests.games.test_res_publica import set_hand

State = dict[str, Any]
GAME_ID = "res-publica-2230ad"
PLAYERS = ["alice", "bob", "carol", "dave", "eve"]
# Coloured cards: names no other text of the description contains.
COLOURED = [c for c in CARD_IDS if CATEGORY[c] != "grey"]


def played(game: Game, players: int, seed: int) -> Iterator[State]:
    """Every state of one random legal game, from the deal to the end."""
    state = game.setup(players, {}, Rng(b"describe-%d" % seed, 1))
    choose = random.Random(seed)
    step = 0
    yield state
    while not game.is_over(state):
        seat = choose.choice(sorted(game.actors(state)))
        move = choose.choice(game.legal_moves(state, seat))
        state, _ = game.play(state, seat, move, Rng(b"play", step))
        step += 1
        yield state


def told(game: Game, state: State, seat: int | None) -> list[Section]:
    names = PLAYERS[: state["players"]]
    return game.describe(game.view(state, seat), seat, names)


def flat(part: Section) -> str:
    """A section's lines as one string, wrapped lines joined again."""
    return re.sub(r"\s+", " ", " ".join(part.lines))


def check_shape(parts: list[Section], seat: int | None, players: int) -> None:
    assert parts and all(part.title for part in parts)
    assert all(isinstance(line, str) and line.strip() for part in parts for line in part.lines)
    assert all(len(line) < 80 for line in as_text(parts).splitlines())
    titles = [part.title for part in parts]
    if seat is not None:
        assert titles[0] == f"You ({PLAYERS[seat]})"
    others = [PLAYERS[s] for s in range(players) if s != seat]
    assert titles[int(seat is not None): players] == others
    text = as_text(parts)
    assert not re.search(r"\bSeat \d", text), "a seat number instead of a name"
    assert not set(re.findall(r"[a-z]+", text)) & set(CARD_IDS), "a card id, not a name"


@pytest.mark.parametrize("game", VERSIONS, ids=lambda g: f"v{g.rules_version}")
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_describe_every_view_of_random_games(game: Game, players: int) -> None:
    for seed in range(2 if players < 4 else 1):
        for state in played(game, players, seed):
            for seat in [None, *range(players)]:
                check_shape(told(game, state, seat), seat, players)


def test_registry_game_describes() -> None:
    game = get_game(GAME_ID)
    state = game.setup(3, {}, Rng(b"registry", 1))
    assert [part.title for part in told(game, state, 1)][:3] == ["You (bob)", "alice", "carol"]


# --- the same card names as the moves -------------------------------------------------------

LABEL_CARDS = [
    re.compile(r"^Display (.*) for "),  # "Display 5 Terrans for Space Station"
    re.compile(r"^Discard (.*)$"),  # New Colony: "Discard Asteroid Mining"
    re.compile(r"^Give (.*) to "),  # New Colony: "Give Warp Speed to Seat 1"
]


def label_names(label: str) -> list[str]:
    """The card names a label spells, counts left off ("5 Terrans" -> "Terrans")."""
    for pattern in LABEL_CARDS:
        match = pattern.match(label)
        if match:
            return [re.sub(r"^\d+ ", "", part) for part in match.group(1).split(", ")]
    return []


def test_hand_names_are_the_names_the_moves_use() -> None:
    game, checked = get_game(GAME_ID), set()
    for state in played(game, 3, 7):
        for seat in game.actors(state):
            hand = state["seats"][seat]["hand"]
            mine = flat(told(game, state, seat)[0])
            for move in game.legal_moves(state, seat):
                for card_name in label_names(move["label"]):
                    card = next(c for c in CARD_IDS if NAMES[c] == card_name)
                    assert card in hand
                    assert f"{hand[card]} {card_name}" in mine, (move["label"], mine)
                    checked.add(card)
    assert {"mining", "warp", "ornopeans"} <= checked


def test_offer_names_a_held_card_as_the_hand_does() -> None:
    game = get_game(GAME_ID)
    state = game.setup(3, {}, Rng(b"offer", 1))
    set_hand(state, 0, mining=2, warp=1)
    state, _ = game.play(state, 0, {"id": "offer"}, Rng(b"x", 0))
    labels = {m["id"]: m["label"] for m in game.legal_moves(state, 0)}
    assert labels["add:mining:2"] == "Name 2 Asteroid Mining"
    mine = flat(told(game, state, 0)[0])
    assert "Hand (3): 2 Asteroid Mining, 1 Warp Speed" in mine


# --- nothing of another hand before the reveal -----------------------------------------------


def secret_cards(game: Game, state: State, seat: int | None) -> set[str]:
    """Coloured cards another seat holds that `seat` does not, and that its view never names
    (no discard pile, trade, prompt or reveal shows them)."""
    if state["phase"] in ("reveal", "over"):
        return set()
    shown = json.dumps(game.view(state, seat))
    own = state["seats"][seat]["hand"] if seat is not None else {}
    held = {c for s, p in enumerate(state["seats"]) if s != seat for c in p["hand"]}
    return {c for c in held & set(COLOURED) if c not in own and f'"{c}"' not in shown}


def test_no_other_hand_by_name() -> None:
    game, checks = get_game(GAME_ID), 0
    for state in played(game, 4, 3):
        for seat in (None, 0, 2):
            secret = secret_cards(game, state, seat)
            text = as_text(told(game, state, seat))
            for card in secret:
                assert NAMES[card] not in text, (seat, card)
                checks += 1
    assert checks > 100


def test_dealt_hands_stay_hidden() -> None:
    game = get_game(GAME_ID)
    state = game.setup(3, {}, Rng(b"hidden", 1))
    set_hand(state, 0, terrans=4)
    set_hand(state, 1, skythris=3, aturians=1)
    for seat in (None, 0, 2):
        text = as_text(told(game, state, seat))
        assert "Skythris" not in text and "Aturians" not in text
        assert "bob\n  Hand: 4 cards" in text
    assert "Hand (4): 4 Terrans" in as_text(told(game, state, 0))


# --- the rulebook's names ---------------------------------------------------------------------


def test_components_by_their_rulebook_names() -> None:
    """Components: "66 Technology cards: 12 each of Asteroid Mining, Bionic Implants,
    Mechanized Warfare, Teleport, Warp Speed and 6 of Cloning Facility"; Game Preparation:
    "The first pile contains all ten City cards, in descending order - the 9 on top, then
    both 8s and so on, down to the 4 as the last card." and "Each player receives four
    face-down pieces of the Narkh Aduul Planet, the reference board and 3 Trade tokens."."""
    game = get_game(GAME_ID)
    state = game.setup(2, {}, Rng(b"rulebook", 1))
    set_hand(state, 1, mining=1, bionics=1, warfare=1, teleport=1, warp=1, cloning=1)
    parts = told(game, state, 1)
    mine, table = flat(parts[0]), flat(next(p for p in parts if p.title == "The table"))
    assert ("Hand (6): 1 Asteroid Mining, 1 Bionic Implants, 1 Mechanized Warfare, "
            "1 Teleport, 1 Warp Speed, 1 Cloning Facility") in mine
    assert "City pile: top first: 9, 8, 8, 7, 7, 6, 6, 5, 5, 4" in table
    assert "Trade tokens: 3" in mine
    assert "Race deck: " in table and "Technology deck: " in table


def test_an_open_offer_and_its_answers() -> None:
    """Trade: "I offer two Skythirs." ... "In clockwise order, each of your opponents
    interested in your offer names the cards he is willing to tender in exchange."."""
    game = get_game(GAME_ID)
    state = game.setup(3, {}, Rng(b"trade", 1))
    set_hand(state, 0, skythris=2)
    set_hand(state, 1, warp=1)
    for seat, move in [(0, "offer"), (0, "add:skythris:2"), (0, "submit"), (1, "add:warp:1"),
                       (1, "submit")]:
        state, _ = game.play(state, seat, {"id": move}, Rng(b"x", 0))
    for viewer in (None, 2):
        trade = next(p for p in told(game, state, viewer) if p.title == "Trade")
        assert trade.lines == ("alice offers 2 Skythris", "bob tenders 1 Warp Speed",
                               "carol is answering now")


def test_a_trooper_on_a_space_station_and_a_location() -> None:
    """Trooper: "select a Location or Space Station of another player. ... your opponent must
    leave your trooper on this card to indicate that it is deactivated."."""
    game = get_game(GAME_ID)
    state = game.setup(3, {}, Rng(b"trooper", 1))
    bob = state["seats"][1]
    bob["stations"] = [{"points": 3, "trooper": {"card": "trooper", "by": 0}}]
    bob["locations"] = [{"card": "university", "trooper": {"card": "trooper", "by": 2},
                         "used": False}]
    for seat in (None, 0, 1):
        part = next(p for p in told(game, state, seat) if p.title.endswith("bob)") or
                    p.title == "bob")
        assert "Space Station cards: 1 (3 points); 1 blocked by alice's Trooper" in part.lines
        assert "Locations: University (blocked by carol's Trooper)" in part.lines


def test_the_ranking_reads_the_same_under_every_version() -> None:
    """"The player with the most points wins the game." No tie-break is printed, so equal
    totals share the rank (decision 13): the table reads the same whether `ranking` lists
    the tied seats one by one (rules versions 1 to 4) or as one list (version 5, as
    openapi's ScoreSheet says: "seats tied for a place are one list")."""
    texts = []
    for game in VERSIONS:
        state = game.setup(3, {}, Rng(b"tied", 1))
        set_hand(state, 0)
        set_hand(state, 1, pilot=1)  # bob 1 point (a grey card); alice and carol 0
        set_hand(state, 2)
        state["phase"], state["reveal"] = "over", {"order": [0, 1, 2], "index": 3}
        view = game.view(state, None)
        grouped = [1, [0, 2]] if game.rules_version == "5" else [1, 0, 2]
        assert view["score"]["ranking"] == grouped
        texts.append(as_text(told(game, state, None)))
    assert all(text == texts[0] for text in texts)
    assert "The game is over. Ranking: 1. bob, 2. alice, 2. carol" in re.sub(
        r"\s+", " ", texts[-1])
