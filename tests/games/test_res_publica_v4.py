"""Res Publica 2230 AD rules version 4 (games/res_publica/README.md "Rules versions"): an
answer once begun is given, not passed, and its steps never depend on the drafter's hand; the
draw options say what they draw. Each test quotes the sentence it checks; the version 3 tests
beside them keep the old behaviour, which games of version 3 still play.

Decisions note (/work/shared/games/res-publica-2230ad.md): "Then each opponent, in clockwise
order from the active player, answers with what they demand or tender ..., or passes" and
"Nothing else may tell the others either: ... so whose turn it is, the phase and the log look
the same whichever cards the giver holds". A drafting step (`add`, `and`, `or`, `cancel`) is a
move of its own: the others' log shows the seat moved, with no fact (events/domain/
visibility.py drops the move itself), so what a seat learns of another's answer is the count
of its silent steps and the facts.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from games.bots import GREEDY, bot_move, bot_rng
from games.contract import Fact, Game
from games.res_publica import GAME, VERSIONS
from games.res_publica.board import gain
from games.res_publica.describe import describe
from games.res_publica.trade import can_give
from games.rng import Rng
from games.text import as_text
from tests.games.test_res_publica import do, ids, new_game, public_text, set_hand

State = dict[str, Any]
V3, V4 = VERSIONS[2], VERSIONS[3]
SILENT = {"add", "and", "or", "cancel"}  # the drafting steps: no fact


def test_version_4_deals_its_number() -> None:
    """Version 5, the newest, plays as version 4 (tests/games/test_res_publica_v5.py)."""
    assert new_game(game=V4)["rules"] == 4
    assert new_game(game=V4)["trade"] is None


# --- what seat 2 sees of seat 1's answer -----------------------------------------------------


def seen(game: Game, state: State, facts: list[Fact], seat: int) -> str:
    """All `seat` learns from one move of another seat: its view (phase, actors, prompt, the
    trade as shown), its own moves, and the facts it may read."""
    return json.dumps({
        "view": game.view(state, seat),
        "moves": game.legal_moves(state, seat),
        "facts": [f for f in facts if f["to"] == "all" or seat in f["to"]],
    }, sort_keys=True)


def traces(game: Game, state: State, answerer: int, watcher: int, steps: int
           ) -> set[tuple[str, ...]]:
    """What `watcher` sees after each move of every sequence of at most `steps` moves the
    `answerer` may play while it answers. A said answer ends a sequence with the token
    "answer": the cards it names are public by the rules ("Named cards are public"), so only
    when it is said is compared, not what it names."""
    out: set[tuple[str, ...]] = set()

    def walk(state: State, trace: tuple[str, ...]) -> None:
        out.add(trace)
        if len(trace) == steps or answerer not in game.actors(state):
            return
        for move in game.legal_moves(state, answerer):
            after, facts = game.play(state, answerer, move, Rng(b"v4", 0))
            step = "answer" if move["kind"] == "submit" else seen(game, after, facts, watcher)
            if step == "answer":
                out.add((*trace, step))
            else:
                walk(after, (*trace, step))

    walk(state, ())
    return out


def drafts(game: Game, state: State, seat: int) -> Iterator[State]:
    """Every state the seat's drafting steps reach (each once), the first one included."""
    todo, done = [state], set()
    while todo:
        state = todo.pop()
        key = json.dumps(state["trade"], sort_keys=True)
        if key in done:
            continue
        done.add(key)
        yield state
        todo += [game.play(state, seat, m, Rng(b"v4", 0))[0]
                 for m in game.legal_moves(state, seat) if m["kind"] in SILENT]


def asked(game: Game, seat1: dict[str, int]) -> State:
    """Seat 0 requests 1 Damakros; seat 1 holds `seat1` (two Race cards, so seat 2, who sees
    their number and deck only, cannot tell the deals apart)."""
    state = new_game(3, game=game)
    set_hand(state, 0, galaesh=1)
    set_hand(state, 1, **seat1)
    set_hand(state, 2, skythris=2)
    state, _ = do(state, 0, "request", "add:damakros:1", "submit")
    assert game.actors(state) == {1}
    return state


ABLE, UNABLE = {"damakros": 1, "terrans": 1}, {"terrans": 2}


def test_an_answer_once_begun_is_given() -> None:
    """Decisions note: "each opponent ... answers with what they demand or tender ..., or
    passes"; decision 6: "An opponent who cannot honour a request is still asked, and can only
    pass, so the order does not show who holds what." Version 4: a seat that has begun
    drafting (its steps are seen) can no longer pass: a draft then a pass would show it could
    have answered. `cancel` still clears the draft to start again."""
    state = asked(V4, ABLE)
    assert "pass" in ids(state, 1) and "add:galaesh:1" in ids(state, 1)
    begun, facts = do(state, 1, "add:galaesh:1")
    assert facts == [] and "pass" not in ids(begun, 1)
    assert GAME.view(begun, 2)["trade"]["begun"] == [1]  # the log shows it to all anyway
    again, _ = do(begun, 1, "cancel")
    assert again["trade"]["drafts"]["1"] == {"items": [], "join": None}
    assert "pass" not in ids(again, 1) and "add:galaesh:1" in ids(again, 1)
    assert "You have begun an answer" in GAME.view(again, 1)["prompt"]
    for drafted in drafts(V4, begun, 1):
        moves = GAME.legal_moves(drafted, 1)
        assert "pass" not in {m["id"] for m in moves}
        assert any(m["kind"] != "cancel" for m in moves), "only cancel: a bot would loop"
    said, facts = do(again, 1, "add:galaesh:1", "submit")
    assert "Seat 1 asks for 1 Galaesh." in public_text(facts) and GAME.actors(said) == {2}


def test_an_unable_and_an_unwilling_answer_look_the_same() -> None:
    """"Nothing else may tell the others either": seat 1 holds the requested Damakros or
    not; seat 2 sees the same after every move seat 1 can mirror: passing at once. Whatever
    else seat 1 does when it holds one (any drafting step) ends in an answer, whose named
    cards the rules make public: never in "Seat 1 passes."."""
    able, unable = asked(V4, ABLE), asked(V4, UNABLE)
    assert seen(V4, able, [], 2) == seen(V4, unable, [], 2)
    assert ids(unable, 1) == {"pass"}
    passed = [do(s, 1, "pass") for s in (able, unable)]
    assert seen(V4, *passed[0], 2) == seen(V4, *passed[1], 2)
    for drafted in list(drafts(V4, able, 1))[1:]:
        assert "pass" not in ids(drafted, 1)
    seen_able, seen_unable = (traces(V4, s, 1, 2, 4) for s in (able, unable))
    passes = json.dumps("Seat 1 passes.")
    assert {t for t in seen_able if t and passes in t[-1]} == \
        {t for t in seen_unable if t and passes in t[-1]}


def test_v3_a_draft_then_a_pass_showed_the_seat_could_answer() -> None:
    """Why version 4 (the outside audit's test): under version 3 only a seat holding the
    requested card could draft, and it could still pass after drafting; seat 2 saw two silent
    moves of seat 1, then "Seat 1 passes.", which a seat without a Damakros cannot show."""
    able, unable = asked(V3, ABLE), asked(V3, UNABLE)
    first = next(m["id"] for m in V3.legal_moves(able, 1) if m["kind"] == "add")
    state, facts = do(able, 1, first, "cancel", "pass")
    assert [f["text"] for f in facts] == ["Seat 1 passes."]
    assert ids(unable, 1) == {"pass"}
    seen_able, seen_unable = (traces(V3, s, 1, 2, 3) for s in (able, unable))
    passes = json.dumps("Seat 1 passes.")
    assert {t for t in seen_able if t and passes in t[-1]} != \
        {t for t in seen_unable if t and passes in t[-1]}


def tendering(game: Game, seat1: dict[str, int]) -> State:
    """Seat 0 offers 1 Terrans; seat 1 holds two Race cards (of one or two types)."""
    state = new_game(3, game=game)
    set_hand(state, 0, terrans=1)
    set_hand(state, 1, **seat1)
    set_hand(state, 2, teleport=1)
    state, _ = do(state, 0, "offer", "add:terrans:1", "submit")
    return state


TWO_TYPES, ONE_TYPE = {"damakros": 1, "skythris": 1}, {"damakros": 2}


@pytest.mark.parametrize("steps", [6])
def test_the_steps_of_an_answer_never_depend_on_the_hand(steps: int) -> None:
    """"Nothing else may tell the others either": a seat holding two types it may tender and
    one holding one type show seat 2 the same steps: after a first card type, "and" and "or"
    are offered whatever the drafter holds ("you may never name more than two types,
    combining them with "and/or""), and after them the first type alone may be said. Every
    sequence of at most `steps` moves of one has its mirror in the other, step by step."""
    two, one = tendering(V4, TWO_TYPES), tendering(V4, ONE_TYPE)
    assert traces(V4, two, 1, 2, steps) == traces(V4, one, 1, 2, steps)


def test_v3_the_steps_of_an_answer_showed_a_second_type() -> None:
    """Why version 4: under version 3 "and" was offered only to a drafter holding a second
    type it could tender, so four silent steps before an answer ("add, and, cancel, add")
    were open only to it: a one-type hand drafts an odd number of steps."""
    two, one = tendering(V3, TWO_TYPES), tendering(V3, ONE_TYPE)
    assert traces(V3, two, 1, 2, 5) != traces(V3, one, 1, 2, 5)


def test_and_or_after_a_first_type_whatever_the_hand() -> None:
    """"When requesting, offering or responding, you may never name more than two types,
    combining them with "and/or."" — offered whenever a second type is allowed; a drafter who
    then holds nothing more to name says the first type alone (the open "and" dropped) or
    cancels."""
    state, _ = do(tendering(V4, ONE_TYPE), 1, "add:damakros:1")
    assert ids(state, 1) == {"submit", "and", "or", "cancel"}
    joined, _ = do(state, 1, "and")
    assert ids(joined, 1) == {"submit", "cancel"}
    label = next(m["label"] for m in GAME.legal_moves(joined, 1) if m["id"] == "submit")
    assert label == "Say it without a second card type (submit)"
    said, facts = do(joined, 1, "submit")
    assert said["trade"]["answers"]["1"] == {"items": [{"card": "damakros", "n": 1}],
                                            "join": None}
    assert "Seat 1 tenders 1 Damakros." in public_text(facts)
    two, _ = do(tendering(V4, TWO_TYPES), 1, "add:damakros:1", "or")
    assert ids(two, 1) == {"add:skythris:1", "submit", "cancel"}
    both, _ = do(two, 1, "add:skythris:1")
    assert ids(both, 1) == {"submit", "cancel"}  # two types named: nothing more to add


def test_a_bot_never_drafts_for_ever() -> None:
    """Bots leave out `cancel` unless nothing else is legal (games/search/ismcts.py
    `bot_moves`): with cancel alone after a join it can name nothing to, greedy drafted and
    cancelled without end. It now says its answer."""
    for seed in range(3):
        state = new_game(2, seed=seed)
        set_hand(state, 0, terrans=2, galaesh=1, skythris=1)
        set_hand(state, 1, damakros=2)
        state, _ = do(state, 0, "offer", "add:terrans:1", "submit")
        for version in range(10):
            if state["phase"] != "answer":
                break
            move = bot_move(GAME, state, 1, bot_rng(b"v4-%d" % seed, version, 1), GREEDY)
            state, _ = GAME.play(state, 1, move, Rng(b"v4", 0))
        assert state["phase"] != "answer", "greedy still drafting after 10 moves"


def test_the_proposal_is_composed_as_before() -> None:
    """Decision 6: "Cancelling a proposal before `submit` does not use up the trade (nothing
    was said)." Version 4 composes the proposal as version 3 does: its mode is hidden while
    it is composed, and a request names what the proposer cannot see, so its steps tell
    nothing of the hand."""
    for script in (["offer", "add:terrans:2"], ["request", "add:skythris:1", "and"],
                   ["offer", "add:galaesh:1", "or"]):
        states = []
        for game in (V3, V4):
            state = new_game(3, game=game)
            set_hand(state, 0, terrans=2, galaesh=1)
            states.append(do(state, 0, *script)[0])
        assert GAME.legal_moves(states[0], 0) == GAME.legal_moves(states[1], 0)
    state, _ = do(states[1], 0, "cancel")
    assert state["phase"] == "trade" and {"offer", "request"} <= ids(state, 0)


def test_a_third_seats_worlds_keep_a_begun_answer_to_a_request() -> None:
    """Only a seat that can give the request may begin an answer (decision 5: "an opponent
    answering an "or" *request* needs one option"), and the log shows seat 1 began: the
    worlds a bot of seat 2 imagines give seat 1 the requested card, so seat 1 can answer in
    each of them as it must."""
    state, _ = do(asked(V4, ABLE), 1, "add:galaesh:1")
    for n in range(8):
        world = GAME.determinize(state, 2, Rng(b"det", n))
        assert can_give(world["seats"][1]["hand"], world["trade"]["proposal"])
        assert "pass" not in ids(world, 1) and ids(world, 1)


def test_the_table_in_words_says_the_answer_is_begun() -> None:
    """What a player reads (describe.py): the seat answering has begun, so an answer comes."""
    state, _ = do(asked(V4, ABLE), 1, "add:galaesh:1")
    names = ["alice", "bob", "carol"]
    text = as_text(describe(GAME.view(state, 2), 2, names))
    assert "bob is answering now, and has begun an answer (no pass now)" in text
    own = as_text(describe(GAME.view(state, 1), 1, names))
    assert "Your answer so far: 1 Galaesh" in own and "You have begun an answer" in own


# --- the draw ----------------------------------------------------------------------------------


def short_tech_deck(game: Game, left: int) -> State:
    """Seat 0 owns 3 Space Stations; the Technology deck holds `left` cards."""
    state = new_game(2, game=game)
    for _ in range(3):
        gain(state, 0, "station")
    state["decks"]["race"] += state["decks"]["tech"][left:]  # a deck of either kind's cards
    state["decks"]["tech"] = state["decks"]["tech"][:left]
    return state


@pytest.mark.parametrize("left", [1, 2])
def test_draw_options_say_what_they_draw(left: int) -> None:
    """"For example, if you have three Space Stations displayed in front of you, you must
    decide whether to take one Race and two Technology cards, or just take three Technology
    cards." Decision 9: "if the Technology deck holds fewer cards than allowed, the player
    draws what is left". Version 4: each option's label and counts say what it draws."""
    state = short_tech_deck(V4, left)
    draws = {m["id"]: m for m in GAME.legal_moves(state, 0) if m["kind"] == "draw"}
    expected = {1: {"draw:1r1t": "Draw 1 Race + 1 Technology and end your turn",
                    "draw:1t": "Draw 1 Technology and end your turn"},
                2: {"draw:1r2t": "Draw 1 Race + 2 Technology and end your turn",
                    "draw:2t": "Draw 2 Technology and end your turn"}}[left]
    assert {i: m["label"] for i, m in draws.items()} == expected
    for move_id, move in draws.items():
        _, facts = do(state, 0, move_id)
        drawn = next(f["data"] for f in facts if f["text"].startswith("Seat 0 draws"))
        assert (move["race"], move["tech"]) == (drawn["race"], drawn["tech"])


def test_v3_draw_options_counted_what_they_entitle_to() -> None:
    """Version 3 keeps its labels: "3 Technology" with one card left draws one."""
    state = short_tech_deck(V3, 1)
    draws = {m["id"]: m for m in V3.legal_moves(state, 0) if m["kind"] == "draw"}
    assert {i: (m["race"], m["tech"]) for i, m in draws.items()} == {
        "draw:1r2t": (1, 2), "draw:3t": (0, 3)}


def test_draw_options_with_a_full_deck_are_as_before() -> None:
    """"You may not draw more than three cards in total at the end of your turn." """
    state = short_tech_deck(V4, 30)
    assert {m["id"] for m in GAME.legal_moves(state, 0) if m["kind"] == "draw"} == {
        "draw:1r2t", "draw:3t"}
