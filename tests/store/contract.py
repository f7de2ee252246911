"""The event-store contract (DESIGN §3), reusable by every backend.

A backend's test module subclasses `EventStoreContract` and provides the fixture
`make_store`: a callable returning a new store on its own connection to one shared,
empty backend. Backend-specific checks (key layout, durability) live next to the subclass.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from events.domain.envelope import GENESIS, Envelope, NewEvent, canonical_json, chain_breaks, seal
from events.exceptions import IdempotencyKeyReused, VersionConflict
from events.store.event_store import EventStore

MakeStore = Callable[[], EventStore]

WRITERS = 20


def move(n: int, by: str = "p1", **extra: Any) -> NewEvent:
    return NewEvent("MovePlayed", {"seat": 0, "move": {"n": n}, **extra}, by)


def run_threads(
    count: int, target: Callable[[int], None], barrier: threading.Barrier | None = None
) -> None:
    """Run target(0..count-1) in threads; re-raise the first error any of them hit.

    A thread that fails breaks `barrier`, so the others stop waiting for it.
    """
    errors: list[BaseException] = []

    def guarded(index: int) -> None:
        try:
            target(index)
        except threading.BrokenBarrierError as exc:
            errors.append(exc)
        except BaseException as exc:  # reported below
            errors.insert(0, exc)
            if barrier is not None:
                barrier.abort()

    threads = [threading.Thread(target=guarded, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not any(thread.is_alive() for thread in threads), "a thread hung"
    if errors:
        raise errors[0]


json_scalars = st.none() | st.booleans() | st.integers() | st.text(
    alphabet=st.characters(blacklist_categories=["Cs"]), max_size=20
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


class EventStoreContract:
    @pytest.fixture()
    def make_store(self) -> MakeStore:
        raise NotImplementedError("a backend's test class provides make_store")

    @pytest.fixture()
    def store(self, make_store: MakeStore) -> EventStore:
        return make_store()

    @pytest.fixture()
    def game(self) -> str:
        return f"g-{uuid.uuid4().hex[:12]}"

    # -- basics ------------------------------------------------------------------------------

    def test_a_game_without_events(self, store: EventStore, game: str) -> None:
        assert store.version(game) == 0
        assert store.head(game) == (0, GENESIS)
        assert not store.exists(game)
        assert store.read(game) == []
        assert store.get_seed(game) is None
        assert store.load_snapshot(game) is None

    def test_append_read_round_trip(self, store: EventStore, game: str) -> None:
        data = {"seat": 1, "move": {"from": "e2", "to": "e4"}, "note": "ünï ♞"}
        result = store.append(game, 0, [NewEvent("MovePlayed", data, "alice")])

        assert not result.replayed
        [envelope] = result.envelopes
        assert envelope["v"] == 1 and envelope["prev"] == GENESIS
        assert (envelope["type"], envelope["by"], envelope["data"]) == ("MovePlayed", "alice", data)
        assert store.read(game) == result.envelopes
        assert store.version(game) == 1
        assert store.head(game) == (1, envelope["hash"])
        assert store.exists(game)

    def test_versions_have_no_gaps_and_the_chain_is_intact(
        self, store: EventStore, game: str
    ) -> None:
        written: list[Envelope] = []
        for size in (1, 3, 1, 5, 2):
            written += store.append(game, len(written), [move(i) for i in range(size)]).envelopes

        stored = store.read(game)
        assert [e["v"] for e in stored] == list(range(1, 13))
        assert stored == written
        assert chain_breaks(stored) == []
        assert store.head(game) == (12, stored[-1]["hash"])

    def test_an_imported_game_is_stored_hash_for_hash(self, store: EventStore, game: str) -> None:
        """A record's envelopes, sealed elsewhere (another server, another time), come back
        exactly: versions, times, authors, data and hashes."""
        elsewhere = f"{game}-origin"
        sealed = store.append(elsewhere, 0, [move(i, by=f"p{i}") for i in range(4)]).envelopes
        sealed[1] = seal(2, "MovePlayed", {"seat": 1}, "p9", sealed[0]["hash"],
                         at="2020-02-29T12:34:56.789Z")  # an old time, as in an archive
        for v in range(3, 5):
            previous, this = sealed[v - 2], sealed[v - 1]
            sealed[v - 1] = seal(v, this["type"], this["data"], this["by"], previous["hash"],
                                 at=this["at"])
        store.import_sealed(game, sealed)
        assert store.read(game) == sealed
        assert store.head(game) == (4, sealed[-1]["hash"])
        with pytest.raises(VersionConflict):  # never over an existing game
            store.import_sealed(game, sealed)
        assert store.read(game) == sealed

    def test_read_ranges(self, store: EventStore, game: str) -> None:
        store.append(game, 0, [move(i) for i in range(10)])
        assert [e["v"] for e in store.read(game, 3, 5)] == [3, 4, 5]
        assert [e["v"] for e in store.read(game, 8)] == [8, 9, 10]
        assert [e["v"] for e in store.read(game, 10, 10)] == [10]
        assert store.read(game, 11) == []
        assert store.read(game, 5, 4) == []

    def test_an_empty_append_is_refused(self, store: EventStore, game: str) -> None:
        with pytest.raises(ValueError):
            store.append(game, 0, [])
        assert not store.exists(game)

    def test_games_are_independent(self, store: EventStore, game: str) -> None:
        other = game + "-other"
        store.append(game, 0, [move(1), move(2)])
        store.append(other, 0, [move(1)])
        assert (store.version(game), store.version(other)) == (2, 1)
        assert chain_breaks(store.read(other)) == []

    def test_game_ids_lists_every_game_with_a_stream(self, store: EventStore, game: str) -> None:
        games = {f"{game}-{i}" for i in range(5)}
        for g in games:
            store.append(g, 0, [move(1)])
        store.put_seed(game + "-seed-only", b"\x01" * 32)
        store.save_snapshot(game + "-snap-only", 3, {"x": 1})
        assert {g for g in store.game_ids() if g.startswith(game)} == games

    def test_scan_game_ids_pages_through_every_game(self, store: EventStore, game: str) -> None:
        games = {f"{game}-{i}" for i in range(30)}
        for g in games:
            store.append(g, 0, [move(1)])
        seen: set[str] = set()
        cursor, steps = 0, 0
        while True:
            cursor, found = store.scan_game_ids(cursor, 5)
            seen.update(found)
            steps += 1
            assert steps < 10_000, "the scan never ended"
            if cursor == 0:
                break
        assert games <= seen

    # -- optimistic concurrency --------------------------------------------------------------

    def test_a_stale_writer_gets_a_conflict_and_writes_nothing(
        self, store: EventStore, game: str
    ) -> None:
        store.append(game, 0, [move(1), move(2)])
        before = store.read(game)

        for stale in (0, 1, 3, 7):
            with pytest.raises(VersionConflict) as caught:
                store.append(game, stale, [move(9), move(10)])
            assert caught.value.current == 2

        assert store.read(game) == before
        assert store.head(game) == (2, before[-1]["hash"])

    def test_a_batch_is_all_or_nothing_for_concurrent_readers(
        self, make_store: MakeStore, game: str
    ) -> None:
        batches, size = 25, 8
        done = threading.Event()
        seen: list[int] = []

        def work(index: int) -> None:
            store = make_store()
            if index == 0:
                try:
                    for b in range(batches):
                        store.append(game, b * size, [move(i) for i in range(size)])
                        # Let the reader in between batches: on a loaded box the writer could
                        # otherwise finish before the reader's second read, and prove nothing.
                        reads, deadline = len(seen), time.monotonic() + 1
                        while len(seen) <= reads and time.monotonic() < deadline:
                            time.sleep(0.001)
                finally:
                    done.set()
                return
            while not done.is_set():
                envelopes = store.read(game)
                seen.append(len(envelopes))
                assert len(envelopes) % size == 0, f"saw a partial batch: {len(envelopes)}"
                assert store.version(game) % size == 0

        run_threads(2, work)
        assert make_store().version(game) == batches * size
        assert len(seen) > 1

    def test_writers_racing_for_the_same_version_exactly_one_wins_each_round(
        self, make_store: MakeStore, game: str
    ) -> None:
        rounds = 15
        barrier = threading.Barrier(WRITERS, timeout=20)
        wins: list[list[Envelope]] = [[] for _ in range(rounds)]
        conflicts: list[list[int]] = [[] for _ in range(rounds)]

        def writer(index: int) -> None:
            store = make_store()
            for r in range(rounds):
                barrier.wait()
                try:
                    result = store.append(game, r, [move(r, by=f"w{index}", writer=index)])
                except VersionConflict as conflict:
                    conflicts[r].append(conflict.current)
                else:
                    wins[r].extend(result.envelopes)
                barrier.wait()  # the round is over for everyone before the next begins

        run_threads(WRITERS, writer, barrier)

        stored = make_store().read(game)
        assert [e["v"] for e in stored] == list(range(1, rounds + 1))
        assert chain_breaks(stored) == []
        for r in range(rounds):
            assert len(wins[r]) == 1, f"round {r}: {len(wins[r])} winners"
            assert wins[r][0] == stored[r]
            assert conflicts[r] == [r + 1] * (WRITERS - 1)

    def test_writers_retrying_on_conflict_never_skip_or_repeat_a_version(
        self, make_store: MakeStore, game: str
    ) -> None:
        target = 150
        wins: list[Envelope] = []
        conflicts: list[tuple[int, int]] = []

        def writer(index: int) -> None:
            store = make_store()
            sequence = 0
            while (version := store.version(game)) < target:
                try:
                    result = store.append(game, version, [move(sequence, writer=index)])
                except VersionConflict as conflict:
                    conflicts.append((version, conflict.current))
                    continue
                wins.extend(result.envelopes)
                sequence += 1

        run_threads(WRITERS, writer)

        stored = make_store().read(game)
        assert len(wins) == len(stored) == target
        assert [e["v"] for e in stored] == list(range(1, target + 1))
        assert sorted(wins, key=lambda e: e["v"]) == stored
        tags = [(e["data"]["writer"], e["data"]["move"]["n"]) for e in stored]
        assert len(set(tags)) == target, "an append was stored twice"
        assert chain_breaks(stored) == []
        assert all(current > expected for expected, current in conflicts)

    # -- idempotency -------------------------------------------------------------------------

    def test_a_retried_request_replays_the_first_result(self, store: EventStore, game: str) -> None:
        first = store.append(game, 0, [move(1), move(2)], idempotency_key="k1", request_hash="h")
        store.append(game, 2, [move(3)])  # others moved on: the retry must not conflict

        again = store.append(game, 0, [move(1), move(2)], idempotency_key="k1", request_hash="h")

        assert again.replayed and not first.replayed
        assert again.envelopes == first.envelopes
        assert store.version(game) == 3

    def test_a_known_head_saves_the_read_but_is_still_checked(
        self, store: EventStore, game: str
    ) -> None:
        first = store.append(game, 0, [move(1)])
        head = first.envelopes[-1]["hash"]
        second = store.append(game, 1, [move(2)], expected_head=head)
        assert second.envelopes[0]["prev"] == head
        with pytest.raises(VersionConflict):  # a stale head, as a stale cache would give
            store.append(game, 2, [move(3)], expected_head=head)
        with pytest.raises(VersionConflict):
            store.append(game, 1, [move(3)], expected_head=head)
        assert store.version(game) == 2

    def test_earlier_result_finds_what_a_key_wrote(self, store: EventStore, game: str) -> None:
        assert store.earlier_result(game, "k1", "h") is None
        first = store.append(game, 0, [move(1), move(2)], idempotency_key="k1", request_hash="h")
        store.append(game, 2, [move(3)])
        assert store.earlier_result(game, "k1", "h") == first.envelopes
        with pytest.raises(IdempotencyKeyReused):
            store.earlier_result(game, "k1", "other request")

    def test_a_reused_idempotency_key_is_refused(self, store: EventStore, game: str) -> None:
        store.append(game, 0, [move(1)], idempotency_key="k1", request_hash="h1")
        with pytest.raises(IdempotencyKeyReused):
            store.append(game, 1, [move(2)], idempotency_key="k1", request_hash="h2")
        assert store.version(game) == 1

    def test_a_conflict_does_not_use_up_the_idempotency_key(
        self, store: EventStore, game: str
    ) -> None:
        store.append(game, 0, [move(1)])
        with pytest.raises(VersionConflict):
            store.append(game, 0, [move(2)], idempotency_key="k1", request_hash="h")
        result = store.append(game, 1, [move(2)], idempotency_key="k1", request_hash="h")
        assert not result.replayed and result.envelopes[0]["v"] == 2

    def test_idempotency_keys_belong_to_one_game(self, store: EventStore, game: str) -> None:
        other = game + "-other"
        store.append(game, 0, [move(1)], idempotency_key="k1", request_hash="h")
        result = store.append(other, 0, [move(1)], idempotency_key="k1", request_hash="h")
        assert not result.replayed and store.version(other) == 1

    def test_concurrent_retries_of_one_request_write_it_once(
        self, make_store: MakeStore, game: str
    ) -> None:
        barrier = threading.Barrier(WRITERS, timeout=20)
        results: list[tuple[bool, list[Envelope]]] = []

        def retry(_: int) -> None:
            store = make_store()
            barrier.wait()
            result = store.append(game, 0, [move(1)], idempotency_key="k", request_hash="h")
            results.append((result.replayed, result.envelopes))

        run_threads(WRITERS, retry, barrier)

        stored = make_store().read(game)
        assert len(stored) == 1
        assert sorted(replayed for replayed, _ in results) == [False] + [True] * (WRITERS - 1)
        assert all(envelopes == stored for _, envelopes in results)

    # -- seeds and snapshots -----------------------------------------------------------------

    def test_the_seed_is_kept_apart_from_the_stream(self, store: EventStore, game: str) -> None:
        seed = bytes(range(256))[::-1][:32]
        store.put_seed(game, seed)
        store.append(game, 0, [NewEvent("GameCreated", {"commitment": "c"}, "system"), move(1)])

        assert store.get_seed(game) == seed
        for envelope in store.read(game):
            blob = canonical_json(envelope)
            assert seed not in blob and seed.hex().encode() not in blob

    def test_a_seed_is_never_overwritten(self, store: EventStore, game: str) -> None:
        assert store.put_seed(game, b"first-seed") == b"first-seed"
        # A second one is not stored: the answer is the seed the game has.
        assert store.put_seed(game, b"second-seed") == b"first-seed"
        assert store.get_seed(game) == b"first-seed"

    def test_the_newest_snapshot_wins(self, store: EventStore, game: str) -> None:
        store.append(game, 0, [move(1)])
        store.save_snapshot(game, 5, {"board": [1, 2], "at": 5})
        store.save_snapshot(game, 3, {"board": [1], "at": 3})
        assert store.load_snapshot(game) == (5, {"board": [1, 2], "at": 5})
        store.save_snapshot(game, 8, {"board": [1, 2, 3], "at": 8})
        assert store.load_snapshot(game) == (8, {"board": [1, 2, 3], "at": 8})

    def test_racing_snapshot_saves_keep_the_newest(self, make_store: MakeStore, game: str) -> None:
        savers, top = 10, 1000
        done = threading.Event()
        seen: list[int] = []

        def work(index: int) -> None:
            store = make_store()
            if index == savers:  # the watcher: the stored version only ever goes up
                while not done.is_set():
                    snapshot = store.load_snapshot(game)
                    if snapshot is not None:
                        assert snapshot[1] == {"at": snapshot[0]}
                        assert not seen or snapshot[0] >= seen[-1], "an older snapshot won"
                        seen.append(snapshot[0])
                return
            for version in range(index, top, savers):  # all savers close to the top
                store.save_snapshot(game, version, {"at": version})

        def run(index: int) -> None:
            try:
                work(index)
            finally:
                if index < savers:
                    finished.append(index)
                    if len(finished) == savers:
                        done.set()

        finished: list[int] = []
        make_store().append(game, 0, [move(1)])
        run_threads(savers + 1, run)
        assert make_store().load_snapshot(game) == (top - 1, {"at": top - 1})

    def test_the_checkpoint_at_or_before_a_version(self, store: EventStore, game: str) -> None:
        assert store.checkpoint(game, 500) is None
        store.append(game, 0, [move(1)])
        store.save_checkpoints(game, {100: {"at": 100}, 203: {"at": 203}})
        store.save_checkpoints(game, {300: {"at": 300, "text": "ünï ♞" * 50}})
        assert store.checkpoint(game, 99) is None
        assert store.checkpoint(game, 100) == (100, {"at": 100})
        assert store.checkpoint(game, 299) == (203, {"at": 203})
        assert store.checkpoint(game, 10_000) == (300, {"at": 300, "text": "ünï ♞" * 50})

    def test_no_cache_is_kept_for_a_game_that_is_not_here(self, store: EventStore,
                                                           game: str) -> None:
        # A game read from the archive (or gone) has no stream: its reads write nothing back.
        store.save_snapshot(game, 3, {"at": 3})
        store.save_checkpoints(game, {100: {"at": 100}})
        assert store.load_snapshot(game) is None and store.checkpoint(game, 100) is None

    # -- discarding a table that never started --------------------------------------------

    def test_a_discarded_game_is_gone_with_a_note(self, store: EventStore, game: str) -> None:
        store.put_seed(game, b"s" * 32)
        store.append(game, 0, [move(1), move(2)])
        store.save_snapshot(game, 2, {"at": 2})
        assert not store.discard(game, 1, "expired")  # it moved on: nothing deleted
        assert store.version(game) == 2
        assert store.discard(game, 2, "expired unstarted")
        assert (store.version(game), store.exists(game), store.read(game)) == (0, False, [])
        assert store.get_seed(game) is None and store.load_snapshot(game) is None
        assert store.gone(game) == "expired unstarted"
        assert game not in set(store.game_ids())
        assert not store.discard(game, 2, "again")  # nothing left to delete

    def test_a_writer_racing_a_discard_either_lands_first_or_finds_no_game(
        self, make_store: MakeStore, game: str
    ) -> None:
        for round_ in range(30):
            name = f"{game}-{round_}"
            make_store().append(name, 0, [move(1)])
            outcomes: dict[str, object] = {}
            barrier = threading.Barrier(2)

            def race(index: int, name: str = name,
                     outcomes: dict[str, object] = outcomes,
                     barrier: threading.Barrier = barrier) -> None:
                store = make_store()
                barrier.wait()
                if index == 0:
                    outcomes["discarded"] = store.discard(name, 1, "expired")
                else:
                    try:
                        outcomes["appended"] = store.append(name, 1, [move(2)]).envelopes[0]["v"]
                    except VersionConflict:
                        outcomes["appended"] = None

            run_threads(2, race, barrier)
            store = make_store()
            if outcomes["discarded"]:
                assert outcomes["appended"] is None and store.version(name) == 0
            else:
                assert outcomes["appended"] == 2 and store.version(name) == 2

    # -- waiting for appends (live streams) ------------------------------------------------

    def test_wait_answers_at_once_what_is_there_as_read_gives_it(
        self, make_store: MakeStore, store: EventStore, game: str
    ) -> None:
        store.append(game, 0, [move(i) for i in range(5)])
        waiter = make_store()
        started = time.monotonic()
        assert waiter.wait(game, 0, 5000) == store.read(game)
        assert waiter.wait(game, 2, 5000) == store.read(game, 3)  # `prev` looked up
        head = store.read(game, 2, 2)[0]["hash"]
        assert waiter.wait(game, 2, 5000, prev=head) == store.read(game, 3)
        assert [e["v"] for e in waiter.wait(game, 1, 5000, count=2)] == [2, 3]
        assert time.monotonic() - started < 2.5  # none of these waited for the timeout

    def test_wait_blocks_until_an_append_and_returns_it(
        self, make_store: MakeStore, store: EventStore, game: str
    ) -> None:
        store.append(game, 0, [move(0)])
        waiter = make_store()
        timer = threading.Timer(0.3, lambda: store.append(game, 1, [move(1), move(2)]))
        started = time.monotonic()
        timer.start()
        try:
            got = waiter.wait(game, 1, 10_000)
        finally:
            timer.join(10)
        assert 0.2 < time.monotonic() - started < 8
        assert got == store.read(game, 2) and [e["v"] for e in got] == [2, 3]
        assert chain_breaks(store.read(game, 1, 1) + got) == []

    def test_wait_gives_up_after_its_block_time(
        self, make_store: MakeStore, store: EventStore, game: str
    ) -> None:
        store.append(game, 0, [move(0)])
        waiter = make_store()
        started = time.monotonic()
        assert waiter.wait(game, 1, 300) == []
        assert waiter.wait(f"{game}-none", 0, 300) == []  # no stream yet: waits the same
        assert 0.5 < time.monotonic() - started < 8
        assert waiter.wait(game, 1, 0) == []  # 0: no waiting at all

    def test_wait_many_answers_only_the_games_that_moved(
        self, make_store: MakeStore, store: EventStore, game: str
    ) -> None:
        quiet, busy = f"{game}-quiet", f"{game}-busy"
        store.append(quiet, 0, [move(0)])
        store.append(busy, 0, [move(0)])
        waiter = make_store()
        assert waiter.wait_many({quiet: 1, busy: 1}, 200) == {}
        assert waiter.wait_many({}, 200) == {}
        timer = threading.Timer(0.3, lambda: store.append(busy, 1, [move(1)]))
        timer.start()
        try:
            got = waiter.wait_many({quiet: 1, busy: 1, game: 0}, 10_000)
        finally:
            timer.join(10)
        assert got == {busy: store.read(busy, 2)}
        store.append(quiet, 1, [move(1)])
        assert waiter.wait_many({quiet: 0, busy: 2}, 5000) == {quiet: store.read(quiet)}

    # -- data fidelity -----------------------------------------------------------------------

    @settings(max_examples=25, deadline=None,
              # one test body for every backend: each backend class is its own executor
              suppress_health_check=[HealthCheck.function_scoped_fixture,
                                     HealthCheck.differing_executors])
    @given(batch=st.lists(st.dictionaries(st.text(max_size=8), json_values, max_size=4),
                          min_size=1, max_size=4))
    def test_any_json_data_round_trips(
        self, store: EventStore, batch: list[dict[str, Any]]
    ) -> None:
        game = f"g-{uuid.uuid4().hex[:12]}"
        written = store.append(game, 0, [NewEvent("MessagePosted", d, "bot:x") for d in batch])
        stored = store.read(game)
        assert stored == written.envelopes
        assert [e["data"] for e in stored] == batch
        assert chain_breaks(stored) == []
