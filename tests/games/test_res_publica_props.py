"""Property tests: random legal games of Res Publica 2230 AD, checked after every move, under
every rules version; and the version 2 promise that an "or" pick tells the others nothing."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.contract import Fact, Game, IllegalMove
from games.res_publica import GAME, VERSIONS
from games.res_publica.board import answers_bind, as_printed, draws_counted, ties_as_lists
from games.res_publica.cards import CARD_IDS, CARDS, DATA, deck_of
from games.res_publica.trade import opponents
from games.rng import Rng
from tests.games.test_res_publica import all_cards, set_hand

State = dict[str, Any]
MAX_MOVES = 20_000
FULL_DECK = {card: spec["count"] for card, spec in CARDS.items()}
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
# The random-play tests run under every rules version a table may still be played under.
EVERY_VERSION = pytest.mark.parametrize("game", VERSIONS, ids=lambda g: f"v{g.rules_version}")


def assert_invariants(state: State) -> None:
    assert json.loads(json.dumps(state)) == state, "state is not plain JSON"
    assert all_cards(state) == FULL_DECK, "a card appeared or vanished"
    counts = [n for p in state["seats"] for n in p["hand"].values()]
    counts += [n for pile in state["discards"].values() for n in pile.values()]
    assert all(n > 0 for n in counts), "a zero or negative count"
    for pile, spec in DATA["score_piles"].items():
        held = [v for p in state["seats"] for v in _gained(p, pile)]
        assert sorted(held + state["piles"][pile]) == sorted(spec["values"]), f"{pile} pile"
    for loc, spec in DATA["locations"].items():
        owned = sum(1 for p in state["seats"] for x in p["locations"] if x["card"] == loc)
        assert state["locations"][loc] >= 0 and owned + state["locations"][loc] == spec["count"]
    assert all(0 <= p["trades"] <= DATA["setup"]["trade_tokens"] for p in state["seats"])


def _gained(player: dict[str, Any], pile: str) -> list[int]:
    if pile == "station":
        return [s["points"] for s in player["stations"]]
    return list(player[{"city": "cities", "resort": "resorts"}[pile]])


def assert_no_leak(game: Game, state: State, seat: int | None) -> None:
    """The view shows other hands only once they are revealed, and no deck order."""
    view = game.view(state, seat)
    revealed = state["phase"] in ("reveal", "over")
    for other, shown in enumerate(view["players"]):
        assert ("hand" in shown) == (other == seat or revealed)
        assert shown["hand_count"] == sum(state["seats"][other]["hand"].values())
    assert all(isinstance(n, int) for n in view["decks"].values())
    trade = view["trade"]
    if trade is not None:
        drafts = state["trade"]["drafts"]
        assert trade.get("draft") == (drafts.get(str(seat)) if seat is not None else None)
        picks = state["trade"]["picks"]
        assert trade.get("my_pick") == (picks.get(str(seat)) if seat is not None else None)
        if state["phase"] == "propose" and seat != state["trade"]["by"]:
            assert "proposal" not in trade
        if state["phase"] == "answer" and as_printed(state):  # clockwise, one at a time
            answered = len(trade["answers"])
            assert list(trade["answers"]) == [str(s) for s in trade["order"][:answered]]
            assert view["actors"] == [trade["order"][answered]]
    json.dumps(view)


def assert_moves(game: Game, state: State) -> None:
    actors = game.actors(state)
    assert actors or game.is_over(state)
    for seat in range(state["players"]):
        moves = game.legal_moves(state, seat)
        assert bool(moves) == (seat in actors)
        assert len(moves) < 300, f"{len(moves)} moves"
        assert len({m["id"] for m in moves}) == len(moves)
        assert_version_4_moves(state, seat, moves)


def assert_version_4_moves(state: State, seat: int, moves: list[dict[str, Any]]) -> None:
    """Version 4: a draw option counts what it draws, no two the same; an opponent who has
    begun an answer cannot pass, and always has a move besides cancel (bots cancel only when
    nothing else is legal)."""
    draws = [(m["race"], m["tech"]) for m in moves if m["kind"] == "draw"]
    if draws_counted(state):
        assert len(set(draws)) == len(draws)
        assert all(t <= len(state["decks"]["tech"]) for _, t in draws)
    if moves and answers_bind(state) and state["phase"] == "answer":
        if seat in state["trade"]["begun"]:
            assert all(m["kind"] != "pass" for m in moves)
        assert any(m["kind"] != "cancel" for m in moves)


def playout(game: Game, players: int, seed: int, every_move_each: int = 0) -> State:
    """Play a random game; every `every_move_each` steps, also try every legal move."""
    rng = Rng(b"props-%d" % seed, 0)
    state = game.setup(players, {}, rng)
    for step in range(MAX_MOVES):
        assert_invariants(state)
        assert_moves(game, state)
        for seat in [*range(players), None]:
            assert_no_leak(game, state, seat)
        if game.is_over(state):
            return state
        actors = sorted(game.actors(state))
        seat = rng.choice(actors)
        with pytest.raises(IllegalMove):
            game.play(state, seat, {"id": f"nonsense:{rng.randbelow(1000)}"}, rng)
        if every_move_each and step % every_move_each == 0:
            for actor in actors:
                for move in game.legal_moves(state, actor):
                    assert_invariants(game.play(state, actor, {"id": move["id"]}, rng)[0])
        move = rng.choice(game.legal_moves(state, seat))
        state, _ = game.play(state, seat, {"id": move["id"]}, rng)
    raise AssertionError(f"no end after {MAX_MOVES} moves")


@EVERY_VERSION
@pytest.mark.parametrize("players", [2, 3, 4, 5])
@settings(max_examples=2, deadline=None)
@given(seed=SEEDS)
def test_random_games_keep_the_invariants(game: Game, players: int, seed: int) -> None:
    final = playout(game, players, seed)
    sheet = game.score(final)
    places = [p if isinstance(p, list) else [p] for p in sheet["ranking"]]
    assert sorted(s for place in places for s in place) == list(range(players))
    ranks = {s["seat"]: s["rank"] for s in sheet["seats"]}
    assert ties_as_lists(final) == (int(game.rules_version) >= 5)
    if ties_as_lists(final):  # version 5: one place per rank, tied seats one list
        assert all(len({ranks[s] for s in place}) == 1 for place in places)
        assert [ranks[place[0]] for place in places] == sorted(set(ranks.values()))
        assert all(place == sorted(place) for place in places)
    else:  # versions 1 to 4: every seat alone, by rank then seat
        assert all(isinstance(p, int) for p in sheet["ranking"])
        assert sheet["ranking"] == sorted(range(players), key=lambda s: (ranks[s], s))
    assert all(s["total"] == sum(s["breakdown"].values()) for s in sheet["seats"])
    assert all("hand" in p for p in game.view(final, None)["players"])  # the final reveal


@EVERY_VERSION
@settings(max_examples=1, deadline=None)
@given(seed=SEEDS, players=st.integers(min_value=2, max_value=5))
def test_every_legal_move_plays(game: Game, seed: int, players: int) -> None:
    playout(game, players, seed, every_move_each=25)


@EVERY_VERSION
@settings(max_examples=10, deadline=None)
@given(data=st.data(), players=st.integers(min_value=2, max_value=5))
def test_hypothesis_chosen_moves(game: Game, data: st.DataObject, players: int) -> None:
    """Moves chosen by hypothesis itself (so failures shrink), for the first 300 moves."""
    state = game.setup(players, {}, Rng(b"chosen", data.draw(SEEDS)))
    for _ in range(300):
        if game.is_over(state):
            break
        seat = data.draw(st.sampled_from(sorted(game.actors(state))))
        move = data.draw(st.sampled_from(game.legal_moves(state, seat)))
        state, facts = game.play(state, seat, {"id": move["id"]}, Rng(b"x", 0))
        assert all(f["to"] == "all" or set(f["to"]) <= set(range(players)) for f in facts)
        assert_invariants(state)


@EVERY_VERSION
@pytest.mark.parametrize("players", [2, 5])
def test_determinize_keeps_counts_and_plays_on(game: Game, players: int) -> None:
    rng = Rng(b"det-props", players)
    state = game.setup(players, {}, rng)
    for _ in range(400):
        if game.is_over(state):
            break
        for seat in range(players):
            other = game.determinize(state, seat, rng)
            assert all_cards(other) == FULL_DECK
            assert game.view(other, seat) == game.view(state, seat)
            assert game.legal_moves(other, seat) == game.legal_moves(state, seat)
        seat = rng.choice(sorted(game.actors(state)))
        state, _ = game.play(state, seat, rng.choice(game.legal_moves(state, seat)), rng)


# --- version 2: an "or" pick tells the others nothing ------------------------------------------
#
# Who gives the "or" side of each kind (trade.py): a requested "or" is given by the answering
# partner, a demanded "or" (an answer to a request) by the requesting player; an offered "or" by
# the offering player, a tendered "or" (an answer to an offer) by the partner.
OR_KINDS = ("request", "answer", "offer", "tender")
Script = list[tuple[int, str]]  # (seat, move id), played in order


@dataclass(frozen=True)
class OrTrade:
    """One trade with an "or" side, in two deals the seats other than its giver cannot tell
    apart: the giver's hand differs (same size, same number of cards from each deck)."""

    players: int
    giver: int
    hands: tuple[dict[int, dict[str, int]], dict[int, dict[str, int]]]
    script: Script


def _or_side(x: str, a: int, y: str, b: int) -> list[str]:
    return [f"add:{x}:{a}", "or", f"add:{y}:{b}", "submit"]


@st.composite
def or_trades(draw: st.DrawFn, kind: str) -> OrTrade:
    players = draw(st.integers(min_value=2, max_value=5))
    partner = draw(st.sampled_from(range(1, players)))
    x, y, plain = draw(st.lists(st.sampled_from(CARD_IDS), min_size=3, max_size=3, unique=True))
    a = b = draw(st.integers(1, 3))  # as many of each (rules version 3; fine in 1 and 2)
    held = {x: a, y: b}
    kept = draw(st.sampled_from([x, y]))  # the option picked (the only one held, in deal 2)
    if kind in ("request", "answer"):
        # Deal 2: the giver holds the other option short, made up by a card of its deck.
        short = y if kept == x else x
        left = draw(st.integers(0, held[short] - 1))
        filler = draw(_other_card(deck_of(short), {x, y, plain}))
        deals = (held, {kept: held[kept], short: left, filler: held[short] - left})
    else:
        # Offered and tendered cards are all held ("You may only offer cards which you
        # possess"): a deal holding one option only cannot arise; the two deals differ in the
        # giver's other cards instead.
        extra = draw(st.sampled_from(CARD_IDS).filter(lambda c: c not in (x, y, plain)))
        other = draw(_other_card(deck_of(extra), {x, y, plain, extra}))
        n = draw(st.integers(1, 2))
        deals = ({**held, extra: n}, {**held, other: n})
    mode = "request" if kind in ("request", "answer") else "offer"
    active_gives = kind in ("answer", "offer")
    giver = 0 if active_gives else partner
    proposal = _or_side(x, a, y, b) if kind in ("request", "offer") else [f"add:{plain}:1",
                                                                           "submit"]
    answer = [f"add:{plain}:1", "submit"] if kind in ("request", "offer") else _or_side(x, a, y, b)
    script: Script = [(0, mode)] + [(0, m) for m in proposal]
    for seat in opponents({"players": players}, 0):
        script += [(seat, m) for m in answer] if seat == partner else [(seat, "pass")]
    script += [(0, f"accept:{partner}"), (giver, f"give:{kept}")]
    # The other trader holds the plain card: it gives it, or (a request) is asked for it.
    plain_holder = partner if giver == 0 else 0
    hands = tuple({giver: deal, plain_holder: {plain: 1}} for deal in deals)
    return OrTrade(players, giver, (hands[0], hands[1]), script)


def _other_card(deck: str, taken: set[str]) -> st.SearchStrategy[str]:
    return st.sampled_from([c for c in CARD_IDS if deck_of(c) == deck and c not in taken])


def deal(game: Game, players: int, hands: dict[int, dict[str, int]]) -> State:
    state = game.setup(players, {}, Rng(b"or-leak", players))
    for seat in range(players):
        set_hand(state, seat)
    for seat, cards in hands.items():
        set_hand(state, seat, **cards)
    return state


def what_seat_sees(game: Game, state: State, facts: list[Fact], seat: int | None
                   ) -> dict[str, Any]:
    """All a seat (None: a spectator) learns: its view (phase, actors, prompt, ...), its moves,
    and the facts it may read."""
    return {
        "view": game.view(state, seat),
        "phase": state["phase"],
        "actors": sorted(game.actors(state)),
        "moves": [] if seat is None else game.legal_moves(state, seat),
        "facts": [f for f in facts if f["to"] == "all" or (seat is not None and seat in f["to"])],
    }


@pytest.mark.parametrize("kind", OR_KINDS)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_an_or_pick_never_shows_what_the_giver_holds(kind: str, data: st.DataObject) -> None:
    """Version 2: the giver of an "or" always picks as a step of its own, so the seats other
    than the giver see the same views, moves and facts whatever the giver holds (the pick being
    the same)."""
    trade = data.draw(or_trades(kind))
    worlds = [deal(GAME, trade.players, hands) for hands in trade.hands]
    others = [s for s in range(trade.players) if s != trade.giver] + [None]
    facts: list[list[Fact]] = [[], []]
    for seat, move_id in trade.script:
        for i, state in enumerate(worlds):
            worlds[i], facts[i] = GAME.play(state, seat, {"id": move_id}, Rng(b"or", 0))
        for other in others:
            seen = [what_seat_sees(GAME, w, f, other) for w, f in zip(worlds, facts, strict=True)]
            assert seen[0] == seen[1], f"seat {other} tells the deals apart after {move_id}"
    assert all(w["phase"] == "effects" and w["trade"] is None for w in worlds)
