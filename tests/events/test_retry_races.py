"""A retry with the same Idempotency-Key gets the first attempt's answer (DESIGN §4), also
when the two race: the retry looks for the key's earlier result, finds none, and before it
writes the first attempt commits, moving the game on under it. The retry's own decision is
then refused (a version conflict, a seat taken, already resigned); the key must turn that
refusal into the first attempt's answer. CI caught this as a 409 among 201s in
tests/reliability/test_racing_writers.py; here the interleaving is forced, so it is
exercised every run, for every use case that takes a key."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import redis

from events.accounts.players import Player
from events.application.meeple import Meeple
from events.domain.table import Table
from events.store.clients import EventsClient
from events.store.event_store import EventStore
from tests.conftest import ON_BOTH_BACKENDS

pytestmark = ON_BOTH_BACKENDS


RP = "res-publica-2230ad"
ALICE, BOB = Player("p_alice", "alice"), Player("p_bob", "bob")


def first_attempt_lands_during_the_retry_check(
        monkeypatch: pytest.MonkeyPatch, first_attempt: Callable[[], Any]) -> list[Any]:
    """Make the next `earlier_result` look (finding nothing) and then run `first_attempt`
    before it answers: the worst interleaving of a retry with its original. Returns the
    first attempt's answer, in a list, once it has run."""
    original = EventStore.earlier_result
    ran: list[Any] = []
    started: list[bool] = []

    def racing(self: EventStore, game_id: str, key: str, request_hash: str) -> Any:
        found = original(self, game_id, key, request_hash)
        if not started:  # the retry's look; the first attempt's own look passes through
            started.append(True)
            assert found is None
            ran.append(first_attempt())
        return found

    monkeypatch.setattr(EventStore, "earlier_result", racing)
    return ran


def hot_seat(app: Meeple) -> Table:
    table = app.create_game(ALICE, RP, 2)
    return app.join_game(ALICE, table.id)


def test_a_move_retried_while_it_commits_gets_its_answer(
        redis_client: redis.Redis, events_redis: EventsClient,
        monkeypatch: pytest.MonkeyPatch) -> None:
    app = Meeple(redis_client, events=events_redis)
    table = hot_seat(app)
    seat = table.actors()[0]
    assert table.state is not None
    move = table.game.legal_moves(table.state, seat)[0]

    def play() -> Any:
        return app.play_moves(ALICE, table.id, [move], table.version, seat, "move-1")

    first = first_attempt_lands_during_the_retry_check(monkeypatch, play)
    retry = play()
    assert retry.replayed and retry.envelopes == first[0].envelopes
    assert len(EventStore(events_redis).read(table.id)) == first[0].table.version


def test_a_join_retried_while_it_commits_gets_its_answer(
        redis_client: redis.Redis, events_redis: EventsClient,
        monkeypatch: pytest.MonkeyPatch) -> None:
    app = Meeple(redis_client, events=events_redis)
    table = app.create_game(ALICE, RP, 3)

    def join() -> Table:
        return app.join_game(BOB, table.id, None, "join-1")

    first = first_attempt_lands_during_the_retry_check(monkeypatch, join)
    retry = join()
    assert retry.to_json() == first[0].to_json()
    assert [s.player_id for s in retry.seats].count(BOB.id) == 1


def test_a_resignation_retried_while_it_commits_gets_its_answer(
        redis_client: redis.Redis, events_redis: EventsClient,
        monkeypatch: pytest.MonkeyPatch) -> None:
    app = Meeple(redis_client, events=events_redis)
    table = app.create_game(ALICE, RP, 2)
    table = app.join_game(BOB, table.id)

    def resign() -> Table:
        return app.resign(BOB, table.id, None, "resign-1")

    first = first_attempt_lands_during_the_retry_check(monkeypatch, resign)
    retry = resign()
    assert retry.version == first[0].version


def test_a_message_retried_while_it_commits_is_posted_once(
        redis_client: redis.Redis, events_redis: EventsClient,
        monkeypatch: pytest.MonkeyPatch) -> None:
    app = Meeple(redis_client, events=events_redis)
    table = hot_seat(app)

    def post() -> Any:
        return app.post_message(ALICE, table.id, "good luck", "talk-1")

    first = first_attempt_lands_during_the_retry_check(monkeypatch, post)
    retry = post()
    assert retry.replayed and retry.envelope == first[0].envelope
    posted = [e for e in EventStore(events_redis).read(table.id) if e["type"] == "MessagePosted"]
    assert len(posted) == 1
