"""The event-store contract on a real redis-server, plus Redis-only checks (layout, kill -9)."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any, cast

import pytest
import redis
from redis.backoff import NoBackoff
from redis.crc import key_slot
from redis.retry import Retry

from events.domain.envelope import Envelope, canonical_json, chain_breaks
from events.exceptions import GameNotFound, NotReplicated, VersionConflict
from events.store.event_store import (
    IDEMPOTENCY_TTL_SECONDS,
    EventStore,
    NewEvent,
    _compact_time,
    _iso_time,
)
from tests.conftest import free_port, start_redis
from tests.store.contract import EventStoreContract, MakeStore, move

RawEntries = list[tuple[bytes, dict[bytes, bytes]]]


def raw_entries(client: redis.Redis, game_id: str) -> RawEntries:
    return cast(RawEntries, client.xrange(f"meeple:g:{{{game_id}}}:events"))


class TestRedisEventStore(EventStoreContract):
    @pytest.fixture()
    def make_store(self, redis_url: str, redis_client: redis.Redis) -> Iterator[MakeStore]:
        clients: list[redis.Redis] = []

        def make() -> EventStore:
            clients.append(redis.Redis.from_url(redis_url))
            return EventStore(clients[-1])

        yield make
        for client in clients:
            client.close()


@pytest.fixture()
def store(redis_client: redis.Redis) -> EventStore:
    return EventStore(redis_client)


def epoch_ms(at: str) -> int:
    return round(datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp() * 1000)


def test_each_entry_knows_the_batch_it_was_appended_in(store: EventStore) -> None:
    store.append("g1", 0, [move(1), move(2)])
    store.append("g1", 2, [move(3)])
    store.append("g1", 3, [move(4), move(5), move(6)])
    assert [store.batch_start("g1", v) for v in range(1, 7)] == [1, 1, 3, 4, 4, 4]
    assert [store.batch_end("g1", first) for first in (1, 3, 4)] == [2, 3, 6]


def test_stream_entries_have_id_v_dash_1_and_the_same_fields(
    store: EventStore, redis_client: redis.Redis
) -> None:
    written = store.append("g1", 0, [move(1), move(2), move(3)]).envelopes
    entries = raw_entries(redis_client, "g1")
    assert [entry_id for entry_id, _ in entries] == [b"1-1", b"2-1", b"3-1"]
    assert [fields for _, fields in entries] == [
        {b"type": e["type"].encode(), b"at": str(epoch_ms(e["at"])).encode(),
         b"by": e["by"].encode(), b"hash": bytes.fromhex(e["hash"]),
         b"data": canonical_json(e["data"]), b"batch": b"1"}  # the batch's first version
        for e in written
    ]
    meta = redis_client.hgetall("meeple:g:{g1}:meta")
    assert meta == {b"version": b"3", b"head": written[-1]["hash"].encode()}


def test_every_key_of_a_game_is_in_one_cluster_slot(
    store: EventStore, redis_client: redis.Redis
) -> None:
    store.append("g1", 0, [move(1)], idempotency_key="req-1", request_hash="h")
    store.put_seed("g1", b"seed")
    store.save_snapshot("g1", 1, {})
    keys = sorted(cast(list[bytes], redis_client.keys("*")))
    assert keys == [
        b"meeple:g:{g1}:events", b"meeple:g:{g1}:idem:req-1", b"meeple:g:{g1}:meta",
        b"meeple:g:{g1}:seed", b"meeple:g:{g1}:snap",
    ]
    assert len({key_slot(key) for key in keys}) == 1
    assert 0 < redis_client.ttl(b"meeple:g:{g1}:idem:req-1") <= IDEMPOTENCY_TTL_SECONDS


def test_the_raw_stream_never_holds_the_seed(store: EventStore, redis_client: redis.Redis) -> None:
    seed = b"\x9f\x00secret-seed-bytes\xff"
    store.put_seed("g1", seed)
    store.append("g1", 0, [NewEvent("GameCreated", {"commitment": "abc"}, "system")])
    for _, fields in raw_entries(redis_client, "g1"):
        for value in fields.values():
            assert seed not in value and seed.hex().encode() not in value


def test_the_prefix_separates_stores(redis_client: redis.Redis) -> None:
    one, two = EventStore(redis_client, prefix="one"), EventStore(redis_client, prefix="two")
    one.append("g1", 0, [move(1)])
    assert two.version("g1") == 0 and list(two.game_ids()) == []
    assert list(one.game_ids()) == ["g1"]


@pytest.mark.parametrize("game_id", ["a}b", "{", "", "a" * 65, "a b", "a:b", "é", "a\nb"])
def test_what_cannot_be_a_game_id_names_no_game(store: EventStore, game_id: str) -> None:
    with pytest.raises(GameNotFound):
        store.append(game_id, 0, [move(1)])
    with pytest.raises(GameNotFound):
        store.read(game_id)


def test_a_client_that_decodes_responses_is_refused(redis_url: str) -> None:
    # Hashes are stored as raw bytes, which such a client could not read back.
    with pytest.raises(ValueError, match="decode_responses"):
        EventStore(redis.Redis.from_url(redis_url, decode_responses=True))


@pytest.mark.parametrize("at", [
    "2026-11-30T08:01:46.501Z", "1970-01-01T00:00:00.000Z", "2020-01-01T00:00:00+00:00",
    "2026-11-30T08:01:46Z", "not a time",
])
def test_any_timestamp_is_stored_and_read_back_exactly(at: str) -> None:
    assert _iso_time(_compact_time(at)) == at


# -- the script's own checks: another writer wins between the early check and the script -------


def _race_before_script(store: EventStore, rival: EventStore, game: str, **kwargs: Any) -> None:
    """Make `rival` append to `game` right after `store` passed its early checks."""
    script = store._append

    def raced(*args: Any, **script_kwargs: Any) -> Any:
        rival.append(game, rival.version(game), [move(99)], **kwargs)
        return script(*args, **script_kwargs)

    store._append = raced  # type: ignore[assignment]


def test_the_script_rejects_a_writer_that_lost_after_the_early_check(
    redis_client: redis.Redis,
) -> None:
    store, rival = EventStore(redis_client), EventStore(redis_client)
    store.append("g1", 0, [move(1)])
    _race_before_script(store, rival, "g1")

    with pytest.raises(VersionConflict) as caught:
        store.append("g1", 1, [move(2), move(3)])

    assert caught.value.current == 2
    stored = store.read("g1")
    assert [e["data"]["move"]["n"] for e in stored] == [1, 99]
    assert chain_breaks(stored) == []


def test_the_script_replays_a_request_that_won_after_the_early_check(
    redis_client: redis.Redis,
) -> None:
    store, rival = EventStore(redis_client), EventStore(redis_client)
    _race_before_script(store, rival, "g1", idempotency_key="k", request_hash="h")

    result = store.append("g1", 0, [move(1)], idempotency_key="k", request_hash="h")

    assert result.replayed
    assert result.envelopes == store.read("g1") and store.version("g1") == 1


def test_the_script_rejects_a_head_that_changed_under_the_same_version(
    redis_client: redis.Redis,
) -> None:
    store = EventStore(redis_client)
    store.append("g1", 0, [move(1)])
    script = store._append

    def tampered(*args: Any, **kwargs: Any) -> Any:
        redis_client.hset("meeple:g:{g1}:meta", "head", "f" * 64)
        return script(*args, **kwargs)

    store._append = tampered  # type: ignore[assignment]
    with pytest.raises(VersionConflict) as caught:
        store.append("g1", 1, [move(2)])
    assert caught.value.current == 1 and store.version("g1") == 1
    assert len(store.read("g1")) == 1


# -- durability -------------------------------------------------------------------------------


def test_every_acknowledged_append_survives_kill_9(tmp_path: Path) -> None:
    port, workdir = free_port(), tmp_path / "aof"
    aof = ("--appendonly", "yes", "--appendfsync", "always")
    server = start_redis(workdir, port, *aof)
    try:
        client = redis.Redis(port=port, socket_timeout=5, retry=Retry(NoBackoff(), 0))
        store = EventStore(client)
        acknowledged: list[Envelope] = []
        failures: list[Exception] = []

        def writer() -> None:
            while True:
                try:
                    result = store.append("g1", len(acknowledged), [move(len(acknowledged))])
                except Exception as exc:  # the server died under us
                    failures.append(exc)
                    return
                acknowledged.extend(result.envelopes)

        thread = threading.Thread(target=writer)
        thread.start()
        deadline = time.monotonic() + 20
        while len(acknowledged) < 200 and thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.002)
        assert thread.is_alive() and len(acknowledged) >= 200
        server.send_signal(signal.SIGKILL)
        server.wait(10)
        thread.join(10)
        client.close()

        assert not thread.is_alive()
        assert len(failures) == 1 and isinstance(failures[0], redis.ConnectionError)
        server = start_redis(workdir, port, *aof)
        restarted = EventStore(redis.Redis(port=port))
        stored = restarted.read("g1")

        count = len(acknowledged)
        assert count <= len(stored) <= count + 1  # +1: written, but the reply was lost
        assert stored[:count] == acknowledged
        assert chain_breaks(stored) == []
        assert restarted.head("g1") == (len(stored), stored[-1]["hash"])
        restarted.append("g1", len(stored), [move(-1)])  # and the game goes on
    finally:
        server.kill()
        server.wait(10)


def test_an_append_no_replica_confirmed_is_refused_until_one_has_it(tmp_path: Path) -> None:
    """MEEPLE_MIN_REPLICA_ACKS: the append waits (WAIT) for a replica; without one in time it
    is NotReplicated (the API's 503), and the retry with the same key waits again, then
    replays the first write once a replica has it."""
    port = free_port()
    primary = start_redis(tmp_path / "primary", port)
    replica = None
    try:
        store = EventStore(redis.Redis(port=port), replica_acks=1, replica_wait_ms=200)
        with pytest.raises(NotReplicated):
            store.append("g1", 0, [move(1)], idempotency_key="k", request_hash="h")
        assert store.version("g1") == 1  # on the primary, not acknowledged
        with pytest.raises(NotReplicated):
            store.earlier_result("g1", "k", "h")
        replica_port = free_port()
        replica = start_redis(tmp_path / "replica", replica_port, "--replicaof", "127.0.0.1",
                              str(port))
        follower = redis.Redis(port=replica_port)
        for _ in range(200):
            if follower.info("replication").get("master_link_status") == "up":
                break
            time.sleep(0.05)
        again = store.append("g1", 0, [move(1)], idempotency_key="k", request_hash="h")
        assert again.replayed and [e["v"] for e in again.envelopes] == [1]
        assert store.earlier_result("g1", "k", "h") == again.envelopes
        assert EventStore(follower, replica_acks=0).read("g1") == again.envelopes
    finally:
        for proc in (replica, primary):
            if proc is not None:
                proc.terminate()
                proc.wait(10)


def test_a_single_node_waits_for_no_replica_and_a_cluster_for_one(
        redis_client: redis.Redis, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEEPLE_MIN_REPLICA_ACKS", raising=False)
    assert EventStore(redis_client).replica_acks == 0
    monkeypatch.setenv("MEEPLE_MIN_REPLICA_ACKS", "2")
    assert EventStore(redis_client).replica_acks == 2
    monkeypatch.setenv("MEEPLE_MIN_REPLICA_ACKS", "two")
    with pytest.raises(ValueError, match="MEEPLE_MIN_REPLICA_ACKS"):
        EventStore(redis_client)
