"""Every read route answers an archived game as it answered before the game left Redis,
for every reader (issue 18, point 8); the game takes no more writes."""

from __future__ import annotations

from typing import Any

from flask import Flask

from events.records.archiving import archive_game
from service import create_app
from tests.conftest import ON_BOTH_BACKENDS
from tests.service.conftest import Caller
from tests.service.test_records_api import finish


def answers(app: Flask, game_id: str, callers: dict[str, Caller | None],
            record: dict[str, Any]) -> dict[str, Any]:
    """What each reader gets from each read route: status, body, ETag."""
    client = app.test_client()
    paths = [f"/v1/games/{game_id}", f"/v1/games/{game_id}/events",
             f"/v1/games/{game_id}/events?after=7&limit=5", f"/v1/games/{game_id}/table",
             f"/v1/games/{game_id}/moves", f"/v1/games/{game_id}/messages",
             f"/v1/games/{game_id}/record", f"/v1/games/{game_id}/stream?after=0",
             f"/v1/games/{game_id}/stream?after=30",
             *(f"/v1/games/{game_id}/state?version={v}" for v in (1, 3, 20, 57))]
    seen: dict[str, Any] = {}
    for name, caller in callers.items():
        headers = caller.headers if caller is not None else {}
        for path in paths:
            got = client.get(path, headers=headers)
            body = got.json if got.is_json else got.get_data(as_text=True)
            seen[f"{name} {path}"] = (got.status_code, body, got.headers.get("ETag"))
    verified = client.post("/v1/records/verify", json=record)
    seen["verify"] = (verified.status_code, verified.json)
    return seen


@ON_BOTH_BACKENDS
def test_every_read_route_answers_an_archived_game_the_same(app, alice, bob, carol, tmp_path):
    game = alice.create(seats=2)
    bob.post(f"/v1/games/{game['id']}/join", {})
    finish(alice, bob, game["id"])
    assert alice.post(f"/v1/games/{game['id']}/messages", {"text": "gg"}).status_code == 201
    record = alice.get(f"/v1/games/{game['id']}/record").json
    callers = {"alice": alice, "bob": bob, "carol": carol, "anonymous": None}
    before = answers(app, game["id"], callers, record)
    assert before[f"anonymous /v1/games/{game['id']}/stream?after=0"][1].count("event:") > 50

    moved = archive_game(app.extensions["meeple"], game["id"], app.extensions["meeple_keys"])
    assert moved is not None
    meeple = app.extensions["meeple"]
    assert not meeple.store.in_redis(game["id"]) and meeple.store.archived(game["id"])

    assert answers(app, game["id"], callers, record) == before
    fresh = create_app(app.config)  # another process: nothing of the game in its caches
    assert answers(fresh, game["id"], callers, record) == before
    late = bob.post(f"/v1/games/{game['id']}/messages", {"text": "one more thing"})
    assert late.status_code == 409 and late.json["code"] == "game_archived", late.json


def test_an_unreachable_archive_is_503_with_retry_after(app, alice, bob, tmp_path):
    game = alice.create(seats=2)
    bob.post(f"/v1/games/{game['id']}/join", {})
    finish(alice, bob, game["id"])
    archive_game(app.extensions["meeple"], game["id"], app.extensions["meeple_keys"])
    folder = app.extensions["meeple"].store.archive.path(game["id"]).parent
    folder.rename(folder.with_name("away"))
    folder.write_text("not a folder: the archive's disk is not what it was")
    fresh = create_app(app.config).test_client()
    got = fresh.get(f"/v1/games/{game['id']}/events", headers=alice.headers)
    assert got.status_code == 503 and got.json["code"] == "archive_unavailable", got.json
    assert got.headers["Retry-After"] == "1"


def damage(app: Flask, game_id: str) -> None:
    path = app.extensions["meeple"].store.archive.path(game_id)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


def test_one_damaged_archive_leaves_the_lists_working(app, alice, bob):
    """An archive that cannot be read is 503 archive_unavailable for that game's routes;
    the lists that name it (the lobby, a player's games) still answer, with the version the
    lobby knows (found by an outside audit: they answered 503 to everyone)."""
    game = alice.create(seats=2)
    bob.post(f"/v1/games/{game['id']}/join", {})
    finish(alice, bob, game["id"])
    assert archive_game(app.extensions["meeple"], game["id"], app.extensions["meeple_keys"])
    damage(app, game["id"])
    fresh = create_app(app.config).test_client()  # another process: no cached copy
    got = fresh.get(f"/v1/games/{game['id']}")
    assert got.status_code == 503 and got.json["code"] == "archive_unavailable", got.json
    lobby = fresh.get("/v1/games?status=ended")
    inbox = fresh.get("/v1/players/me/games", headers=bob.headers)
    assert (lobby.status_code, inbox.status_code) == (200, 200), (lobby.json, inbox.json)
    listed = [g for g in lobby.json["items"] if g["id"] == game["id"]]
    assert listed and listed[0]["status"] == "ended"


def test_a_missing_archive_document_is_503_not_no_such_game(app, alice, bob):
    """A public game the lobby lists as ended whose document is gone from the archive (lost,
    moved) is out of reach for now, 503 archive_unavailable, not 404: nothing may make a
    finished game look as if it never was."""
    game = alice.create(seats=2)
    bob.post(f"/v1/games/{game['id']}/join", {})
    finish(alice, bob, game["id"])
    assert archive_game(app.extensions["meeple"], game["id"], app.extensions["meeple_keys"])
    app.extensions["meeple"].store.archive.path(game["id"]).unlink()
    fresh = create_app(app.config).test_client()
    for path in ("", "/events", "/record"):
        got = fresh.get(f"/v1/games/{game['id']}{path}", headers=alice.headers)
        assert got.status_code == 503 and got.json["code"] == "archive_unavailable", got.json
    assert fresh.get("/v1/games/0123456789abcdef").status_code == 404  # no game stays 404
