"""A game's channel (events/application/live.py): the one reader of a game's appends that
every stream of a process following the game shares, against a real Redis on both backends.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from events.application.live import BlockingReads, Channel
from events.domain.envelope import NewEvent
from events.store.clients import EventsClient
from events.store.event_store import EventStore
from tests.conftest import ON_BOTH_BACKENDS

pytestmark = ON_BOTH_BACKENDS
PREFIX = "channel-test"


@pytest.fixture()
def store(events_redis: EventsClient) -> EventStore:
    return EventStore(events_redis, PREFIX)


@pytest.fixture()
def reads(events_url: str) -> Iterator[BlockingReads]:
    yield BlockingReads(events_url, PREFIX, block_seconds=1.0)


def append_one(store: EventStore, game_id: str, version: int) -> None:
    store.append(game_id, version, [NewEvent("Note", {"n": version + 1}, "system")])


def begun(channel: Channel) -> Channel:
    """The channel once its reader has read where the game stands."""
    deadline = time.monotonic() + 5.0
    while channel.position is None:
        assert time.monotonic() < deadline, "the reader did not begin"
        time.sleep(0.01)
    return channel


def test_a_channel_sees_each_append(store: EventStore, reads: BlockingReads) -> None:
    append_one(store, "g1", 0)
    with reads.channel("g1") as channel:
        assert begun(channel).position == 1
        append_one(store, "g1", 1)
        assert [e["v"] for e in channel.after(1, 5.0) or []] == [2]


def test_a_reader_started_while_its_opener_is_paused_still_follows(
        store: EventStore, reads: BlockingReads, monkeypatch: pytest.MonkeyPatch) -> None:
    """In CI a stream once stopped at the version it began at: the opener of a game's first
    stream was descheduled just after it started the reader, the reader found no stream
    counted yet and ended, and every later stream of the game in that process waited on a
    reader that was gone. Here the opener pauses there on purpose."""
    append_one(store, "g2", 0)
    start = threading.Thread.start

    def start_then_pause(thread: threading.Thread) -> None:
        start(thread)
        time.sleep(0.3)  # the reader reads the head and looks whether anyone follows

    with monkeypatch.context() as patched:
        patched.setattr(threading.Thread, "start", start_then_pause)
        opened = reads.channel("g2")
        channel = opened.__enter__()
    try:
        assert begun(channel).position == 1
        append_one(store, "g2", 1)
        assert [e["v"] for e in channel.after(1, 5.0) or []] == [2]
    finally:
        opened.__exit__(None, None, None)
