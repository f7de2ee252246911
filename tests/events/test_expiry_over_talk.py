"""A turn's expiry, decided on a table, is appended over table talk that came in between (a
stand-in's search redone at every message never ended while people chatted) but never over
anything else: a move of the seat between the check and the reload once had the timeout
appended after it, and the game never loaded again (outside audit)."""

from __future__ import annotations

from contextlib import suppress
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import redis

from events.accounts.players import Player
from events.application.meeple import Meeple
from events.exceptions import MeepleError
from events.store.clients import EventsClient

RP = "res-publica-2230ad"
ALICE, BOB = Player("p_alice", "alice"), Player("p_bob", "bob")


def test_a_move_between_the_talk_check_and_the_reload_is_never_overrun(
        redis_client: redis.Redis, events_redis: EventsClient,
        monkeypatch: pytest.MonkeyPatch) -> None:
    app = Meeple(redis_client, events=events_redis, min_move_seconds=1)
    table = app.join_game(BOB, app.create_game(ALICE, RP, 2, deadline={
        "hours": 1, "on_expiry": "bot"}).id)
    seat = table.actors()[0]
    player = next(p for p in (ALICE, BOB) if table.seats_of(p.id) == [seat])
    other = BOB if player is ALICE else ALICE
    clock = table.clock_of(seat)
    assert clock is not None
    app.clock = lambda: datetime.now(UTC) + timedelta(hours=2)  # the deadline has passed
    real_append, real_talk = app._append_decision, app.talk_since
    calls = {"append": 0, "talk": 0}

    def append(*args: Any, **kwargs: Any) -> Any:  # the first append meets talk meanwhile
        calls["append"] += 1
        if calls["append"] == 1:
            app.post_message(other, table.id, "hurry up")
        return real_append(*args, **kwargs)

    def talk_since(game_id: str, version: int) -> Any:  # the seat moves right after it
        answer = real_talk(game_id, version)
        calls["talk"] += 1
        if calls["talk"] == 1:
            now = app.load(game_id)
            assert now.state is not None
            move = now.game.legal_moves(now.state, seat)[0]
            app.play_moves(player, game_id, [{"id": move["id"]}], now.version, seat)
        return answer

    monkeypatch.setattr(app, "_append_decision", append)
    monkeypatch.setattr(app, "talk_since", talk_since)
    # Decided again on the table as it now is (one turn, one deadline), or refused.
    with suppress(MeepleError):
        app.expire_turn(table.id, seat, clock.version)
    types = [(e["type"], e["data"].get("seat")) for e in app.store.read(table.id, 1, None)]
    moved = types.index(("MovePlayed", seat))
    assert types[moved - 1] == ("MessagePosted", 1 - seat)
    assert ("TurnTimedOut", seat) not in types[:moved]
    # Whatever came after was decided on the table after the move: the game loads, and the
    # stand-in's moves are legal where they stand.
    Meeple(redis_client, events=events_redis).load(table.id)
