"""Records of games played the server's way: through the use cases on the test redis (times
and hashes round-tripped through the stream), scored by the scoring job. Each verifies."""

from __future__ import annotations

import json

import pytest
import redis

from cli.commands.simulate import play_bot_moves
from events.accounts.players import Player
from events.application.meeple import Meeple
from events.domain.table import Status
from events.records.record import build_record
from events.records.verify import verify_record
from games.rng import Rng
from tests.records.helpers import GAME_TYPES, sign
from workers.jobs import score_game


@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_a_game_played_through_the_store_makes_a_record_that_verifies(
        game_type: str, redis_url: str, redis_client: redis.Redis,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEEPLE_REDIS_URL", redis_url)  # the scoring job reads it
    app = Meeple(redis_client)
    table = app.create_game(Player("p_host", "host"), game_type, 2, bots=[0, 1], join=False)
    rng = Rng(b"tests/records server game", 2)
    partial = None
    while table.status is not Status.ENDED:
        table = play_bot_moves(app, table, rng, batch=3)
        if partial is None and table.version > 40:
            partial = build_record(table, app.events(table.id), None, [0])
    score_game(table.id)
    table = app.load(table.id)

    record = sign(build_record(table, app.events(table.id), app.store.get_seed(table.id), []))
    report = verify_record(json.loads(json.dumps(record)))

    assert report.ok, [problem.describe() for problem in report.problems]
    moves = sum(1 for e in record["events"] if e["type"] == "MovePlayed")
    assert report.checked["moves_reexecuted"] == moves > 50  # a real game, every move again
    assert record["events"][-1]["type"] == "GameScored"
    assert "GameScored" in report.checked["not_rederived"]
    assert partial is not None
    assert verify_record(sign(partial)).status == "partial"


def test_a_live_game_draws_by_moves_whatever_talk_and_snapshots_come_between(
        redis_client: redis.Redis) -> None:
    """The server's own path (decide, append, fold from a snapshot in another process): a new
    game says "draws": "moves", and with talk between its moves and a reload from a snapshot
    midway, its record verifies: every draw was the one of the move's number, not of its
    version (which the talk moved)."""
    alice = Player("p_alice", "alice")
    app = Meeple(redis_client)
    table = app.create_game(alice, "asking-for-trobils", 2, bots=[1], seat_seed="alices-seed")
    assert app.events(table.id, 1, 1)[0]["data"]["draws"] == "moves"
    rng = Rng(b"tests/records live draws", 2)
    played = 0
    while table.status is not Status.ENDED:
        if played % 5 == 2:
            app.post_message(alice, table.id, f"move {played}")
        if played == 30:
            app = Meeple(redis_client)  # another process: the table from its snapshot
        table = play_bot_moves(app, app.load(table.id), rng, batch=1)
        played += 1
    assert table.moves == played
    record = sign(build_record(table, app.events(table.id), app.store.get_seed(table.id), []))
    report = verify_record(json.loads(json.dumps(record)))
    assert report.ok, [problem.describe() for problem in report.problems]
    talk = sum(1 for e in record["events"] if e["type"] == "MessagePosted")
    assert talk > 5 and report.checked["not_rederived"]["MessagePosted"].startswith(f"{talk} ×")
