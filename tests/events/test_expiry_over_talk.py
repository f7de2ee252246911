"""A turn's expiry that meets table talk between its decision and its append is decided again
on the table as it now is: a decision is never reused at another version, since a move's
random outcome (a reshuffle) comes from its own version (outside audit: reused, the stored
facts differed from what the moves produce, or a later stand-in move was illegal and the
game never loaded again). The stand-in's choices are kept by state, so a search is not
redone for talk. Asking for Trobils (reshuffles), a random stand-in, every turn timed out."""

from __future__ import annotations

import copy
import json
from contextlib import suppress
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import redis

from events.accounts.players import Player
from events.application.meeple import Meeple
from events.domain.table import Status, Table
from events.exceptions import MeepleError
from events.store.clients import EventsClient
from games.rng import Rng, move_stream

ALICE, BOB = Player("p_alice", "alice"), Player("p_bob", "bob")


def facts_that_differ(app: Meeple, game_id: str) -> list[int]:
    """The versions whose stored facts are not what their move produces there."""
    seed, differ = app._seed(game_id), []
    for envelope in app.store.read(game_id, 1, None):
        if envelope["type"] != "MovePlayed":
            continue
        before = app.table_at(game_id, envelope["v"] - 1)
        assert before.state is not None
        stream = move_stream(before.draws, envelope["v"], before.moves)
        _, facts = before.game.play(copy.deepcopy(before.state), envelope["data"]["seat"],
                                    envelope["data"]["move"], Rng(before.rng_key(seed), stream))
        if json.loads(json.dumps(facts)) != envelope["data"]["facts"]:
            differ.append(envelope["v"])
    return differ


def test_a_game_whose_every_expiry_meets_talk_stays_true_to_its_moves(
        redis_client: redis.Redis, events_redis: EventsClient,
        monkeypatch: pytest.MonkeyPatch) -> None:
    app = Meeple(redis_client, events=events_redis, min_move_seconds=1)
    game_id = app.join_game(BOB, app.create_game(ALICE, "asking-for-trobils", 2, deadline={
        "hours": 1, "on_expiry": "bot", "bot": "random"}).id).id
    real_append, talk = app._append_decision, {"on": False}

    def append(table: Table, *args: Any, **kwargs: Any) -> Any:
        if talk["on"]:  # a line of talk lands between the decision and its append
            talk["on"] = False
            app.post_message(ALICE, game_id, "hi")
        return real_append(table, *args, **kwargs)

    monkeypatch.setattr(app, "_append_decision", append)
    talked = 0
    for hours in range(2, 2000, 2):
        table = app.load(game_id)
        if table.status is not Status.ACTIVE:
            break
        seat = table.actors()[0]
        clock = table.clock_of(seat)
        assert clock is not None
        app.clock = lambda h=hours: datetime.now(UTC) + timedelta(hours=h)  # type: ignore[misc]
        talk["on"], before = True, table.version
        with suppress(MeepleError):
            app.expire_turn(game_id, seat, clock.version)
        talked += not talk["on"] and app.load(game_id).version > before + 1
    assert app.load(game_id).status is Status.ENDED and talked > 10
    assert facts_that_differ(app, game_id) == []
    Meeple(redis_client, events=events_redis).load(game_id)  # a fresh process loads it
