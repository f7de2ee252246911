"""Issue 12's acceptance: "Old-version games (created before the change, kept as golden records
and as a live game in a test store) still play, replay and verify."

The golden records are tests/records/test_golden.py's. The live game: a rules_version 1 game
half played a month ago, in the old record format (no game id in GameCreated, no seat seeds),
written into the store exactly as the server of that time wrote it, as if this server had
hosted it before the upgrade. This server then plays it on to the end under version 1
(random legal moves through the use cases, the record through the API), and the record
verifies with this server's key and re-enacts hash for hash, while a table opened now gets
the newest rules."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask import Flask

from events.accounts.players import Player
from events.application.offline import OfflineLog, fixed_clock, play_random_move, reenact
from events.domain.table import Status, decide_create, decide_join
from events.records.keys import trusted_keys
from events.records.verify import verify_record
from games.bots import random_move
from games.registry import get_game
from games.rng import Rng
from tests.service.conftest import Caller


def stored_before_the_upgrade(app: Flask, game_type: str, players: int) -> str:
    """Half a version 1 game, in the store as the old server left it."""
    game_id, seed = f"old-{game_type}", f"old {game_type}".encode()
    log = OfflineLog(game_id, seed, fixed_clock(datetime.now(UTC) - timedelta(days=30)))
    old = get_game(game_type, "1")
    log.append([decide_create(old, players, {}, hashlib.sha256(seed).hexdigest())])
    for seat in range(players):
        log.append(decide_join(log.table, f"p_old{seat}", f"old {seat}", seat))
    rng = Rng(b"before the upgrade", players)
    while sum(e["type"] == "MovePlayed" for e in log.envelopes) < 60:
        play_random_move(log, rng)
    meeple = app.extensions["meeple"]
    meeple.store.put_seed(game_id, seed)
    meeple.store.import_sealed(game_id, log.envelopes)
    return game_id


@pytest.mark.parametrize("game_type", ["res-publica-2230ad", "asking-for-trobils"])
def test_a_live_version_1_game_plays_on_and_verifies_under_version_1(
        app: Flask, client: Any, game_type: str) -> None:
    meeple = app.extensions["meeple"]
    game_id = stored_before_the_upgrade(app, game_type, 3)
    table = meeple.load(game_id)
    assert table.rules_version == "1" and table.status is Status.ACTIVE
    assert table.game is get_game(table.type, "1")
    people = {s.seat: Player(s.player_id, s.name) for s in table.seats}
    rng = Rng(b"plays on", 1)
    for _ in range(20_000):
        if table.status is Status.ENDED:
            break
        assert table.state is not None
        seat = table.actors()[0]
        move = random_move(table.game, table.state, seat, rng)
        table = meeple.play_moves(people[seat], game_id, [{"id": move["id"]}],
                                  table.version, seat).table
    assert table.status is Status.ENDED and table.rules_version == "1"
    auditor = Caller(client, "auditor")
    served = auditor.get(f"/v1/games/{game_id}/record")
    assert served.status_code == 200, served.json
    finished = served.json
    assert finished["game"]["rules_version"] == "1" and finished["complete"] is True
    assert set(finished["events"][0]["data"]) == {
        "type", "rules_version", "options", "seats", "seed_commitment"}  # the old format
    keys = trusted_keys(auditor.get("/v1/keys").json)
    report = verify_record(json.loads(json.dumps(finished)), keys)
    assert report.ok, [p.describe() for p in report.problems]
    assert report.checked["rules"].endswith("rules_version 1")
    assert reenact(finished) == finished["events"]
    # A table opened now gets the newest rules.
    made = auditor.post("/v1/games", {"type": table.type, "seats": 2})
    assert made.status_code == 201 and made.json["rules_version"] == get_game(
        table.type).rules_version != "1"
