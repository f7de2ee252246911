"""Trappist One's table in words (games/trappist_one/describe.py): on real views from random
legal play, the same names as the moves' labels, nothing of another seat's secret cards, and
the rulebook's names for the components.

Rulebook: /work/shared/rulebooks/trappist-one.txt; decisions: /work/shared/games/trappist-one.md.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from functools import cache
from typing import Any

from games.contract import Game, Move
from games.registry import get_game
from games.rng import Rng
from games.text import Section, as_text
from games.trappist_one.board import INVESTMENT, PLANET_NAMES

State = dict[str, Any]
GAME: Game = get_game("trappist-one")
NAMES = ["alice", "bob", "carol", "dave"]
OPTIONS = [{}, {"exodite": True}, {"expert_scoring": True, "refill_from_removed": False}]


def playout(players: int, seed: int, options: dict[str, Any]) -> Iterator[State]:
    """Every state of one random legal game, the first (the deal) to the last (over)."""
    choose = random.Random(seed)
    state = GAME.setup(players, options, Rng(b"describe-%d" % seed, 0))
    version = 1
    yield state
    while not GAME.is_over(state):
        seat = choose.choice(sorted(GAME.actors(state)))
        move = choose.choice(GAME.legal_moves(state, seat))
        state, _ = GAME.play(state, seat, move, Rng(b"describe-%d" % seed, version))
        version += 1
        yield state


@cache
def games() -> list[tuple[int, State]]:
    """(players, state) over a few whole games of 2, 3 and 4 players (played once, shared by
    the tests, which only read them)."""
    return [(players, state) for players in (2, 3, 4) for n in range(2)
            for state in playout(players, 10 * players + n,
                                 OPTIONS[(players + n) % len(OPTIONS)])]


def described(state: State, seat: int | None) -> list[Section]:
    players = state["players"]
    return GAME.describe(GAME.view(state, seat), seat, NAMES[:players])


def text_of(part: Section) -> str:
    return "\n".join([part.title, *part.lines])


def words(text: str) -> set[str]:
    """The ids and words of `text`, whole ("cargo-1" is not in "cargo-10")."""
    return set(re.findall(r"[\w-]+", text))


def has_word(name: str, text: str) -> bool:
    return name in words(text)


# --- on real views -------------------------------------------------------------------------


def test_describe_every_view_of_random_games() -> None:
    """Never raises; titled sections of non-empty short lines; the viewer first, by name;
    every other seat a section of its own, by name."""
    for players, state in games():
        for seat in [None, *range(players)]:
            sections = described(state, seat)
            assert sections and all(isinstance(part, Section) for part in sections)
            for part in sections:
                assert part.title.strip() and part.lines, part
                for line in part.lines:
                    assert isinstance(line, str) and line.strip(), part
                    assert len(line) < 80, line
            titles = [part.title for part in sections]
            if seat is not None:
                assert titles[0] == f"You ({NAMES[seat]})"
            others = [NAMES[s] for s in range(players) if s != seat]
            assert all(name in titles for name in others), titles
            assert len(set(titles)) == len(titles), titles


def test_a_finished_game_names_the_ranking() -> None:
    """"If there is a tie in both dominion points and stargold ... All of you win!": the end
    shows every seat by name with its dominion points and stargold."""
    *_, last = playout(3, 7, {})
    assert GAME.is_over(last)
    now = next(part for part in described(last, None) if part.title == "Now")
    assert now.lines[0] == "The game is over."
    for s in range(3):
        total = GAME.score(last)["seats"][s]["total"]
        assert any(line.endswith(f"{NAMES[s]}: {total} DP, {last['seats'][s]['stargold']} "
                                 "stargold") for line in now.lines), now


# --- the same names as the moves -------------------------------------------------------------


def held_cards(state: State, seat: int) -> set[str]:
    p = state["seats"][seat]
    return set(p["cargo"]) | set(p["satellites"].values()) | set(p["stations"])


def test_held_cards_are_named_as_the_moves_name_them() -> None:
    """A move naming a card the seat holds ("Ship with cargo-5", "Use satellite-3",
    "Fragmentum: scrap station-1 ...", "Discard a solar card") spells it as the viewer's own
    section does."""
    cards_seen = resources_seen = 0
    for _, state in games():
        for seat in sorted(GAME.actors(state)):
            own = text_of(described(state, seat)[0])
            for move in GAME.legal_moves(state, seat):
                cards_seen += _check_card(move, held_cards(state, seat), own)
                resources_seen += _check_resource(move, state["seats"][seat]["hand"], own)
    assert cards_seen > 0 and resources_seen > 0


def _check_card(move: Move, held: set[str], own: str) -> int:
    card = move.get("card")
    if card not in held:
        return 0
    assert has_word(card, move["label"]), move
    assert has_word(card, own), (move, own)
    return 1


def _check_resource(move: Move, hand: dict[str, int], own: str) -> int:
    resource = move.get("resource")
    if resource is None or not hand.get(resource):
        return 0
    assert has_word(resource, move["label"]), move
    line = next(line for line in own.splitlines() if line.startswith("Mega-factory cards:"))
    assert has_word(resource, line), (move, line)
    return 1


def test_market_cards_are_named_as_the_buy_moves_name_them() -> None:
    """"Buy <card> for <price>": the market area names the same card, with its values."""
    found = 0
    for _, state in games():
        if state["phase"] != "buying":
            continue
        seat = state["active"]
        market = next(p for p in described(state, seat) if p.title == "The market area")
        for move in GAME.legal_moves(state, seat):
            if move["kind"] == "buy":
                assert has_word(move["card"], move["label"])
                at = [n for n, line in enumerate(market.lines) if has_word(move["card"], line)]
                assert len(at) == 1, market
                shown = " ".join(market.lines[at[0]:at[0] + 2])  # its values may go below
                assert f"price {INVESTMENT[move['card']]['cost']}," in shown, market
                found += 1
    assert found


# --- a reaction out of turn ------------------------------------------------------------------


def _reaction_state() -> tuple[State, int, str]:
    """A 3-player game at a Biocultist ship call that seat 2 may react to with a
    `react_clan_draw` card of its own (moved by hand into its orbital stations)."""
    for state in playout(3, 5, {}):
        calls = [m for m in GAME.legal_moves(state, state["active"]) if m["kind"] == "ship"] \
            if state["phase"] == "phase3" and state["active"] != 2 else []
        reacts = [c for c, spec in INVESTMENT.items() if spec["set"] == "base"
                  and (spec.get("ability") or {}).get("react_clan_draw") == calls[0]["clan"]] \
            if calls else []
        if not reacts:
            continue
        state = _give(state, 2, reacts[0])
        state, _ = GAME.play(state, state["active"], calls[0], Rng(b"react", 0))
        return state, 2, reacts[0]
    raise AssertionError("no ship call found")


def _give(state: State, seat: int, card: str) -> State:
    """`state` with `card` moved from wherever it is to `seat`'s orbital stations (a gap in
    the market if it was there)."""
    new = {**state, "seats": [dict(p) for p in state["seats"]]}
    new["market"] = [c if c != card else None for c in state["market"]]
    for key in ("investment_deck", "removed"):
        new[key] = [c for c in state[key] if c != card]
    for p in new["seats"]:
        p["stations"] = [c for c in p["stations"] if c != card]
        p["satellites"] = {k: c for k, c in p["satellites"].items() if c != card}
        p["cargo"] = [c for c in p["cargo"] if c != card]
        p["scrapyard"] = [c for c in p["scrapyard"] if c != card]
    new["seats"][seat]["stations"] = [*new["seats"][seat]["stations"], card]
    return new


def test_a_reaction_in_progress_is_shown_with_its_owner_and_card() -> None:
    """Rulebook: "Satellites and orbital stations can have abilities that trigger during
    another player's action." The reacting seat sees the card it may use, named as its move
    "Use <card>: draw a mega-factory card" names it; everyone sees who is to decide."""
    state, seat, card = _reaction_state()
    assert state["phase"] == "react" and GAME.actors(state) == {seat}
    labels = [m["label"] for m in GAME.legal_moves(state, seat)]
    assert f"Use {card}: draw a mega-factory card" in labels
    mine = described(state, seat)
    assert has_word(card, text_of(mine[0]))
    for viewer in (None, 0, 1, 2):
        now = next(p for p in described(state, viewer) if p.title == "Now")
        assert f"  {NAMES[seat]}: {card}, to decide" in now.lines, now
        assert any(line.startswith("Shipment: ") for line in now.lines)


# --- nothing secret of another seat ----------------------------------------------------------


def test_no_secret_card_of_another_seat_is_named() -> None:
    """Decisions note: "Hands are secret. Hangars and scrapyards hold their cards face down
    ... their owner sees them, the others see how many." A cargo ship in another seat's hand,
    a ship in its hangar, a card in its scrapyard: never named to a spectator or another seat
    (while no other part of the table shows it)."""
    checked = 0
    for players, state in games():
        if GAME.is_over(state):
            continue
        public = set(state["used"])  # a card used, then scrapped on Fragmentum
        if state["shipment"]:  # the ship being loaded is on the table
            public.add(state["shipment"]["ship"])
        if state["placing"]:  # the worker just hired, bought face up
            public.add(state["placing"]["by"])
        for viewer in [None, *range(players)]:
            shown = words(as_text(described(state, viewer)))
            for owner, p in enumerate(state["seats"]):
                if owner == viewer:
                    continue
                for card in (set(p["cargo"]) | set(p["hangar"]) | set(p["scrapyard"])) - public:
                    assert card not in shown, (card, viewer, owner)
                    checked += 1
    assert checked > 100


def test_the_owner_sees_its_own_face_down_cards() -> None:
    """"put the ship in your hangar face down": face down to the others, not to its owner."""
    seen = 0
    for _, state in games():
        for seat, p in enumerate(state["seats"]):
            own = words(text_of(described(state, seat)[0]))
            for card in [*p["hangar"], *p["scrapyard"], *p["cargo"]]:
                assert card in own, (card, own)
                seen += 1
    assert seen


# --- the rulebook's names --------------------------------------------------------------------


def test_the_rulebook_names_the_planets_and_the_player_area() -> None:
    """Rulebook: "Player area. Each player has a personal scrapyard, an area for independent
    orbital stations, a hangar for Biocultist ships, and the planets of the solar system
    board, with spaces for satellites over the planets (orbit) and mega-factories below the
    planets (planet's surface)." and "The stargold you gain during the game will be placed on
    your board on planet Capital One" and "These 4 cards represent the market area of
    Trappist One."."""
    state = next(s for _, s in games() if s["phase"] == "benefit")
    sections = described(state, 0)
    own = text_of(sections[0])
    for word in ("Scrapyard", "Orbital stations", "Hangar", "Satellites", "Mega-factories",
                 "Stargold", "Capital One"):
        assert word in own, word
    assert "The market area" in [part.title for part in sections]
    earth = next(part for part in sections if part.title == "Earth")
    assert len([line for line in earth.lines if "Biocultist ships" in line]) == 4
    # The planets as the rulebook lists them ("1. Navalis" ... "7. Morula Calva").
    assert list(PLANET_NAMES.values()) == ["Navalis", "Architecton", "Sophus", "Capital One",
                                           "Lux", "Fragmentum", "Morula Calva"]
