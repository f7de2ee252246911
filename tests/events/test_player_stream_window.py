"""A player's stream watches their newest tables; one that leaves the watch (newer tables)
and comes back tells what it appended meanwhile, never again what the stream told before
(outside audit: its start and table talk came twice). Real Redis, the follower's own
reads, without HTTP."""

from __future__ import annotations

import time
from typing import Any

import redis

from events.accounts.players import Player
from events.application.live import PlayerFollower
from events.application.meeple import Meeple
from events.store.clients import EventsClient

RP = "res-publica-2230ad"
ALICE, BOB = Player("p_alice", "alice"), Player("p_bob", "bob")


def play_out(app: Meeple, game_id: str) -> None:
    table = app.load(game_id)
    while table.status.value != "ended":
        seat = table.actors()[0]
        assert table.state is not None
        move = table.game.legal_moves(table.state, seat)[0]
        who = next(p for p in (ALICE, BOB) if seat in table.seats_of(p.id))
        table = app.play_moves(who, game_id, [{"id": move["id"]}], table.version, seat).table


def test_a_table_back_in_the_window_does_not_repeat_its_notices(
        redis_client: redis.Redis, events_redis: EventsClient) -> None:
    app = Meeple(redis_client, events=events_redis)
    follower = PlayerFollower(app, None, ALICE.id, limit=1)  # type: ignore[arg-type]
    follower._waiter = app.store  # what iterating it sets: the reads, no blocking session
    time.sleep(0.01)
    a = app.create_game(ALICE, RP, 2)
    app.join_game(BOB, a.id)
    sent = [(n.event, n.id) for n in follower._snapshot()]
    app.post_message(BOB, a.id, "hello")
    sent += [(n.event, n.id) for n in follower._wait(time.monotonic() + 0.3)]
    sent += [(n.event, n.id) for n in follower._refresh(announce=True)]
    b = app.create_game(ALICE, RP, 2)  # newer: table A leaves the window of 1
    app.join_game(BOB, b.id)
    sent += [(n.event, n.id) for n in follower._refresh(announce=True)]
    play_out(app, b.id)  # B ends: A is the newest again
    sent += [(n.event, n.id) for n in follower._wait(time.monotonic() + 0.3)]
    sent += [(n.event, n.id) for n in follower._refresh(announce=True)]
    about_a = [(e, i) for e, i in sent if i.startswith(a.id)]
    assert len(about_a) == len(set(about_a)), about_a


def test_an_ended_game_the_lobby_still_lists_is_not_told_again_and_again(
        redis_client: redis.Redis, events_redis: EventsClient) -> None:
    app = Meeple(redis_client, events=events_redis)
    follower = PlayerFollower(app, None, ALICE.id)  # type: ignore[arg-type]
    follower._waiter = app.store
    time.sleep(0.01)
    sent = [(n.event, n.id) for n in follower._snapshot()]
    a = app.create_game(ALICE, RP, 2)
    app.join_game(BOB, a.id)
    sent += [(n.event, n.id) for n in follower._refresh(announce=True)]
    app.post_message(BOB, a.id, "good luck")
    sent += [(n.event, n.id) for n in follower._wait(time.monotonic() + 0.3)]
    real_record = app.lobby.record

    def record(summary: dict[str, Any]) -> Any:  # the write after the end does not land
        if summary["status"] == "ended":
            return None
        return real_record(summary)

    app.lobby.record = record  # type: ignore[method-assign]  # the lobby lags the end
    table = app.load(a.id)
    while table.status.value != "ended":
        seat = table.actors()[0]
        assert table.state is not None
        move = table.game.legal_moves(table.state, seat)[0]
        who = next(p for p in (ALICE, BOB) if seat in table.seats_of(p.id))
        table = app.play_moves(who, a.id, [{"id": move["id"]}], table.version, seat).table
    for _ in range(50):  # the stream reads on until it has told the end
        sent += [(n.event, n.id) for n in follower._wait(time.monotonic() + 0.1)]
        if any(e == "game_ended" for e, _ in sent):
            break
    assert any(e == "game_ended" for e, _ in sent)
    for _ in range(3):  # three looks at the lobby, 5 s apart in a real stream
        sent += [(n.event, n.id) for n in follower._refresh(announce=True)]
    assert len(sent) == len(set(sent)), sorted(sent)
