"""Hidden information never leaks: every game-scoped route, against each seat and a spectator.

Before the end a caller may see its own seats' hands only, log lines addressed to
everyone or to its seats, and never the seed.
"""

from __future__ import annotations

import json
import random
from typing import Any

from tests.service.conftest import Caller


def seats_of(caller: Caller, game: dict[str, Any]) -> set[int]:
    return {s["seat"] for s in game["seats"] if s["player_id"] == caller.id}


def assert_view_private(view: dict[str, Any] | None, mine: set[int]) -> None:
    if view is None or view.get("phase") in ("reveal", "over"):  # hands are shown then
        return
    for player in view["players"]:
        if player["seat"] not in mine:
            assert "hand" not in player, f"seat {player['seat']}'s hand is shown"


def assert_log_private(events: list[dict[str, Any]], mine: set[int]) -> None:
    for event in events:
        assert event["type"] != "SeedRevealed"
        if event["type"] == "MovePlayed":
            for fact in event["data"]["facts"]:
                assert fact["to"] == "all" or set(fact["to"]) & mine, fact
            if event["data"]["seat"] not in mine:  # others' raw moves: their facts tell
                assert "move" not in event["data"] and event.get("redacted")


def every_route(caller: Caller, game_id: str, version: int) -> list[tuple[str, Any]]:
    """(route, body) for every GET a client can make of this game."""
    answers = [
        ("game", caller.get(f"/v1/games/{game_id}")),
        ("moves", caller.get(f"/v1/games/{game_id}/moves")),
        ("events", caller.get(f"/v1/games/{game_id}/events?after=0&limit=500")),
        ("state", caller.get(f"/v1/games/{game_id}/state")),
        ("record", caller.get(f"/v1/games/{game_id}/record")),
    ]
    sampled = random.Random(f"{game_id}/{version}").sample(range(1, version + 1), min(version, 4))
    for past in sorted({1, max(1, version // 2), version, *sampled}):  # any version, sampled
        answers.append((f"state@{past}", caller.get(f"/v1/games/{game_id}/state?version={past}")))
    return [(route, response.json) for route, response in answers]


def check_everything(caller: Caller, game_id: str, seed_hex: str) -> None:
    game = caller.get(f"/v1/games/{game_id}").json
    mine = seats_of(caller, game)
    for route, body in every_route(caller, game_id, game["version"]):
        assert seed_hex not in json.dumps(body), f"{route} shows the seed"
        if route == "game":
            assert body["revealed_seed"] is None
            assert_view_private(body["view"], mine)
        elif route.startswith("state"):
            assert_view_private(body["view"], mine)
            assert body["full_state"] is None, f"{route} shows the whole state before the end"
        elif route == "events":
            assert_log_private(body["items"], mine)
        elif route == "record":
            assert body["complete"] is False and body["seed"] is None
            assert_log_private(body["events"], mine)
        elif route == "moves":
            assert body["seat"] is None or body["seat"] in mine


def test_no_route_shows_a_seat_anything_of_another_seat(app, alice, bob, carol, client):
    spectator = Caller(client, "dave")
    game = alice.create(seats=3)
    for caller in (bob, carol):
        caller.post(f"/v1/games/{game['id']}/join", {})
    seed_hex = app.extensions["meeple"].store.get_seed(game["id"]).hex()
    players = {0: alice, 1: bob, 2: carol}
    rng = random.Random(11)
    for step in range(400):
        current = alice.get(f"/v1/games/{game['id']}").json
        if current["status"] != "active":
            break
        seat = rng.choice(current["actors"])
        listed = players[seat].get(f"/v1/games/{game['id']}/moves?seat={seat}").json
        move = rng.choice(listed["moves"])
        played = players[seat].post(f"/v1/games/{game['id']}/moves",
                                    {"seat": seat, "moves": [{"id": move["id"]}],
                                     "expected_version": listed["version"]})
        assert played.status_code == 201, played.json
        if played.json["game"]["status"] != "active":
            break  # the last move's answer carries the end and the seed, as it should
        assert_view_private(played.json["game"]["view"], {seat})
        assert_log_private(played.json["events"], {seat})
        if step % 40 == 0:
            for caller in (alice, bob, carol, spectator):
                check_everything(caller, game["id"], seed_hex)
    assert step > 100  # the checks ran through a real stretch of play


# --- Asking for Trobils: flipped Trobils -----------------------------------------------------

TROBILS = "asking-for-trobils"


def flipped_of_others(state: dict[str, Any] | None, mine: set[int]) -> set[str]:
    """ "Once a Trobil Card is flipped over, only the owner may look at the card." """
    return {card for seat, area in enumerate((state or {}).get("seats", [])) if seat not in mine
            for card in area["flipped"]}


def check_flipped_hidden(app: Any, caller: Caller, game_id: str, seed_hex: str) -> int:
    """Every route as `caller`; returns how many flipped cards of others were held back."""
    meeple = app.extensions["meeple"]
    game = caller.get(f"/v1/games/{game_id}").json
    mine = seats_of(caller, game)
    held_back = 0
    for route, body in every_route(caller, game_id, game["version"]):
        text = json.dumps(body)
        assert seed_hex not in text, f"{route} shows the seed"
        if route in ("events", "record"):
            assert_log_private(body["items" if route == "events" else "events"], mine)
            continue
        secret = flipped_of_others(meeple.table_at(game_id, body["version"]).state, mine)
        shown = sorted(card for card in secret if f'"{card}"' in text)
        assert not shown, f"{route} shows flipped Trobils {shown} of another seat"
        held_back += len(secret)
    return held_back


def test_no_route_shows_a_flipped_trobil_to_anyone_but_its_owner(app, alice, bob, carol,
                                                                  client):
    spectator = Caller(client, "dave")
    game = alice.create(seats=3, type=TROBILS)
    for caller in (bob, carol):
        caller.post(f"/v1/games/{game['id']}/join", {})
    seed_hex = app.extensions["meeple"].store.get_seed(game["id"]).hex()
    players = {0: alice, 1: bob, 2: carol}
    rng = random.Random(5)
    held_back = 0
    for step in range(1500):
        current = alice.get(f"/v1/games/{game['id']}").json
        if current["status"] != "active":
            break
        seat = current["actors"][0]
        listed = players[seat].get(f"/v1/games/{game['id']}/moves?seat={seat}").json
        # Flip whenever the Star offers it, so that there are secrets to keep.
        flips = [m for m in listed["moves"] if m["id"].startswith("flip:")]
        move = flips[0] if flips else rng.choice(listed["moves"])
        played = players[seat].post(f"/v1/games/{game['id']}/moves",
                                    {"seat": seat, "moves": [{"id": move["id"]}],
                                     "expected_version": listed["version"]})
        assert played.status_code == 201, played.json
        if played.json["game"]["status"] != "active":
            break
        assert_log_private(played.json["events"], {seat})
        if step % 100 == 99:
            for caller in (alice, bob, carol, spectator):
                held_back += check_flipped_hidden(app, caller, game["id"], seed_hex)
    assert held_back > 0, "no Trobil was ever flipped: the check proved nothing"
