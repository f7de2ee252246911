"""The open-table quota (MEEPLE_MAX_OPEN_GAMES) holds under concurrent requests of one player
(the count and the write that adds a table are one step per player), and joining a table that
then still waits for players counts as opening one."""

from __future__ import annotations

import threading

import pytest
import redis

from events.accounts.players import Player, bot_player
from events.application.meeple import Meeple
from events.exceptions import QuotaExceeded
from events.store.clients import EventsClient

RP = "res-publica-2230ad"
LIMIT = 3
ALICE, BOB, CAROL = Player("p_alice", "alice"), Player("p_bob", "bob"), Player("p_carol", "carol")


@pytest.fixture(autouse=True)
def small_quota(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEEPLE_MAX_OPEN_GAMES", str(LIMIT))


def test_concurrent_creations_stop_at_the_quota(redis_client: redis.Redis,
                                                events_redis: EventsClient) -> None:
    # One use case per thread, as in as many API processes.
    apps = [Meeple(redis_client, events=events_redis) for _ in range(16)]
    start = threading.Barrier(len(apps))
    outcomes: list[str] = []

    def create(app: Meeple) -> None:
        start.wait()
        try:
            app.create_game(ALICE, RP, 4)
            outcomes.append("created")
        except QuotaExceeded:
            outcomes.append("refused")

    threads = [threading.Thread(target=create, args=(app,)) for app in apps]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert outcomes.count("created") == LIMIT, outcomes
    assert apps[0].lobby.open_tables(ALICE.id) == LIMIT


def test_joining_a_table_that_still_waits_counts_toward_the_quota(
        redis_client: redis.Redis, events_redis: EventsClient) -> None:
    app = Meeple(redis_client, events=events_redis)
    for _ in range(LIMIT):
        app.create_game(ALICE, RP, 4)
    waiting = app.create_game(BOB, RP, 4)
    with pytest.raises(QuotaExceeded):
        app.join_game(ALICE, waiting.id)
    assert ALICE.id not in [s.player_id for s in app.load(waiting.id).seats]
    # A join that starts the game leaves nothing waiting: allowed at the quota.
    last_seat = app.create_game(BOB, RP, 2)
    assert app.join_game(ALICE, last_seat.id).status.value == "active"
    # Under the quota, a join that leaves the table waiting is fine.
    app.join_game(CAROL, waiting.id)
    assert app.lobby.open_tables(CAROL.id) == 1


def test_bot_only_tables_a_player_runs_at_once_are_bounded(
        redis_client: redis.Redis, events_redis: EventsClient,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot-only table plays to its end on the `ai` workers every table shares: one key
    that opened hundreds of them held up every other table's bots for minutes (an outside
    audit). At most MEEPLE_MAX_BOT_GAMES run at once for a player; one that ends frees its
    place; other players are not held by it."""
    monkeypatch.setenv("MEEPLE_MAX_BOT_GAMES", "2")
    app = Meeple(redis_client, events=events_redis)
    first = app.create_game(ALICE, RP, 2, bots=[0, 1], join=False)
    app.create_game(ALICE, RP, 2, bots=[0, 1], join=False)
    with pytest.raises(QuotaExceeded) as refused:
        app.create_game(ALICE, RP, 2, bots=[0, 1], join=False)
    assert "bots only" in refused.value.detail
    app.create_game(BOB, RP, 2, bots=[0, 1], join=False)  # another player's own count
    app.create_game(ALICE, RP, 2, bots=[1])  # she plays at it, beside a random bot
    table = app.load(first.id)
    while table.status.value != "ended":  # the bots' moves, as the `ai` worker plays them
        seat = table.actors()[0]
        assert table.state is not None
        move = table.game.legal_moves(table.state, seat)[0]
        bot = bot_player(seat, "random")
        table = app.play_moves(bot, first.id, [{"id": move["id"]}], table.version, seat).table
    app.create_game(ALICE, RP, 2, bots=[0, 1], join=False)


def test_tables_with_searching_bots_count_as_bot_tables(
        redis_client: redis.Redis, events_redis: EventsClient,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A person at one seat beside four `ismcts-5000ms` bots costs the `ai` workers as much
    as a bot-only table (outside audit: twelve such tables of one key made another player's
    random bot wait 206 s for its move)."""
    monkeypatch.setenv("MEEPLE_MAX_BOT_GAMES", "2")
    app = Meeple(redis_client, events=events_redis)
    searching = [{"seat": s, "level": "ismcts-5000ms"} for s in (1, 2, 3, 4)]
    app.create_game(ALICE, RP, 5, bots=searching)
    app.create_game(ALICE, RP, 2, bots=[0, 1], join=False)
    with pytest.raises(QuotaExceeded):
        app.create_game(ALICE, RP, 5, bots=searching)
    app.create_game(ALICE, RP, 2, bots=[{"seat": 1, "level": "greedy"}])  # greedy is cheap


def test_a_searching_stand_in_counts_too(
        redis_client: redis.Redis, events_redis: EventsClient,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A deadline's `ismcts` stand-in plays a resigned seat to the end: resigning at once
    made any number of searching tables (outside audit)."""
    monkeypatch.setenv("MEEPLE_MAX_BOT_GAMES", "2")
    app = Meeple(redis_client, events=events_redis)
    deadline = {"hours": 24, "on_expiry": "bot", "bot": "ismcts-5000ms"}
    for _ in range(2):
        app.create_game(ALICE, RP, 2, bots=[{"seat": 1, "level": "greedy"}], deadline=deadline)
    with pytest.raises(QuotaExceeded):
        app.create_game(ALICE, RP, 2, bots=[{"seat": 1, "level": "greedy"}], deadline=deadline)
