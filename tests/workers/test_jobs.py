"""Bot turns and scoring run by a real RQ worker on the test redis."""

from __future__ import annotations

import pytest
from rq import Queue, SimpleWorker

from events.accounts.players import Player
from events.application.dispatch import RQDispatcher
from events.application.meeple import Meeple
from events.domain.table import Status
from events.readmodels.ratings import Ratings
from games.bots import random_move
from games.rng import Rng
from workers.jobs import play_bot_turn, score_game

RP = "res-publica-2230ad"


@pytest.fixture()
def app(redis_url, redis_client, monkeypatch) -> Meeple:
    monkeypatch.setenv("MEEPLE_REDIS_URL", redis_url)  # the jobs read it, as in production
    return Meeple(redis_client, RQDispatcher(redis_client))


def run_worker(app: Meeple) -> None:
    # SimpleWorker runs jobs in the worker process (no fork per job): same RQ machinery,
    # fast enough for games of hundreds of bot moves.
    queues = [Queue(name, connection=app.redis) for name in ("ai", "scoring")]
    SimpleWorker(queues, connection=app.redis).work(burst=True)


def types_of(app: Meeple, game_id: str) -> list[str]:
    return [e["type"] for e in app.events(game_id)]


def test_five_bots_finish_a_game_through_the_workers(app):
    table = app.create_game(Player("p_host", "host"), RP, 5, bots=[0, 1, 2, 3, 4], join=False)
    assert table.status is Status.ACTIVE
    run_worker(app)
    final = app.load(table.id)
    assert final.status is Status.ENDED
    types = types_of(app, table.id)
    assert types[-3:] == ["GameEnded", "SeedRevealed", "GameScored"]
    assert types.count("GameScored") == 1


def test_a_duplicate_or_stale_bot_job_changes_nothing(app):
    table = app.create_game(Player("p_host", "host"), RP, 2, bots=[0], join=True)
    run_worker(app)  # the bot plays until it is the human's turn
    after = app.load(table.id)
    assert after.version > table.version and 1 in after.actors()
    assert play_bot_turn(table.id, table.version, 0) == "stale"
    assert play_bot_turn(table.id, after.version, 0) == "stale"  # not the bot's turn
    assert app.load(table.id).version == after.version


def play_to_end(app: Meeple, game_id: str, players: dict[int, Player]) -> None:
    rng = Rng(b"test", 0)
    for _ in range(20_000):
        table = app.load(game_id)
        if table.status is Status.ENDED:
            return
        seat = table.actors()[0]
        assert table.state is not None
        move = random_move(table.game, table.state, seat, rng)
        app.play_moves(players[seat], game_id, [move], table.version, seat)
    raise AssertionError("the game did not end")


def test_scoring_rates_humans_once_and_fills_the_leaderboard(app):
    alice, bob = Player("p_alice", "alice"), Player("p_bob", "bob")
    table = app.create_game(alice, RP, 2)
    app.join_game(bob, table.id)
    play_to_end(app, table.id, {0: alice, 1: bob})
    run_worker(app)
    assert score_game(table.id) == "already scored"  # a retry or duplicate changes nothing
    assert types_of(app, table.id).count("GameScored") == 1
    scored = app.load(table.id)
    assert scored.ratings is not None
    assert {r["player_id"] for r in scored.ratings} == {"p_alice", "p_bob"}
    board = Ratings(app.redis).leaderboard(RP)
    assert {row["player_id"] for row in board} == {"p_alice", "p_bob"}
    ranks = {row["seat"]: row["rank"] for row in scored.result["seats"]}
    if ranks[0] != ranks[1]:  # a tie (rare) leaves both equal
        winner = "p_alice" if ranks[0] < ranks[1] else "p_bob"
        assert board[0]["player_id"] == winner
