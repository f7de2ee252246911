"""Game records over the API: signed, verifiable by the server and offline, importable
elsewhere hash for hash; before the end, only the caller's redacted view."""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from events.domain.envelope import NewEvent
from events.exceptions import GameExists
from service import create_app
from tests.conftest import free_port, start_redis
from tests.responses import body_of
from tests.service.conftest import Caller


def finish(alice: Caller, bob: Caller, game_id: str) -> None:
    """Both seats play their first legal move until the game ends (one request per move)."""
    game = alice.get(f"/v1/games/{game_id}").json
    for _ in range(5000):
        if game["status"] == "ended":
            return
        seat = game["actors"][0]
        caller = alice if seat == 0 else bob
        listed = caller.get(f"/v1/games/{game_id}/moves?seat={seat}").json
        played = caller.post(f"/v1/games/{game_id}/moves",
                             {"expected_version": listed["version"], "seat": seat,
                              "moves": [{"id": listed["moves"][0]["id"]}]})
        assert played.status_code == 201, played.json
        game = played.json["game"]
    raise AssertionError("the game did not end")


@pytest.fixture()
def finished(alice: Caller, bob: Caller) -> tuple[str, dict[str, Any]]:
    game = alice.create(seats=2)
    bob.post(f"/v1/games/{game['id']}/join", {})
    finish(alice, bob, game["id"])
    record = alice.get(f"/v1/games/{game['id']}/record")
    assert record.status_code == 200, record.json
    return game["id"], record.json


def second_server(tmp_path: Path, name: str, trusted: Path | None) -> Iterator[Flask]:
    """Another Meeple on its own, empty redis-server; `trusted`: its MEEPLE_TRUSTED_KEYS."""
    port = free_port()
    proc = start_redis(tmp_path / name, port)
    try:
        yield create_app({"REDIS_URL": f"redis://127.0.0.1:{port}/0", "DISPATCH": False,
                          "RATELIMIT_PER_CALLER": "100000 per minute",
                          "RATELIMIT_REGISTRATION": "100000 per minute",
                          "KEYS_DIR": str(tmp_path / f"{name}-keys"),
                          "TRUSTED_KEYS": str(trusted) if trusted else None})
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.fixture()
def other_server(tmp_path: Path, client) -> Iterator[Flask]:
    """A second Meeple whose operator trusts the first one's keys: where a record moves to."""
    trusted = tmp_path / "trusted-keys.json"
    trusted.write_text(json.dumps(client.get("/v1/keys").json))
    yield from second_server(tmp_path, "other", trusted)


@pytest.fixture()
def stranger_server(tmp_path: Path) -> Iterator[Flask]:
    """A second Meeple that trusts no key but its own."""
    yield from second_server(tmp_path, "stranger", None)


def test_a_finished_game_has_a_complete_signed_record_that_verifies(client, finished):
    game_id, record = finished
    assert record["complete"] is True and record["game"]["id"] == game_id
    assert hashlib.sha256(bytes.fromhex(record["seed"])).hexdigest() == record["seed_commitment"]
    assert record["scores"] and [e["v"] for e in record["events"]] == list(
        range(1, len(record["events"]) + 1))
    keys = client.get("/v1/keys").json["keys"]
    assert [k["id"] for k in keys] == [record["signature"]["key_id"]]
    report = client.post("/v1/records/verify", json=record)
    assert report.status_code == 200 and report.json["ok"] is True, report.json


def test_a_tampered_record_is_reported_where_it_was_changed(client, finished):
    _, record = finished
    bad = copy.deepcopy(record)
    move = next(e for e in bad["events"] if e["type"] == "MovePlayed")
    move["data"]["move"]["id"] = "draw"
    report = client.post("/v1/records/verify", json=bad).json
    assert report["ok"] is False
    assert str(move["v"]) in str(report["first"]) or report["first"]["version"] == move["v"]


def test_the_verifier_takes_any_json_without_a_500(client):
    for body in ({}, {"format": 3}, {"events": "x"}, []):
        answer = client.post("/v1/records/verify", json=body)
        assert answer.status_code in (200, 400), answer.json
        if answer.status_code == 200:
            assert answer.json["ok"] is False and answer.json["problems"]
    assert client.post("/v1/records/verify", data="{", content_type="application/json"
                       ).status_code == 400


def test_a_record_imported_on_a_fresh_redis_is_the_same_game_hash_for_hash(
        client, finished, other_server):
    game_id, record = finished
    elsewhere = Caller(other_server.test_client(), "archivist")
    imported = elsewhere.post("/v1/records", record)
    assert imported.status_code == 201, imported.json
    assert imported.json["id"] == game_id and imported.json["status"] == "ended"
    served = elsewhere.get(f"/v1/games/{game_id}/record")
    again = served.json
    assert again == record  # as it came: event by event, hash by hash, its own signature
    assert again["events"] == record["events"]
    signer = record["signature"]["key_id"]
    assert served.headers["Meeple-Imported"].startswith(f"signed-by={signer}; imported-at=")
    own = [k["id"] for k in other_server.test_client().get("/v1/keys").json["keys"]]
    assert signer not in own  # the other server never signed a game it did not host
    assert elsewhere.post("/v1/records", record).status_code == 201  # the same record: no-op
    listed = elsewhere.get("/v1/games?status=ended").json["items"]
    assert [g["id"] for g in listed] == [game_id]


def test_a_games_own_record_imported_where_it_was_played_is_that_game(client, alice,
                                                                    finished):
    """The record stops at SeedRevealed; the game's stream here goes on (GameScored, by the
    scoring worker). Importing the record into the server that hosted it is that game, not
    "another game" (an outside audit)."""
    game_id, record = finished
    app = client.application.extensions["meeple"]
    table = app.load(game_id)
    app.append_system_events(game_id, [NewEvent("GameScored", {"ratings": []}, "system")],
                             table.version)
    again = alice.post("/v1/records", record)
    assert again.status_code == 201, again.json
    assert again.json["id"] == game_id and again.json["version"] == table.version + 1


def test_an_unverifiable_or_partial_record_is_not_imported(alice, bob, finished, other_server):
    _, record = finished
    elsewhere = Caller(other_server.test_client(), "archivist")
    bad = copy.deepcopy(record)
    bad["seed"] = "00" * 32
    refused = elsewhere.post("/v1/records", bad)
    assert refused.status_code == 422 and refused.json["code"] == "record_invalid"
    assert refused.json["report"]["ok"] is False and refused.json["report"]["problems"]
    running = alice.create(seats=2)
    bob.post(f"/v1/games/{running['id']}/join", {})
    partial = alice.get(f"/v1/games/{running['id']}/record").json
    refused = elsewhere.post("/v1/records", partial)
    assert refused.status_code == 422 and refused.json["code"] == "record_invalid"
    assert elsewhere.get("/v1/games").json["items"] == []  # nothing was written


def test_an_import_never_overwrites_another_game(app, alice, bob, finished):
    game_id, record = finished
    other = alice.create(seats=2)
    bob.post(f"/v1/games/{other['id']}/join", {})
    finish(alice, bob, other["id"])
    other_record = alice.get(f"/v1/games/{other['id']}/record").json
    meeple = app.extensions["meeple"]
    with pytest.raises(GameExists):  # another game's events under this game's id
        meeple.import_game(game_id, other_record["events"], bytes.fromhex(other_record["seed"]))
    assert meeple.events(game_id) == record["events"]
    assert alice.post("/v1/records", record).status_code == 201  # the same game: a no-op


def test_before_the_end_the_record_is_the_callers_redacted_view(alice, bob, client):
    game = alice.create(seats=2)
    bob.post(f"/v1/games/{game['id']}/join", {})
    for _ in range(30):
        current = alice.get(f"/v1/games/{game['id']}").json
        (alice if 0 in current["actors"] else bob).play_first_move(game["id"])
    spectator = Caller(client, "carol")
    for caller, seats in ((alice, [0]), (bob, [1]), (spectator, [])):
        record = caller.get(f"/v1/games/{game['id']}/record").json
        assert record["complete"] is False and record["redacted_for"] == seats
        assert record["seed"] is None and record["scores"] is None
        others = [e for e in record["events"]
                  if e["type"] == "MovePlayed" and e["data"]["seat"] not in seats]
        assert others and all(e.get("redacted") and "move" not in e["data"] for e in others)
        report = client.post("/v1/records/verify", json=record).json
        assert report["ok"] is False  # a partial record cannot be re-executed: it says so


def test_after_a_key_rotation_old_records_still_verify(app, alice, client, finished):
    from click.testing import CliRunner

    from cli.main import main

    game_id, old = finished
    rotated = CliRunner().invoke(main, ["keys", "rotate", "--dir", app.config["KEYS_DIR"]])
    assert rotated.exit_code == 0, rotated.output
    keys = client.get("/v1/keys").json["keys"]
    assert len(keys) == 2 and [k["current"] for k in keys] == [False, True]
    # A finished game's record is final: the key that signed it at the end stays its key.
    again = alice.get(f"/v1/games/{game_id}/record").json
    assert again == old and again["signature"]["key_id"] == keys[0]["id"]
    later = alice.create(seats=2)
    alice.post(f"/v1/games/{later['id']}/join", {})  # both seats hers
    finish(alice, alice, later["id"])
    new = alice.get(f"/v1/games/{later['id']}/record").json
    assert new["signature"]["key_id"] == keys[1]["id"]
    for record in (old, new):
        assert client.post("/v1/records/verify", json=record).json["ok"] is True
    listed = CliRunner().invoke(main, ["keys", "list", "--dir", app.config["KEYS_DIR"]])
    assert old["signature"]["key_id"] in listed.output and "current" in listed.output


def junk_record(events: int, filler: str = "") -> bytes:
    """What an attacker sends to make the verifier work: a record whose events are empty
    objects (each a problem), padded to size with `filler`."""
    body = {"format": "meeple-record/1", "game": {}, "seed_commitment": "", "complete": True,
            "redacted_for": None, "events": [{} for _ in range(events)], "seed": None,
            "scores": None, "signature": {}, "note": filler}
    return json.dumps(body).encode()


def test_the_size_of_a_record_to_verify_is_bounded_smaller_without_a_key(client, alice):
    json_headers = {"Content-Type": "application/json"}
    over_a_megabyte = junk_record(10, "x" * (1024 * 1024 + 10))
    response = client.post("/v1/records/verify", data=over_a_megabyte, headers=json_headers)
    assert response.status_code == 413 and response.json["code"] == "too_large"
    keyed = {**alice.headers, **json_headers}
    answer = client.post("/v1/records/verify", data=over_a_megabyte, headers=keyed)
    assert answer.status_code == 200 and answer.json["ok"] is False
    over_four = junk_record(10, "x" * (4 * 1024 * 1024 + 10))
    assert client.post("/v1/records/verify", data=over_four, headers=keyed).status_code == 413
    # Objects cost memory out of proportion to their bytes: their count is bounded too.
    many = junk_record(250_000)
    assert len(many) < 1024 * 1024
    refused = client.post("/v1/records/verify", data=many, headers=json_headers)
    assert refused.status_code == 413 and "200000 JSON objects" in refused.json["detail"]


def test_imports_per_player_and_day_are_bounded(alice, finished, monkeypatch):
    _, record = finished
    monkeypatch.setenv("MEEPLE_MAX_IMPORTS_PER_DAY", "2")
    assert [alice.post("/v1/records", record).status_code for _ in range(2)] == [201, 201]
    refused = alice.post("/v1/records", record)
    assert refused.status_code == 409 and refused.json["code"] == "quota_exceeded"


def test_a_record_read_while_a_move_lands_is_the_record_of_the_table_read(
        app, alice, bob, monkeypatch):
    """The finding: `GET …/record` during bot play read the table, then the events to a later
    end, and failed with a 500 (25 times in 1,431). Here a move lands between the two reads."""
    from events.application.meeple import Meeple

    game = alice.create(seats=2)
    bob.post(f"/v1/games/{game['id']}/join", {})
    meeple = app.extensions["meeple"]
    load = Meeple.load

    def load_then_someone_moves(self, game_id):
        table = load(self, game_id)
        monkeypatch.setattr(Meeple, "load", load)  # once
        (alice if 0 in table.actors() else bob).play_first_move(game_id)
        return table

    before = meeple.load(game["id"]).version
    monkeypatch.setattr(Meeple, "load", load_then_someone_moves)
    answer = alice.get(f"/v1/games/{game['id']}/record")
    assert answer.status_code == 200, answer.json
    assert [e["v"] for e in answer.json["events"]] == list(range(1, before + 1))
    assert meeple.load(game["id"]).version > before


def test_a_record_of_a_key_nobody_here_trusts_is_not_imported(finished, stranger_server):
    """Records vouch only for what was played here: a record signed by another server's key,
    which this operator does not trust, is refused, however well it verifies."""
    _, record = finished
    elsewhere = Caller(stranger_server.test_client(), "archivist")
    refused = elsewhere.post("/v1/records", record)
    assert refused.status_code == 422 and refused.json["code"] == "record_invalid"
    assert record["signature"]["key_id"] in refused.json["detail"]
    assert "MEEPLE_TRUSTED_KEYS" in refused.json["detail"]
    assert elsewhere.get("/v1/games").json["items"] == []


def test_a_finished_record_is_the_same_bytes_at_every_fetch(app, alice, bob, finished):
    """"A finished game's record is final": fetched again after table talk and after the
    scoring (GameScored appended, as the scoring job does), it is the same bytes; it ends at
    SeedRevealed."""
    game_id, _ = finished
    first = alice.get(f"/v1/games/{game_id}/record").get_data()
    assert alice.post(f"/v1/games/{game_id}/messages", {"text": "good game"}).status_code == 201
    meeple = app.extensions["meeple"]
    meeple.append_system_events(game_id, [NewEvent("GameScored", {"ratings": []}, "system")],
                                meeple.load(game_id).version)
    second = alice.get(f"/v1/games/{game_id}/record").get_data()
    assert second == first
    assert json.loads(first)["events"][-1]["type"] == "SeedRevealed"


def test_an_imported_game_never_touches_the_ratings(finished, other_server, redis_url,
                                                    monkeypatch):
    """"Imported games never touch ratings or leaderboards, not even after a later commit on
    them": table talk at an imported table queues no scoring, and the scoring job refuses."""
    from rq import Queue, SimpleWorker

    from events.application.dispatch import RQDispatcher
    from events.application.meeple import Meeple
    from workers.jobs import score_game

    game_id, record = finished
    archivist = Caller(other_server.test_client(), "archivist")
    assert archivist.post("/v1/records", record).status_code == 201
    other = other_server.extensions["meeple"]
    queued = Meeple(other.redis, RQDispatcher(other.redis))
    dispatcher = RQDispatcher(other.redis)
    dispatcher.after_commit(other.load(game_id))  # what any later commit on it asks for
    assert Queue("scoring", connection=other.redis).count == 0
    monkeypatch.setenv("MEEPLE_REDIS_URL", other_server.config["REDIS_URL"])
    assert score_game(game_id) == "imported: never rated"
    SimpleWorker([Queue("scoring", connection=other.redis)],
                 connection=other.redis).work(burst=True)
    assert queued.load(game_id).ratings is None
    assert other_server.test_client().get(
        f"/v1/game-types/{record['game']['type']}/leaderboard").json["rows"] == []


def test_a_new_server_lists_its_key_before_it_has_signed_anything(tmp_path: Path) -> None:
    """"GET /v1/keys lists the server's key from its first start, not from its first
    signature": an auditor can fetch the key before any record exists (that records carry
    the listed key: test_a_finished_game_has_a_complete_signed_record_that_verifies)."""
    for app in second_server(tmp_path, "fresh", None):
        client = app.test_client()
        keys = body_of(client.get("/v1/keys"))["keys"]
        assert len(keys) == 1 and keys[0]["current"] is True
        assert body_of(client.get("/v1/keys"))["keys"] == keys  # listing twice makes no other


def test_the_api_report_says_partial_as_meeple_verify_does(alice, bob, client):
    """`status` ("valid", "partial", "invalid") is in the API's report too, as in `meeple
    verify --json`: a redacted record of a game in play is "partial", not forged (the
    VerifyReport schema dropped it: an outside audit)."""
    game = alice.create(seats=2)
    bob.post(f"/v1/games/{game['id']}/join", {})
    alice.play_first_move(game["id"])
    partial = alice.get(f"/v1/games/{game['id']}/record").json
    report = client.post("/v1/records/verify", json=partial).json
    assert (report["ok"], report["status"]) == (False, "partial")
    changed = copy.deepcopy(partial)
    changed["game"]["id"] = "another"
    assert client.post("/v1/records/verify", json=changed).json["status"] == "invalid"


@pytest.fixture()
def talkative(redis_url: str, events_url: str, tmp_path: Path) -> Flask:
    """The app of tests/service/conftest.py, with no bound on table talk but the API's."""
    return create_app({"REDIS_URL": redis_url, "EVENTS_URL": events_url, "DISPATCH": False,
                       "RATELIMIT_PER_CALLER": "100000 per minute",
                       "RATELIMIT_REGISTRATION": "100000 per minute",
                       "RATELIMIT_MESSAGES": "100000 per minute",
                       "KEYS_DIR": str(tmp_path / "keys"),
                       "ARCHIVE_URL": str(tmp_path / "archive")})


def test_braces_in_table_talk_do_not_make_a_record_unverifiable(talkative, tmp_path):
    """Table talk of 500 "{" a line counted as objects (a byte count of "{" and "["): 401
    lines made a real game's record too large to verify (413) or import (an outside audit)."""
    client = talkative.test_client()
    alice, bob = Caller(client, "alice"), Caller(client, "bob")
    game = alice.create(seats=2)
    bob.post(f"/v1/games/{game['id']}/join", {})
    for _ in range(401):
        posted = alice.post(f"/v1/games/{game['id']}/messages", {"text": "{" * 500})
        assert posted.status_code == 201, posted.json
    finish(alice, bob, game["id"])
    response = alice.get(f"/v1/games/{game['id']}/record")
    assert response.get_data().count(b"{") > 200_000  # the cheap count trips
    record = response.json
    report = client.post("/v1/records/verify", json=record)
    assert report.status_code == 200 and report.json["status"] == "valid", report.json
    trusted = tmp_path / "trusted-keys.json"
    trusted.write_text(json.dumps(client.get("/v1/keys").json))
    for other in second_server(tmp_path, "other", trusted):
        elsewhere = Caller(other.test_client(), "archivist")
        imported = elsewhere.post("/v1/records", record)
        assert imported.status_code == 201, imported.json
