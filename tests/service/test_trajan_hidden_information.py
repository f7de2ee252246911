"""Trajan's secrets through the API (issue 14, Deliver 3 and 5): "commodity hands are each
seat's own, the deck order and the 3 removed demand tiles are nobody's; everything else is
public ... A seat's own hand size is public, its cards are not."

A 3-seat game is played to the end by random legal moves through the Flask test client, and
every so often every route a client can read is asked as each seat and as a spectator:

- no other seat's commodity cards (a hand is its owner's; the others are shown its size, and
  the cards they saw it take from a discard pile, which are public);
- the deck's order, the removed demand tiles and the face-down stacks nowhere: each view an
  answer carries is exactly the view of a world where all of that is dealt anew
  (`determinize`), so nothing in it depends on them; the test counts how often that world
  really differed in the deck's order, in another seat's hand and in the removed tiles, so
  that the comparison is known to be able to fail;
- no fact addressed to another seat (counted too: "You draw ..." facts are held back), no
  other seat's raw move, no seed, no full state, and a record that says it is incomplete;
- another seat's view is refused.

Once the game is over, everything is public (the platform's final reveal).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from games.contract import Game, State
from games.rng import Rng
from tests.service.conftest import Caller
from tests.service.test_hidden_information import assert_log_private, seats_of

TRAJAN = "trajan"
CHECK_EVERY = 40  # moves between two rounds of every route, as every caller
LISTINGS = ("/v1/games?type=trajan", "/v1/games?player=me", "/v1/players/me/games",
            "/v1/players/me/games?awaiting=me")


def deal(alice: Caller, bob: Caller, carol: Caller) -> str:
    made = alice.post("/v1/games", {"type": TRAJAN, "seats": 3})
    assert made.status_code == 201, made.json
    game_id: str = made.json["id"]
    for caller in (bob, carol):
        joined = caller.post(f"/v1/games/{game_id}/join", {})
        assert joined.status_code == 200, joined.json
    assert joined.json["status"] == "active" and joined.json["actors"] == [0]
    return game_id


def body_of(response: Any) -> Any:
    """A JSON answer's body, parsed as a client does (json.loads; the test client's own
    `.json` runs the app's input checks over it, which costs more than the request)."""
    return json.loads(response.get_data())


def every_route(caller: Caller, game_id: str, version: int) -> list[tuple[str, Any]]:
    """(route, body) for every GET a client can make of this game: as
    tests/service/test_hidden_information.py's `every_route`, past versions sampled."""
    routes = [("game", ""), ("moves", "/moves"), ("events", "/events?after=0&limit=500"),
              ("state", "/state"), ("record", "/record")]
    sampled = random.Random(f"{game_id}/{version}").sample(range(1, version + 1), min(version, 4))
    for past in sorted({1, max(1, version // 2), version, *sampled}):
        routes.append((f"state@{past}", f"/state?version={past}"))
    answers = []
    for route, path in routes:
        response = caller.get(f"/v1/games/{game_id}{path}")
        assert response.status_code == 200, (route, response.get_data(as_text=True))
        answers.append((route, body_of(response)))
    return answers


def plain(value: Any) -> Any:
    """`value` as a client receives it: through JSON."""
    return json.loads(json.dumps(value))


# --- what a view may show ------------------------------------------------------------------


class Held:
    """How many secrets the checks found held back: each must be > 0 by the end, or the
    checks could not have seen a leak."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.tables: dict[int, Any] = {}  # version -> the platform's table (one round's)
        self.log: dict[int, Any] = {}  # version -> the stored envelope

    def add(self, key: str, n: int = 1) -> None:
        self.counts[key] += n


def redealt(game: Game, state: State, seat: int | None, rng: Rng) -> State:
    """A world `seat` (None: a spectator, who knows no hand) cannot tell from `state`."""
    if seat is not None:
        return game.determinize(state, seat, rng)
    return game.determinize(game.determinize(state, 0, rng), 1, rng)


def assert_hands_private(view: dict[str, Any], state: State, mine: set[int], where: str,
                         held: Held) -> None:
    """Each seat's own hand as it is; of the others, their size and no card."""
    for entry in view["players"]:
        seat = entry["seat"]
        true_hand = {c: n for c, n in state["seats"][seat]["hand"].items() if n}
        assert entry["hand_size"] == sum(true_hand.values()), f"{where}: seat {seat}'s size"
        if seat in mine:
            assert entry.get("hand") == true_hand, f"{where}: seat {seat}'s own hand"
            continue
        assert "hand" not in entry, f"{where}: seat {seat}'s hand is shown to seats {mine}"
        known = entry.get("known_cards", {})
        assert all(n <= true_hand.get(c, 0) for c, n in known.items()), (where, known)
        held.add("other hands' cards", entry["hand_size"] - sum(known.values()))


def assert_view_tells_no_secret(meeple: Any, game_id: str, body: dict[str, Any],
                                mine: set[int], where: str, held: Held) -> None:
    """The view `body` carries is that of any world dealt anew where its seat cannot tell."""
    version = body["version"]
    if version not in held.tables:
        held.tables[version] = meeple.table_at(game_id, version)
    table = held.tables[version]
    state, view, seat = table.state, body["view"], body["seat"]
    if state is None or view is None or table.game.is_over(state):
        return
    assert_hands_private(view, state, mine, where, held)
    rng = Rng(f"{game_id}/{where}/{body['version']}".encode(), 0)
    other = redealt(table.game, state, seat, rng)
    # What the new world changed (so a view that showed it would differ from the answer):
    if len(state["deck"]) > 1 and other["deck"] != state["deck"]:
        held.add("deck order")
    if any(other["seats"][s]["hand"] != state["seats"][s]["hand"]
           for s in range(state["players"]) if s not in mine):
        held.add("another seat's cards")
    if sorted(other["demand_removed"]) != sorted(state["demand_removed"]):
        held.add("removed demand tiles")
    assert plain(table.game.view(other, seat)) == view, \
        f"{where}: the view of seat {seat} tells its world from one dealt anew"


# --- every route ---------------------------------------------------------------------------


def own_and_others_facts(meeple: Any, game_id: str, mine: set[int],
                         shown: list[dict[str, Any]], where: str, held: Held) -> None:
    """Every fact addressed to the caller's seats is shown; the others' are held back."""
    if not held.log or max(held.log) < max((e["v"] for e in shown), default=0):
        held.log = {e["v"]: e for e in meeple.events(game_id)}
    full = held.log
    for envelope in shown:
        if envelope["type"] != "MovePlayed":
            continue
        facts = full[envelope["v"]]["data"]["facts"]
        theirs = [f for f in facts if f["to"] != "all" and not set(f["to"]) & mine]
        ours = [f for f in facts if f["to"] == "all" or set(f["to"]) & mine]
        assert envelope["data"]["facts"] == ours, f"{where}: v{envelope['v']}'s facts"
        held.add("facts to others", len(theirs))


def check_routes(app: Flask, caller: Caller, game_id: str, seed_hex: str, held: Held) -> None:
    meeple = app.extensions["meeple"]
    game = body_of(caller.get(f"/v1/games/{game_id}"))
    mine = seats_of(caller, game)
    answers = every_route(caller, game_id, game["version"])
    for seat in sorted(mine):  # the caller's seat as it asks for it
        for route in ("", "/moves", "/state"):
            response = caller.get(f"/v1/games/{game_id}{route}?seat={seat}")
            assert response.status_code == 200, response.get_data(as_text=True)
            answers.append((f"{route.strip('/') or 'game'}?seat={seat}", body_of(response)))
    answers.append(("messages", body_of(caller.get(f"/v1/games/{game_id}/messages"))))
    for listing in LISTINGS:
        page = caller.get(listing)
        assert page.status_code == 200, page.get_data(as_text=True)
        answers.append((listing, body_of(page)))
    for route, body in answers:
        text = json.dumps(body)
        assert seed_hex not in text, f"{route} shows the seed"
        if route.startswith("game") or route.startswith("state"):
            assert body.get("revealed_seed") is None and body.get("full_state") is None, route
            assert_view_tells_no_secret(meeple, game_id, body, mine, route, held)
        elif route in ("events", "record"):
            log = body["items" if route == "events" else "events"]
            assert_log_private(log, mine)
            own_and_others_facts(meeple, game_id, mine, log, route, held)
            if route == "record":
                assert body["complete"] is False and body["seed"] is None
                assert body["scores"] is None
        elif route.startswith("moves"):
            assert body["seat"] is None or body["seat"] in mine
            if body["seat"] is None:
                assert body["moves"] == [] and body["prompt"] is None
        else:  # listings and table talk: summaries, no game state at all
            assert '"hand"' not in text and '"view"' not in text, route
    # Another seat's view, moves or state: refused, and the refusal shows nothing.
    for seat in {0, 1, 2} - mine:
        for route in ("", "/moves", "/state"):
            refused = caller.get(f"/v1/games/{game_id}{route}?seat={seat}")
            assert refused.status_code == 403, (route, seat, refused.get_data(as_text=True))
            problem = body_of(refused)
            assert "view" not in problem and "moves" not in problem


def test_no_route_shows_anyone_another_seats_cards_the_deck_or_the_removed_demands(
        app: Flask, alice: Caller, bob: Caller, carol: Caller, client: FlaskClient) -> None:
    spectator = Caller(client, "dave")
    game_id = deal(alice, bob, carol)
    meeple = app.extensions["meeple"]
    seed_hex = meeple.store.get_seed(game_id).hex()
    players = {0: alice, 1: bob, 2: carol}
    rng = random.Random(14)
    held = Held()
    phases: set[str] = set()
    rounds = moves = 0
    current = alice.get(f"/v1/games/{game_id}").json
    for _ in range(3000):
        if current["status"] != "active":
            break
        if moves % CHECK_EVERY == 0:
            held.tables.clear()
            for caller in (alice, bob, carol, spectator):
                check_routes(app, caller, game_id, seed_hex, held)
            rounds += 1
        (seat,) = current["actors"]  # Trajan: one seat acts at a time
        listed = body_of(players[seat].get(f"/v1/games/{game_id}/moves?seat={seat}"))
        assert listed["seat"] == seat and listed["moves"], listed
        move = rng.choice(listed["moves"])
        played = players[seat].post(f"/v1/games/{game_id}/moves",
                                    {"seat": seat, "moves": [{"id": move["id"]}],
                                     "expected_version": listed["version"]})
        assert played.status_code == 201, played.get_data(as_text=True)
        answer = body_of(played)
        moves += 1
        current = answer["game"]
        if current["status"] != "active":
            break  # the last move's answer carries the end and the seed, as it should
        phases.add(current["view"]["phase"])
        assert seed_hex not in played.get_data(as_text=True), "a move's answer shows the seed"
        assert_log_private(answer["events"], {seat})
        assert_view_tells_no_secret(meeple, game_id, current, {seat}, "POST moves", held)
    assert current["status"] == "ended", f"not over after {moves} moves"
    final = alice.get(f"/v1/games/{game_id}").json
    assert final["revealed_seed"] == seed_hex
    record = spectator.get(f"/v1/games/{game_id}/record").json
    assert record["complete"] is True and record["seed"] == seed_hex
    full = spectator.get(f"/v1/games/{game_id}/state").json["full_state"]
    assert full is not None and full["phase"] == "over"
    # The checks ran through a whole game, and each kind of secret was there to hold back.
    assert {"start_cards", "start_trajan", "choose", "action", "bonus"} <= phases, phases
    assert moves > 200 and rounds >= 6, (moves, rounds)
    for kind in ("other hands' cards", "deck order", "another seat's cards",
                 "removed demand tiles", "facts to others"):
        assert held.counts[kind] > 0, f"no {kind} was ever held back: the check proved nothing"
    print(f"\n{moves} moves, {rounds} rounds of checks, held back: {dict(held.counts)}")


def test_once_the_game_is_over_every_hand_is_shown_to_everyone(
        app: Flask, alice: Caller, bob: Caller, carol: Caller, client: FlaskClient) -> None:
    """The final reveal (events/domain/visibility.py, `table_view`: "once the game is over,
    each game's own view reveals everything"): the hands counted in the end scoring are
    shown in every view, to the seats and to a spectator, as the other games do."""
    spectator = Caller(client, "dave")
    game_id = deal(alice, bob, carol)
    meeple = app.extensions["meeple"]
    people = {0: alice, 1: bob, 2: carol}
    rng = random.Random(3)
    table = meeple.load(game_id)
    while table.state is not None and not table.game.is_over(table.state):
        (seat,) = table.actors()
        move = rng.choice(table.game.legal_moves(table.state, seat))
        player = meeple.players.get(people[seat].id)
        table = meeple.play_moves(player, game_id, [{"id": move["id"]}], table.version,
                                  seat).table
    final = table.state
    assert final is not None and any(sum(p["hand"].values()) for p in final["seats"])
    for caller in (alice, bob, carol, spectator):
        view = caller.get(f"/v1/games/{game_id}").json["view"]
        assert view["phase"] == "over"
        for entry in view["players"]:
            true_hand = {c: n for c, n in final["seats"][entry["seat"]]["hand"].items() if n}
            assert entry.get("hand") == true_hand, \
                f"seat {entry['seat']}'s hand is not shown at the end to {caller.id}"
