"""POST /v1/records and POST /v1/records/verify with records signed by this server's own key
whose event data or header break the rules (events/records/verify/data.py, shape.py): the
import answers 422 with the report, never 500, and writes nothing; the verifier answers its
report. Records are played offline (events.application.offline) at today's date and signed
with the server's key, so only the data checks can refuse them."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import redis
from flask import Flask

from events.application.offline import OfflineLog, fixed_clock, play_offline, play_random_move
from events.domain.envelope import NewEvent
from events.domain.table import Status
from events.records.record import build_record, sign_record
from events.records.verify import Report
from games.rng import Rng
from tests.records.helpers import reseal
from tests.service.conftest import Caller

Record = dict[str, Any]
SEED = b"tests/service: import checks"
GAME_TYPE = "asking-for-trobils"


def signed(app: Flask, record: Record) -> Record:
    key_id, private_key = app.extensions["meeple_keys"].current()
    return json.loads(json.dumps(sign_record(record, key_id, private_key)))


def a_record(app: Flask, game_id: str) -> Record:
    """A finished game played an hour ago, with table talk and ratings, signed here."""
    clock = fixed_clock(datetime.now(UTC).replace(microsecond=0) - timedelta(hours=1))
    rng = Rng(b"tests/service import bots", 2)
    table, envelopes = play_offline(GAME_TYPE, 2, SEED, rng, moves=2, game_id=game_id,
                                    clock=clock, options={"short_game": True})
    log = OfflineLog(game_id, SEED, clock)
    log.table, log.envelopes = table, list(envelopes)
    log.append([NewEvent("MessagePosted", {"seat": 0, "text": "gl hf"}, "p_alice")])
    while log.table.status is not Status.ENDED:
        play_random_move(log, rng)
    rows = [{"seat": s, "player_id": f"p_{n}", "before": {"mu": 25.0, "sigma": 8.3},
             "after": {"mu": 25.0, "sigma": 8.1}} for s, n in enumerate(("alice", "bob"))]
    log.append([NewEvent("GameScored", {"ratings": rows}, "system")])
    return signed(app, build_record(log.table, log.envelopes, SEED, []))


def index_of(record: Record, kind: str) -> int:
    return next(i for i, e in enumerate(record["events"]) if e["type"] == kind)


def tampered(app: Flask, record: Record, change: Callable[[Record], int]) -> tuple[Record, int]:
    record = copy.deepcopy(record)
    index = change(record)
    record["events"] = reseal(record["events"])
    return signed(app, record), index


def junk_message(record: Record) -> int:
    k = index_of(record, "MessagePosted")
    record["events"][k]["data"] = {"seat": "zero"}
    return k


def long_message(record: Record) -> int:
    k = index_of(record, "MessagePosted")
    record["events"][k]["data"]["text"] = "x" * 501
    return k


def junk_ratings(record: Record) -> int:
    k = index_of(record, "GameScored")
    record["events"][k]["data"] = {"ratings": [{"seat": 0, "mu": "high"}]}
    return k


def no_ratings(record: Record) -> int:
    k = index_of(record, "GameScored")
    record["events"][k]["data"] = {}
    return k


def long_name(record: Record) -> int:
    k = index_of(record, "SeatTaken")
    name = "a" * 2500 + "\r\n" + "b" * 2498
    record["events"][k]["data"]["name"] = record["game"]["seats"][0]["name"] = name
    return k


def year_9999(record: Record) -> int:
    record["events"][0]["at"] = record["game"]["created_at"] = "9999-12-31T23:59:59.000Z"
    return 0


def bad_seat_seed(record: Record) -> int:
    record["events"][0]["data"]["dealing"] = "seats"
    k = index_of(record, "SeatTaken")
    record["events"][k]["data"]["seed"] = "not a seed!"
    record["events"][k + 1]["data"]["seed"] = "fine"
    return k


CHANGES = [junk_message, long_message, junk_ratings, no_ratings, long_name, year_9999,
           bad_seat_seed]


def game_keys(redis_client: redis.Redis, game_id: str) -> list[bytes]:
    return list(redis_client.scan_iter(match=f"*{game_id}*"))


@pytest.mark.parametrize("change", CHANGES, ids=lambda c: c.__name__)
def test_a_record_with_junk_data_is_refused_with_its_report_and_leaves_nothing(
        app: Flask, alice: Caller, redis_client: redis.Redis,
        change: Callable[[Record], int]) -> None:
    game_id = f"import-{change.__name__.replace('_', '-')}"
    record, k = tampered(app, a_record(app, game_id), change)

    refused = alice.post("/v1/records", record)

    assert refused.status_code == 422, refused.json
    assert refused.json["code"] == "record_invalid"
    report = refused.json["report"]
    assert report["ok"] is False
    versions = {p["version"] for p in report["problems"]}
    assert k + 1 in versions, report["problems"]
    ours = [p for p in report["problems"] if p["version"] == k + 1]
    assert {p["check"] for p in ours} <= {"data", "format", "replay"}
    assert alice.get(f"/v1/games/{game_id}").status_code == 404
    assert game_keys(redis_client, game_id) == []  # nothing half-imported

    answer = alice.post("/v1/records/verify", record)  # the verifier's report, not a 500
    assert answer.status_code == 200 and answer.json["ok"] is False
    assert answer.json["problems"] == report["problems"]


def test_the_same_records_untouched_are_imported(app: Flask, alice: Caller) -> None:
    record = a_record(app, "import-fine")
    imported = alice.post("/v1/records", record)
    assert imported.status_code == 201, imported.json
    messages = alice.get("/v1/games/import-fine/messages")
    assert messages.status_code == 200 and [m["text"] for m in messages.json["items"]] == [
        "gl hf"]


def test_a_game_from_the_servers_future_is_not_imported(
        app: Flask, alice: Caller, redis_client: redis.Redis) -> None:
    record = a_record(app, "import-future")
    later = datetime.now(UTC) + timedelta(days=3)
    shift = later - datetime.fromisoformat(record["game"]["created_at"].replace("Z", "+00:00"))

    def moved(record: Record) -> int:
        for envelope in record["events"]:
            moment = datetime.fromisoformat(envelope["at"].replace("Z", "+00:00")) + shift
            envelope["at"] = moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        record["game"]["created_at"] = record["events"][0]["at"]
        return 0

    future, _ = tampered(app, record, moved)
    assert alice.post("/v1/records/verify", future).json["ok"] is True  # a valid record ...
    refused = alice.post("/v1/records", future)  # ... of a game this server cannot have had
    assert refused.status_code == 422, refused.json
    first = refused.json["report"]["first"]
    assert first["path"] == "game.created_at" and "future" in first["detail"]
    assert [p["version"] for p in refused.json["report"]["problems"]][1] == 1
    assert game_keys(redis_client, "import-future") == []


def test_a_record_this_server_cannot_load_is_refused_before_anything_is_written(
        app: Flask, alice: Caller, redis_client: redis.Redis,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Were the verifier ever to pass junk, the import still folds the game before it
    writes: a 422, not a game that answers 500 at every read."""
    record, k = tampered(app, a_record(app, "import-unloadable"), no_ratings)
    monkeypatch.setattr("service.api.records.verify_record",
                        lambda record, keys: Report(True, "valid", [], {"events": 0}))

    refused = alice.post("/v1/records", record)

    assert refused.status_code == 422, refused.json
    first = refused.json["report"]["first"]
    assert first["version"] == k + 1 and "cannot load" in first["detail"]
    assert game_keys(redis_client, "import-unloadable") == []
