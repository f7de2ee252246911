"""Trappist One's secret start through the API: "every player secretly picks 3 for Capital
One at the same time (all seats are actors; the choices are revealed together)".

Until the reveal, nothing any route answers another seat or a spectator may depend on what a
seat chose: two tables dealt alike (the same server seed, the same seats' seeds), where seat 1
chooses differently, must answer everyone else byte for byte alike but for their ids and
times. A batch must not tell it either: the last pick reveals, so it ends its batch, and the
refusal is the same whatever the others chose. And through a whole game, no route shows a
seat another seat's hand, cargo, hangar, scrapyard or pick, a fact addressed to others, or
the seed.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service import create_app
from tests.service.conftest import Caller
from tests.service.test_hidden_information import (
    assert_log_private,
    assert_view_private,
    every_route,
    seats_of,
)

TRAPPIST = "trappist-one"
# Every game of this module gets this secret seed (create_app's NEW_SEED, for tests that
# replay a known deal), and its seats bring these seeds (the API's per-seat `seed`).
SERVER_SEED = hashlib.sha256(b"tests/service/test_trappist_secret_choice").digest()
SEAT_SEEDS = ("seat-zero-brings-this", "seat-one-brings-this", "seat-two-brings-this")
# What a Trappist One view shows a seat of its own only (games/trappist_one/view.py).
SECRET_KEYS = ("hand", "cargo", "hangar", "scrapyard", "pick")
TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)")


@pytest.fixture()
def app(redis_url: str, redis_client: redis.Redis, tmp_path: Path) -> Iterator[Flask]:
    """tests/service/conftest.py's app, but every new game gets SERVER_SEED."""
    yield create_app(
        {"REDIS_URL": redis_url, "DISPATCH": False, "RATELIMIT_PER_CALLER": "100000 per minute",
         "RATELIMIT_REGISTRATION": "100000 per minute",
         "KEYS_DIR": str(tmp_path / "keys"), "INBOUND_SECRET": "test-inbound-secret",
         "NEW_SEED": lambda: SERVER_SEED}
    )


def deal(alice: Caller, bob: Caller, carol: Caller) -> str:
    """A started 3-seat table (alice 0, bob 1, carol 2), each seat bringing its SEAT_SEEDS."""
    made = alice.post("/v1/games", {"type": TRAPPIST, "seats": 3, "seed": SEAT_SEEDS[0]})
    assert made.status_code == 201, made.json
    game_id: str = made.json["id"]
    for caller, seed in ((bob, SEAT_SEEDS[1]), (carol, SEAT_SEEDS[2])):
        joined = caller.post(f"/v1/games/{game_id}/join", {"seed": seed})
        assert joined.status_code == 200, joined.json
    assert joined.json["status"] == "active" and joined.json["view"]["phase"] == "choose"
    assert joined.json["actors"] == [0, 1, 2]
    return game_id


def pick(caller: Caller, game_id: str, seat: int, move_id: str) -> Any:
    version = caller.get(f"/v1/games/{game_id}").json["version"]
    played = caller.post(f"/v1/games/{game_id}/moves",
                         {"seat": seat, "expected_version": version, "moves": [{"id": move_id}]})
    assert played.status_code == 201, played.json
    return played


def triples(caller: Caller, game_id: str, seat: int) -> list[str]:
    listed = caller.get(f"/v1/games/{game_id}/moves?seat={seat}").json
    assert listed["moves"] and all(m["id"].startswith("pick:") for m in listed["moves"])
    return [m["id"] for m in listed["moves"]]


# --- what an answer is, once what must differ between two tables is taken out --------------


def text_of(response: Any, game_id: str) -> str:
    """The body with the game's id and every time replaced (both are the same length in any
    two games: 16 hex digits, ISO times to the millisecond), and a record's signature value
    (it covers the game's id) left out."""
    raw = response.get_data(as_text=True)
    if response.is_json and isinstance(response.json, dict) and "signature" in response.json:
        body = dict(response.json)
        body["signature"] = {k: v for k, v in body["signature"].items() if k != "value"}
        raw = json.dumps(body, sort_keys=True)
    return TIME.sub("<time>", raw.replace(game_id, "<game>"))


def answer(response: Any, game_id: str) -> dict[str, Any]:
    """Status, every header (values with the game's id replaced; Content-Length as sent) and
    the body, as `text_of` has it. `RateLimit` counts the caller's requests down, whatever
    they were: its remaining count is left out (its policy name is kept)."""
    headers = {name: value.replace(game_id, "<game>") for name, value in response.headers}
    if "RateLimit" in headers:
        headers["RateLimit"] = headers["RateLimit"].split(";")[0]
    return {"status": response.status_code, "headers": headers,
            "body": text_of(response, game_id)}


GAME_ROUTES = ("", "/moves", "/events?after=0&limit=500", "/events?after=5&limit=2",
               "/state", "/record", "/messages")
LISTINGS = ("/v1/games", "/v1/games?type=trappist-one", "/v1/games?status=active",
            "/v1/games?player=me", "/v1/games?type=trappist-one&status=active&player=me",
            "/v1/players/me/games", "/v1/players/me/games?awaiting=me")


def everything(caller: Caller, game_id: str) -> dict[str, Any]:
    """Every GET a client can make of this game, as `caller`: route -> answer. Listings
    (which hold both tables) give the game's own entry, or None where it is not listed."""
    seen: dict[str, Any] = {}
    game = caller.get(f"/v1/games/{game_id}")
    version = game.json["version"]
    for route in GAME_ROUTES:
        seen[route or "/"] = answer(caller.get(f"/v1/games/{game_id}{route}"), game_id)
    for seat in seats_of(caller, game.json):
        for route in ("", "/moves", "/state"):
            path = f"/v1/games/{game_id}{route}?seat={seat}"
            seen[f"{route or '/'}?seat={seat}"] = answer(caller.get(path), game_id)
    for past in range(1, version + 1):
        path = f"/v1/games/{game_id}/state?version={past}"
        seen[f"/state?version={past}"] = answer(caller.get(path), game_id)
    tag = game.headers["ETag"]
    seen["/ (If-None-Match)"] = answer(
        caller.get(f"/v1/games/{game_id}", headers={"If-None-Match": tag}), game_id)
    for listing in LISTINGS:
        page = caller.get(listing)
        assert page.status_code == 200, page.json
        entry = [item for item in page.json["items"] if item["id"] == game_id]
        seen[listing] = TIME.sub("<time>", json.dumps(entry).replace(game_id, "<game>"))
    return seen


def assert_alike(first: dict[str, Any], second: dict[str, Any], who: str) -> None:
    assert first.keys() == second.keys()
    for route in first:
        assert first[route] == second[route], f"{who}: {route} tells the tables apart"


def test_no_answer_to_another_seat_or_a_spectator_depends_on_a_seats_secret_choice(
        alice: Caller, bob: Caller, carol: Caller, client: FlaskClient) -> None:
    dave = Caller(client, "dave")  # a spectator
    a, b = deal(alice, bob, carol), deal(alice, bob, carol)
    observers = {"seat 0": alice, "seat 2": carol, "a spectator": dave}
    # Dealt alike: before anyone chooses, even seat 1 (whose hand is dealt) cannot tell them
    # apart. This also shows that what `answer` takes out is all that differs.
    for who, caller in {**observers, "seat 1": bob}.items():
        assert_alike(everything(caller, a), everything(caller, b), who)
    choices = triples(bob, a, 1)
    assert choices == triples(bob, b, 1) and len(choices) > 1
    mine, other = choices[0], choices[-1]
    assert mine != other

    # 1. Seat 1 chooses one triple at table A, another at table B.
    pick(bob, a, 1, mine)
    pick(bob, b, 1, other)
    assert everything(bob, a) != everything(bob, b), "seat 1 cannot see its own pick"
    for who, caller in observers.items():
        assert_alike(everything(caller, a), everything(caller, b), who)
    # 2. Seat 0 chooses (the same at both): its own answer tells it nothing either.
    zeros = triples(alice, a, 0)
    assert zeros == triples(alice, b, 0)
    assert_alike({"POST moves": answer(pick(alice, a, 0, zeros[0]), a)},
                 {"POST moves": answer(pick(alice, b, 0, zeros[0]), b)}, "seat 0")
    for who, caller in observers.items():
        assert_alike(everything(caller, a), everything(caller, b), who)
    # 3. The last pick reveals them all together: now the tables differ for everyone, which
    #    shows the comparison above could have seen seat 1's choice had it leaked.
    last = triples(carol, a, 2)[0]
    revealed = [answer(pick(carol, table, 2, last), table)["body"] for table in (a, b)]
    assert revealed[0] != revealed[1]
    for who, caller in observers.items():
        assert everything(caller, a) != everything(caller, b), who


# --- a batch cannot be used to learn the others' choices ------------------------------------


def test_the_last_pick_ends_its_batch_and_its_refusal_does_not_depend_on_the_others_choices(
        app: Flask, alice: Caller, bob: Caller, carol: Caller) -> None:
    meeple = app.extensions["meeple"]
    a, b = deal(alice, bob, carol), deal(alice, bob, carol)
    for caller, seat in ((bob, 1), (carol, 2)):  # the others choose differently at A and B
        choices = triples(caller, a, seat)
        pick(caller, a, seat, choices[0])
        pick(caller, b, seat, choices[-1])
    mine = triples(alice, a, 0)[0]  # seat 0 is the last to choose
    assert triples(alice, b, 0)[0] == mine
    # What might follow the pick: every move seat 0 has once the choices are revealed, at
    # either table (they depend on what was revealed), an illegal one, and the pick again.
    follow_ups = {"no-such-move", mine}
    for game_id in (a, b):
        table = meeple.load(game_id)
        move = next(m for m in table.game.legal_moves(table.state, 0) if m["id"] == mine)
        after, _ = table.game.play(table.state, 0, move, table.move_rng(SERVER_SEED))
        assert after["phase"] == "benefit" and 0 in table.game.actors(after)
        follow_ups |= {m["id"] for m in table.game.legal_moves(after, 0)}
    assert "buy" in follow_ups  # a move that would be legal after the pick: a real batch

    refusals = set()
    for game_id in (a, b):
        before = alice.get(f"/v1/games/{game_id}").json
        log = alice.get(f"/v1/games/{game_id}/events?after=0&limit=500").json
        for follow_up in sorted(follow_ups):
            for moves in ([mine, follow_up], [mine, follow_up, "buy"]):
                refused = alice.post(f"/v1/games/{game_id}/moves",
                                     {"seat": 0, "expected_version": before["version"],
                                      "moves": [{"id": m} for m in moves]})
                assert refused.status_code == 422, refused.json
                assert refused.json["code"] == "reveals_hidden_information"
                assert refused.json["move_index"] == 1
                assert mine in refused.json["detail"]
                refusals.add(json.dumps(answer(refused, game_id), sort_keys=True))
        # Nothing was written: the same version, log and view.
        after_all = alice.get(f"/v1/games/{game_id}").json
        assert after_all["version"] == before["version"]
        assert after_all["view"] == before["view"] and after_all["actors"] == [0]
        assert alice.get(f"/v1/games/{game_id}/events?after=0&limit=500").json == log
    assert len(refusals) == 1, "a refusal depends on what followed or on the others' choices"

    # Sent alone, the pick is played and reveals the choices, which differ between A and B.
    shown = []
    for game_id in (a, b):
        played = pick(alice, game_id, 0, mine).json
        facts = [f for e in played["events"] for f in e["data"]["facts"]]
        (reveal,) = [f for f in facts if "choices" in f["data"]]
        assert reveal["to"] == "all" and played["game"]["view"]["phase"] == "benefit"
        shown.append(reveal["data"]["choices"])
    assert shown[0]["0"] == shown[1]["0"] and shown[0] != shown[1]


# --- a whole game by random legal moves -----------------------------------------------------


def assert_secrets_kept(view: dict[str, Any] | None, mine: set[int], where: str) -> int:
    """No other seat's secrets in a Trappist One view before the end; returns how many
    other seats' entries were checked (each holds back at least their hand)."""
    assert_view_private(view, mine)
    if view is None or view["phase"] == "over":
        return 0
    checked = 0
    for entry in view["players"]:
        if entry["seat"] in mine:
            assert "hand" in entry and "hangar" in entry, f"{where}: own seat's hand missing"
            continue
        shown = [key for key in SECRET_KEYS if key in entry]
        assert not shown, f"{where}: seat {entry['seat']}'s {shown} shown to seats {mine}"
        assert {"hand_count", "hangar_count", "scrapyard_count"} <= set(entry)
        checked += 1
    return checked


def check_trappist_routes(caller: Caller, game_id: str, seed_hex: str) -> int:
    """tests/service/test_hidden_information.py's `check_everything` (no seed, no full
    state, no fact addressed to others, an incomplete record), and no other seat's Trappist
    One secrets, on one round of every route; returns how many others' entries were held
    back."""
    game = caller.get(f"/v1/games/{game_id}").json
    mine = seats_of(caller, game)
    checked = 0
    for route, body in every_route(caller, game_id, game["version"]):
        assert seed_hex not in json.dumps(body), f"{route} shows the seed"
        if route == "game":
            assert body["revealed_seed"] is None
            checked += assert_secrets_kept(body["view"], mine, route)
        elif route.startswith("state"):
            assert body["full_state"] is None, f"{route} shows the whole state before the end"
            checked += assert_secrets_kept(body["view"], mine, route)
        elif route == "events":
            assert_log_private(body["items"], mine)
        elif route == "record":
            assert body["complete"] is False and body["seed"] is None
            assert_log_private(body["events"], mine)
        elif route == "moves":
            assert body["seat"] is None or body["seat"] in mine
            if body["seat"] is None:
                assert body["moves"] == [] and body["prompt"] is None
    for seat in mine:  # each of the caller's seats as it asks for it
        view = caller.get(f"/v1/games/{game_id}/state?seat={seat}").json["view"]
        checked += assert_secrets_kept(view, {seat} | mine, f"state?seat={seat}")
    return checked


def test_no_route_shows_a_seat_another_seats_secrets_through_a_whole_game(
        app: Flask, alice: Caller, bob: Caller, carol: Caller, client: FlaskClient) -> None:
    spectator = Caller(client, "dave")
    game_id = deal(alice, bob, carol)
    seed_hex = SERVER_SEED.hex()
    assert app.extensions["meeple"].store.get_seed(game_id).hex() == seed_hex
    players = {0: alice, 1: bob, 2: carol}
    rng = random.Random(13)
    phases: set[str] = set()
    checked = moves = 0
    for step in range(2000):
        current = alice.get(f"/v1/games/{game_id}").json
        if current["status"] != "active":
            break
        phase = current["view"]["phase"]
        phases.add(phase)
        if phase == "choose" or step % 10 == 0:
            for caller in (alice, bob, carol, spectator):
                checked += check_trappist_routes(caller, game_id, seed_hex)
        seat = rng.choice(current["actors"])
        listed = players[seat].get(f"/v1/games/{game_id}/moves?seat={seat}").json
        move = rng.choice(listed["moves"])
        played = players[seat].post(f"/v1/games/{game_id}/moves",
                                    {"seat": seat, "moves": [{"id": move["id"]}],
                                     "expected_version": listed["version"]})
        assert played.status_code == 201, played.json
        moves += 1
        if played.json["game"]["status"] != "active":
            break  # the last move's answer carries the end and the seed, as it should
        assert seed_hex not in json.dumps(played.json)
        assert_secrets_kept(played.json["game"]["view"], {seat}, "POST moves")
        assert_log_private(played.json["events"], {seat})
    final = alice.get(f"/v1/games/{game_id}").json
    assert final["status"] == "ended" and final["revealed_seed"] == seed_hex
    # Once over, everything is shown to everyone.
    assert all("hand" in entry for entry in spectator.get(
        f"/v1/games/{game_id}").json["view"]["players"])
    assert {"choose", "benefit", "buying", "phase3"} <= phases, phases
    assert moves > 50 and checked > 200, (moves, checked)
