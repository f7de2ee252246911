"""The event store on Redis (DESIGN §3): one stream per game, checked atomic appends.

Keys of one game share the hash tag `{<game_id>}`, so a game lives in one Redis Cluster
slot and its Lua scripts are cluster-legal:

    {prefix}:g:{<game_id>}:events       stream; entry id "<v>-1", fields type, at, by,
                                        hash (raw), data (canonical JSON of the data)
    {prefix}:g:{<game_id>}:meta         hash: version, head (hash of the last envelope)
    {prefix}:g:{<game_id>}:seed         the secret seed (hex), apart from the stream
    {prefix}:g:{<game_id>}:snap         hash: version, payload (JSON); a cache, never the truth
    {prefix}:g:{<game_id>}:checkpoints  hash: version -> zlib'd table JSON, about one per
                                        100 versions, so a past version is near one
    {prefix}:g:{<game_id>}:idem:<key>   hash: request_hash, first, last; expires after 24 h
    {prefix}:g:{<game_id>}:gone         why a discarded game is gone; expires after 30 days
    {prefix}:g:{<game_id>}:record       the finished game's record (zlib'd JSON), written once
    {prefix}:g:{<game_id>}:origin       an imported game's origin: JSON (signed_by, imported_at)

A finished game can leave Redis for an archive (events.store.archive_stores; what moves it
is events.records.archiving): its keys are deleted once the archive holds it, and every read
here (events, version, head, seed, record, origin, batches) then answers from the archive,
the same as before. An archived game takes no more appends (GameArchived), and its caches
(snapshot, checkpoints) are not written back to Redis.

Envelopes are sealed (hashed) here, because Redis 6.2 Lua has no SHA-256; `append.lua`
re-checks version and head atomically before writing. Streams are never trimmed; the one
thing ever deleted is a table that never started (`discard`): it holds no move to keep.

An entry stores no `v` (its id says it) and no `prev` (the entry before holds it), and
every entry has the same fields, which Redis then keeps once per stream node: a finished
five-player game of ~1,000 moves fits in well under 300 KB.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
import zlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import redis
from redis.cluster import RedisCluster
from redis.sentinel import SentinelConnectionPool
from redis.typing import KeyT, StreamIdT

from events.domain.envelope import GENESIS, Envelope, NewEvent, canonical_json, seal
from events.domain.lru import LRU
from events.exceptions import (
    ArchiveUnavailable,
    GameArchived,
    GameNotFound,
    IdempotencyKeyReused,
    NotReplicated,
    VersionConflict,
)
from events.store.archive_document import ArchivedGame, DamagedArchive, count_events, unpack_game
from events.store.archive_stores import GameArchive
from events.store.clients import EventsClient, is_cluster, min_replica_acks

IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60
GONE_TTL_SECONDS = 30 * 24 * 60 * 60
# No batch is longer: 50 moves, the game's end and the seed after them.
MAX_BATCH_EVENTS = 128
# A blocking read answers at most this many envelopes a game (a stream catching up pages on).
WAIT_COUNT = 500
# What a game id can be: ours are 16 hex digits; imported records keep theirs, of this form.
GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
# On Redis Cluster one XREAD cannot wait on games in different slots: `wait_many` asks each
# game's node this often instead (a player's turn stream hears of a move this much later).
CLUSTER_POLL_SECONDS = 0.2
# How long an append waits for its replicas (WAIT) before it is answered NotReplicated.
REPLICA_WAIT_MS = 2000
MOVED_RETRIES = 2  # an append sent to a primary that no longer owns the game goes again
# A cluster scan's cursor is (the primary's own cursor) * MAX_PRIMARIES + (which primary).
MAX_PRIMARIES = 1024
ARCHIVED_GAMES_KEPT = 32  # unpacked archived games a process keeps (they never change)
ARCHIVED_VERSIONS_KEPT = 10_000  # and their versions, for lists (an int each)
_HERE = Path(__file__).parent


@dataclass(frozen=True)
class AppendResult:
    envelopes: list[Envelope]  # on an idempotent replay: the ones the first call wrote
    replayed: bool  # True when an Idempotency-Key matched an earlier identical request


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _bytes(value: bytes | str) -> bytes:
    return value if isinstance(value, bytes) else value.encode()


class EventStore:
    def __init__(self, client: EventsClient, prefix: str = "meeple", *,
                 replica_acks: int | None = None,
                 replica_wait_ms: int = REPLICA_WAIT_MS,
                 archive: GameArchive | None = None) -> None:
        """`replica_acks`: how many replicas must have an append before it is acknowledged
        (None: MEEPLE_MIN_REPLICA_ACKS, else 1 on a cluster or a Sentinel primary, else 0).
        `archive`: where finished games that left Redis are read from (None: nowhere)."""
        if client.get_connection_kwargs().get("decode_responses"):
            raise ValueError("the event store needs a client without decode_responses")
        self._redis = client
        self._cluster = is_cluster(client)
        if replica_acks is None:
            replica_acks = min_replica_acks()
        self.replica_acks = replica_acks if replica_acks is not None else _default_acks(client)
        self._replica_wait_ms = replica_wait_ms
        self._prefix = prefix
        self.archive = archive
        self._unpacked: LRU[ArchivedGame] = LRU(ARCHIVED_GAMES_KEPT)
        self._archived_versions: LRU[int] = LRU(ARCHIVED_VERSIONS_KEPT)
        self._append = client.register_script((_HERE / "append.lua").read_text())
        self._save_checkpoints = client.register_script(
            (_HERE / "save_checkpoints.lua").read_text())
        self._save_snapshot = client.register_script((_HERE / "save_snapshot.lua").read_text())
        self._discard = client.register_script((_HERE / "discard.lua").read_text())
        self._checkpoint = client.register_script((_HERE / "checkpoint.lua").read_text())

    def _key(self, game_id: str, suffix: str) -> str:
        if not GAME_ID.fullmatch(game_id):
            # Not even the form of an id (braces would also break the cluster hash tag).
            raise GameNotFound(f"no game '{_shown(game_id)}'")
        return f"{self._prefix}:g:{{{game_id}}}:{suffix}"

    # -- writing -----------------------------------------------------------------------------

    def append(
        self,
        game_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        *,
        idempotency_key: str | None = None,
        request_hash: str = "",
        expected_head: str | None = None,
    ) -> AppendResult:
        """Append `events` after `expected_version`, atomically, or raise VersionConflict.

        A caller that already knows the head hash at `expected_version` passes it as
        `expected_head` and saves a round trip; the script checks it all the same.
        """
        if not events:
            raise ValueError("nothing to append")
        keys = [self._key(game_id, "events"), self._key(game_id, "meta")]
        if idempotency_key is not None:
            keys.append(self._key(game_id, f"idem:{idempotency_key}"))

        if expected_head is not None:
            version, head = expected_version, expected_head
        else:
            version, head = self._early_check(keys, expected_version, idempotency_key)

        envelopes: list[Envelope] = []
        prev = head
        for offset, event in enumerate(events, start=1):
            envelopes.append(seal(version + offset, event.type, event.data, event.by, prev))
            prev = envelopes[-1]["hash"]
        return self._write(game_id, keys, expected_version, head, envelopes, request_hash,
                           idempotency_key)

    def import_sealed(self, game_id: str, envelopes: Sequence[Envelope]) -> AppendResult:
        """Write a whole game whose envelopes were sealed elsewhere (a verified record), exactly
        as they are: same times, authors and hashes. Only into a game id with no events yet."""
        if not envelopes:
            raise ValueError("nothing to import")
        keys = [self._key(game_id, "events"), self._key(game_id, "meta")]
        return self._write(game_id, keys, 0, GENESIS, list(envelopes), "", None)

    def _write(self, game_id: str, keys: list[str], expected_version: int, head: str,
               envelopes: list[Envelope], request_hash: str,
               idempotency_key: str | None) -> AppendResult:
        args: list[str | bytes | int] = [
            expected_version, head, envelopes[-1]["hash"], request_hash, IDEMPOTENCY_TTL_SECONDS,
            *(part for envelope in envelopes for part in _entry_fields(envelope)),
        ]
        acks = self.replica_acks
        reply = (self._append(keys=keys, args=args) if acks == 0
                 else self._append_and_wait(keys, args, acks))
        status = _text(reply[0])
        if status == "ok":
            return AppendResult(envelopes, replayed=False)
        if status == "conflict":
            raise self._conflict(game_id, expected_version, int(reply[1]))
        if status == "replay":
            return AppendResult(self.read(game_id, int(reply[1]), int(reply[2])), replayed=True)
        raise IdempotencyKeyReused(f"idempotency key {idempotency_key!r} was reused")

    def _append_and_wait(self, keys: list[str], args: list[str | bytes | int],
                         acks: int) -> Any:
        """The append script, then WAIT, on one connection to the game's primary: WAIT counts
        the replicas that have this connection's writes, so it must follow on the same one.
        NotReplicated if fewer than `acks` confirm within the wait (a retry with the same
        Idempotency-Key replays, writing the key's time to live, and waits again)."""
        for attempt in range(MOVED_RETRIES + 1):
            pipe = self._primary(keys[0]).pipeline(transaction=False)
            self._append(keys=keys, args=args, client=pipe)
            pipe.wait(acks, self._replica_wait_ms)
            try:
                reply, acked = pipe.execute()
            except redis.exceptions.MovedError:
                # The slot moved (a failover, a reshard) before the script ran: it is safe to
                # send again, to the new owner. (A lost connection is not: the script may
                # have run. That goes up as it is, the API's 503 "outcome unknown".)
                self._refresh_topology()
                if attempt == MOVED_RETRIES:
                    raise
                continue
            except redis.exceptions.ConnectionError:
                self._refresh_topology()
                raise
            if _text(reply[0]) in ("ok", "replay"):
                self._check_acks(int(acked), acks)
            return reply
        raise AssertionError("unreachable")

    def _check_acks(self, acked: int, acks: int) -> None:
        if acked < acks:
            raise NotReplicated(
                f"the game's primary has the change but only {acked} of {acks} replicas "
                f"confirmed it within {self._replica_wait_ms} ms; retry with the same "
                "Idempotency-Key")

    def _confirm_replicated(self, key: str) -> None:
        """Before an earlier result is answered again: a write to its idempotency key (its
        time to live) and WAIT on the same connection, so the replicas have the first write."""
        acks = self.replica_acks
        if acks == 0:
            return
        pipe = self._primary(key).pipeline(transaction=False)
        pipe.expire(key, IDEMPOTENCY_TTL_SECONDS)
        pipe.wait(acks, self._replica_wait_ms)
        _, acked = pipe.execute()
        self._check_acks(int(acked), acks)

    def _primary(self, key: str) -> redis.Redis:
        """A client of the one node that owns `key` (the client itself off a cluster)."""
        if not isinstance(self._redis, RedisCluster):
            return self._redis
        return self._redis.get_redis_connection(self._redis.get_node_from_key(key))

    def _refresh_topology(self) -> None:
        if isinstance(self._redis, RedisCluster):
            with contextlib.suppress(redis.RedisError):
                self._redis.nodes_manager.initialize()

    def _early_check(
        self, keys: list[str], expected_version: int, idempotency_key: str | None
    ) -> tuple[int, str]:
        # A cheap early version check; the script repeats it atomically, after its own check of
        # the idempotency key (a retry after success must replay, not conflict).
        pipe = self._redis.pipeline(transaction=False)
        pipe.hmget(keys[1], ["version", "head"])
        if idempotency_key is not None:
            pipe.exists(keys[2])
        replies = pipe.execute()
        version, head = _version_head(replies[0])
        seen_key = idempotency_key is not None and bool(replies[1])
        if version != expected_version and not seen_key:
            raise self._conflict(keys[0], expected_version, version)
        return version, head

    def _conflict(self, game_id_or_key: str, expected: int, current: int) -> Exception:
        """VersionConflict, or GameArchived when the game is not in Redis but archived."""
        game_id = _game_id_of(game_id_or_key)
        if current == 0 and expected > 0:
            archived = self.archived(game_id)
            if archived is not None:
                return GameArchived(f"game {game_id} ended and was archived: it is read-only")
        return VersionConflict(current=current)

    def earlier_result(
        self, game_id: str, idempotency_key: str, request_hash: str
    ) -> list[Envelope] | None:
        """The envelopes an earlier request with this key wrote; None if there was none.

        Lets a use case answer a retry before it re-decides anything (the game has
        moved on since). A key reused for a different request raises IdempotencyKeyReused.
        """
        key = self._key(game_id, f"idem:{idempotency_key}")
        stored = self._redis.hmget(key, ["request_hash", "first", "last"])
        if stored[0] is None:
            return None
        stored_hash, first, last = (_text(value or "") for value in stored)
        if stored_hash != request_hash:
            raise IdempotencyKeyReused(f"idempotency key {idempotency_key!r} was reused")
        self._confirm_replicated(key)
        return self.read(game_id, int(first), int(last))

    def put_seed(self, game_id: str, seed: bytes) -> bytes:
        """Store `seed` unless the game has one already; the game's seed either way (a
        seed is never overwritten)."""
        key = self._key(game_id, "seed")
        pipe = self._redis.pipeline(transaction=True)  # the SET and the GET see one value
        pipe.set(key, seed.hex(), nx=True)
        pipe.get(key)
        _, stored = pipe.execute()
        return bytes.fromhex(_text(stored))

    def save_snapshot(self, game_id: str, version: int, payload: dict[str, Any]) -> None:
        self._save_snapshot(keys=[self._key(game_id, "snap"), self._key(game_id, "events")],
                            args=[version, json.dumps(payload)])

    def save_checkpoints(self, game_id: str, tables: dict[int, dict[str, Any]]) -> None:
        """Keep the table at each of these versions (a cache like the snapshot: the stream
        stays the truth), compressed: a table is a few KB of repetitive JSON."""
        if tables:
            args = [part for version, payload in tables.items()
                    for part in (str(version), zlib.compress(json.dumps(payload).encode()))]
            self._save_checkpoints(keys=[self._key(game_id, "checkpoints"),
                                         self._key(game_id, "events")], args=args)

    def checkpoint(self, game_id: str, version: int) -> tuple[int, dict[str, Any]] | None:
        """The newest checkpoint at or before `version`, or None."""
        found = self._checkpoint(keys=[self._key(game_id, "checkpoints")], args=[version])
        if not found:
            return None
        return int(found[0]), json.loads(zlib.decompress(found[1]))

    def put_record(self, game_id: str, record: bytes) -> bytes:
        """Keep a finished game's record unless one is kept already; the kept one either way,
        so every reader gets the same bytes whatever the keys or the code do later."""
        key = self._key(game_id, "record")
        pipe = self._redis.pipeline(transaction=True)  # the SET and the GET see one value
        pipe.set(key, zlib.compress(record), nx=True)
        pipe.get(key)
        _, stored = pipe.execute()
        return zlib.decompress(stored)

    def get_record(self, game_id: str) -> bytes | None:
        stored = self._redis.get(self._key(game_id, "record"))
        if stored is None:
            archived = self.archived(game_id)
            return None if archived is None else archived.record
        return zlib.decompress(_bytes(stored))

    def put_origin(self, game_id: str, origin: dict[str, Any]) -> None:
        """Mark the game as imported (before its events are written: an imported game is
        never, even for a moment, taken for one played here)."""
        self._redis.set(self._key(game_id, "origin"), json.dumps(origin), nx=True)

    def origin(self, game_id: str) -> dict[str, Any] | None:
        raw = self._redis.get(self._key(game_id, "origin"))
        if raw is None:
            archived = self.archived(game_id)
            return None if archived is None else archived.origin
        return dict(json.loads(raw))

    def discard(self, game_id: str, expected_version: int, note: str) -> bool:
        """Delete the game if it is still at `expected_version` (the caller checked that it
        never started); `gone(game_id)` answers `note` for 30 days. False if it moved on."""
        keys = [self._key(game_id, suffix) for suffix in ("events", "meta", "seed", "snap",
                                                          "checkpoints", "gone")]
        return bool(self._discard(keys=keys, args=[expected_version, note, GONE_TTL_SECONDS]))

    def gone(self, game_id: str) -> str | None:
        """Why a discarded game is not here any more, or None."""
        note = self._redis.get(self._key(game_id, "gone"))
        return None if note is None else _text(note)

    # -- reading -----------------------------------------------------------------------------

    def read(self, game_id: str, start: int = 1, end: int | None = None) -> list[Envelope]:
        """Versions start..end inclusive (end None: to the last), in order."""
        high = "+" if end is None else f"{end}-1"
        # One entry more at the front: its hash is the first envelope's `prev`.
        first = max(start, 1)
        low = f"{first - 1}-1" if first > 1 else "-"
        entries = self._redis.xrange(self._key(game_id, "events"), low, high) or []
        if not entries:
            archived = self._archived_unless_in_redis(game_id)
            return [] if archived is None else archived.read(start, end)
        prev = GENESIS
        envelopes: list[Envelope] = []
        for entry_id, fields in entries:
            v = int(_text(entry_id or b"0").split("-")[0])
            envelope = _envelope(v, prev, fields)
            prev = envelope["hash"]
            if v >= first:
                envelopes.append(envelope)
        return envelopes

    def version(self, game_id: str) -> int:
        return self.head(game_id)[0]

    def versions(self, game_ids: Sequence[str], *, archived: bool = True) -> list[int]:
        """The version of each game (0 for none), in one round trip to Redis; an archived
        game's from the archive unless `archived` is False (then 0: not in Redis). A game
        whose archived document cannot be read counts 0 too: a list of many games (the
        lobby's pages) shows what it knows of that one, and only the game's own routes
        answer ArchiveUnavailable."""
        pipe = self._redis.pipeline(transaction=False)
        for game_id in game_ids:
            pipe.hget(self._key(game_id, "meta"), "version")
        return [int(raw) if raw is not None else
                self._archived_version_or_0(game_id) if archived else 0
                for game_id, raw in zip(game_ids, pipe.execute(), strict=True)]

    def _archived_version_or_0(self, game_id: str) -> int:
        try:
            return self._archived_version(game_id)
        except ArchiveUnavailable:
            return 0

    def head(self, game_id: str) -> tuple[int, str]:
        """(version, hash of the last envelope), or (0, GENESIS) for a game with no events."""
        version, head = _version_head(self._redis.hmget(self._key(game_id, "meta"),
                                                        ["version", "head"]))
        if version == 0:
            archived = self.archived(game_id)
            if archived is not None:
                return archived.version, archived.head
        return version, head

    def exists(self, game_id: str) -> bool:
        return self.in_redis(game_id) or self.archived(game_id) is not None

    def in_redis(self, game_id: str) -> bool:
        """Whether the game's stream is in Redis (not archived, not gone)."""
        return bool(self._redis.exists(self._key(game_id, "events")))

    def get_seed(self, game_id: str) -> bytes | None:
        stored = self._redis.get(self._key(game_id, "seed"))
        if stored is None:
            archived = self.archived(game_id)
            return None if archived is None else archived.seed
        return bytes.fromhex(_text(stored))

    def load_snapshot(self, game_id: str) -> tuple[int, dict[str, Any]] | None:
        version, payload = self._redis.hmget(self._key(game_id, "snap"), ["version", "payload"])
        if version is None or payload is None:
            return None
        return int(version), json.loads(payload)

    def batch_start(self, game_id: str, version: int) -> int:
        """The first version of the batch (one append) that wrote `version`: a commit is one
        batch. Entries written before batches were recorded count as batches of one."""
        entries = self._redis.xrange(self._key(game_id, "events"), f"{version}-1",
                                     f"{version}-1") or []
        if not entries:
            archived = self._archived_unless_in_redis(game_id)
            if archived is not None and 1 <= version <= archived.version:
                return archived.batch_start(version)
            raise GameNotFound(f"no version {version} in game '{_shown(game_id)}'")
        first = (entries[0][1] or {}).get(b"batch")
        return int(first) if first is not None else version

    def batch_end(self, game_id: str, first: int) -> int:
        """The last version of the batch that starts at version `first`."""
        entries = self._redis.xrange(self._key(game_id, "events"), f"{first}-1", "+",
                                     count=MAX_BATCH_EVENTS) or []
        if not entries:
            archived = self._archived_unless_in_redis(game_id)
            if archived is not None:
                return archived.batch_end(first)
        last = first
        for entry_id, fields in entries[1:]:
            if entry_id is None or int((fields or {}).get(b"batch", -1)) != first:
                break
            last = int(_text(entry_id).split("-")[0])
        return last

    def batches(self, game_id: str) -> list[tuple[int, int]]:
        """The (first, last) versions of every commit that wrote more than one event."""
        runs: dict[int, int] = {}
        for entry_id, fields in self._redis.xrange(self._key(game_id, "events")) or []:
            first = (fields or {}).get(b"batch")
            v = int(_text(entry_id or b"0").split("-")[0])
            if first is not None and int(first) != v:
                runs[int(first)] = v
        return sorted(runs.items())

    # -- the archive -------------------------------------------------------------------------

    def archived(self, game_id: str) -> ArchivedGame | None:
        """The game as the archive holds it, or None (no archive, or not in it). A damaged
        document is ArchiveUnavailable: never served, never taken for a missing game."""
        self._key(game_id, "events")  # the id's form is checked before any file is named
        if self.archive is None:
            return None
        kept = self._unpacked.get(game_id)
        if kept is not None:
            return kept
        document = self.archive.get(game_id)
        if document is None:
            return None
        try:
            game = unpack_game(document)
        except DamagedArchive as err:
            raise ArchiveUnavailable(f"the archive of game {game_id} is damaged: {err}") from None
        if game.game_id != game_id:
            raise ArchiveUnavailable(f"the archive of game {game_id} holds another game")
        self._unpacked.put(game_id, game)
        return game

    def _archived_unless_in_redis(self, game_id: str) -> ArchivedGame | None:
        """After a read that found nothing: the archived game, unless the game is in Redis
        (a read past its end) — that costs one EXISTS, and only when there is an archive."""
        if self.archive is None or self.in_redis(game_id):
            return None
        return self.archived(game_id)

    def _archived_version(self, game_id: str) -> int:
        """An archived game's version, for lists of many games: kept per process (it never
        changes), read without re-hashing the game (the full read checks it)."""
        if self.archive is None:
            return 0
        known = self._archived_versions.get(game_id)
        if known is not None:
            return known
        kept = self._unpacked.get(game_id)
        document = None if kept is not None else self.archive.get(game_id)
        if kept is None and document is None:
            return 0
        try:
            version = kept.version if kept is not None else count_events(document or b"")
        except DamagedArchive as err:
            raise ArchiveUnavailable(f"the archive of game {game_id} is damaged: {err}") from None
        self._archived_versions.put(game_id, version)
        return version

    def last_change(self, game_id: str) -> str | None:
        """The time of the game's last event in Redis (None: not in Redis)."""
        entries = self._redis.xrevrange(self._key(game_id, "events"), "+", "-", count=1)
        if not entries:
            return None
        return _iso_time(_text(_field(entries[0][1], "at")))

    def memory_usage(self, game_id: str) -> int:
        """The bytes Redis holds for the game's keys (MEMORY USAGE, summed)."""
        keys = [self._key(game_id, suffix) for suffix in (
            "meta", "events", "seed", "snap", "checkpoints", "record", "origin")]
        pipe = self._redis.pipeline(transaction=False)
        for key in keys:
            pipe.memory_usage(key, samples=0)
        return sum(int(used or 0) for used in pipe.execute())

    def drop_archived(self, game_id: str, version: int) -> bool:
        """Delete the game's keys from Redis, if it is still at `version` (an archive of it
        is written and read back by the caller): one transaction, so a reader sees the whole
        game in Redis or none of it there. False if it moved on (a late message)."""
        keys = [self._key(game_id, suffix) for suffix in (
            "meta", "events", "seed", "snap", "checkpoints", "record", "origin", "gone")]
        client = self._primary(keys[0])
        with client.pipeline(transaction=True) as pipe:
            try:
                pipe.watch(keys[0])
                if int(pipe.hget(keys[0], "version") or 0) != version:
                    return False
                pipe.multi()
                pipe.delete(*keys)
                pipe.execute()
            except redis.WatchError:
                return False
        return True

    # -- waiting (live streams) --------------------------------------------------------------

    def wait(self, game_id: str, after: int, block_ms: int, *, prev: str | None = None,
             count: int = WAIT_COUNT) -> list[Envelope]:
        """The envelopes after version `after` (at most `count`), as `read` gives them; when
        there are none yet, waits up to `block_ms` (0: not at all) for an append: [] if none.

        XREAD BLOCK holds its connection until it answers: use a store on a client of its
        own for this (a pool as large as the streams it serves, socket timeout above
        `block_ms`). `prev`, the hash of envelope `after` if the caller knows it, saves the
        round trip that looks it up."""
        prevs = {game_id: prev} if prev is not None else None
        return self.wait_many({game_id: after}, block_ms, prevs=prevs, count=count).get(
            game_id, [])

    def wait_many(self, afters: Mapping[str, int], block_ms: int, *,
                  prevs: Mapping[str, str] | None = None,
                  count: int = WAIT_COUNT) -> dict[str, list[Envelope]]:
        """`wait` on several games at once (one XREAD over their streams): the games that have
        envelopes after their version in `afters`, each with them; {} if none came in time.

        One command over many keys needs them in one hash slot: on Redis Cluster, games in
        several slots are asked without blocking, every CLUSTER_POLL_SECONDS, until one has
        moved."""
        if not afters:
            return {}
        if self._cluster and len({self._slot(game_id) for game_id in afters}) > 1:
            return self._poll_many(afters, block_ms, prevs=prevs, count=count)
        names = {self._key(game_id, "events"): game_id for game_id in afters}
        streams: dict[KeyT, StreamIdT] = {key: _entry_id(afters[game_id])
                                          for key, game_id in names.items()}
        reply = self._redis.xread(streams, count=count, block=block_ms if block_ms > 0 else None)
        found = {names[_text(key)]: entries for key, entries in _stream_replies(reply)}
        return self._with_prevs(found, afters, prevs)

    def _with_prevs(self, found: Mapping[str, list[Any]], afters: Mapping[str, int],
                    prevs: Mapping[str, str] | None) -> dict[str, list[Envelope]]:
        """XREAD's entries of each game as envelopes, chained from the hash at `afters`."""
        known = dict(prevs or {})
        missing = [game_id for game_id in found if game_id not in known]
        known.update(self._hashes_at({game_id: afters[game_id] for game_id in missing}))
        return {game_id: _envelopes(entries, known[game_id])
                for game_id, entries in found.items() if entries}

    def _poll_many(self, afters: Mapping[str, int], block_ms: int, *,
                   prevs: Mapping[str, str] | None, count: int) -> dict[str, list[Envelope]]:
        """`wait_many` on a cluster: every game's XREAD without blocking, in one pipeline (a
        round trip per node), again every CLUSTER_POLL_SECONDS until one has moved or the
        time is up."""
        deadline = time.monotonic() + block_ms / 1000
        while True:
            pipe = self._redis.pipeline(transaction=False)
            for game_id, after in afters.items():
                pipe.xread({self._key(game_id, "events"): _entry_id(after)}, count=count)
            found = {game_id: entries for game_id, reply in zip(afters, pipe.execute(),
                                                                 strict=True)
                     for _, entries in _stream_replies(reply) if entries}
            left = deadline - time.monotonic()
            if found or left <= 0:
                return self._with_prevs(found, afters, prevs)
            time.sleep(min(CLUSTER_POLL_SECONDS, left))

    def _slot(self, game_id: str) -> int:
        return int(self._redis.keyslot(self._key(game_id, "events")))  # type: ignore[union-attr]

    def _hashes_at(self, versions: Mapping[str, int]) -> dict[str, str]:
        """The hash of each game's envelope at the given version (GENESIS at 0): the `prev`
        of the one after it. One round trip for all."""
        wanted = {game_id: v for game_id, v in versions.items() if v > 0}
        hashes = {game_id: GENESIS for game_id, v in versions.items() if v <= 0}
        pipe = self._redis.pipeline(transaction=False)
        for game_id, v in wanted.items():
            pipe.xrange(self._key(game_id, "events"), f"{v}-1", f"{v}-1")
        for game_id, entries in zip(wanted, pipe.execute() if wanted else [], strict=True):
            if not entries:
                raise GameNotFound(f"no version {wanted[game_id]} in game '{_shown(game_id)}'")
            hashes[game_id] = _bytes(_field(entries[0][1], "hash")).hex()
        return hashes

    def scan_game_ids(self, cursor: int, count: int) -> tuple[int, list[str]]:
        """One step of a SCAN over every game's stream: (next cursor, 0 at the end; ids). On
        a cluster the scan goes through the primaries in turn, the cursor saying which."""
        if not self._cluster:
            cursor, keys = self._redis.scan(cursor, match=self._stream_pattern(), count=count,
                                            _type="stream")
            return int(cursor), self._ids(keys)
        primaries = sorted(self._redis.get_primaries(),  # type: ignore[union-attr]
                           key=lambda node: node.name)
        node_cursor, index = divmod(cursor, MAX_PRIMARIES)
        node = primaries[min(index, len(primaries) - 1)]
        reply: Any = self._redis.scan(node_cursor, match=self._stream_pattern(), count=count,
                                      _type="stream", target_nodes=node)
        cursors, keys = reply  # RedisCluster answers each node's cursor by its name
        node_cursor = int(cursors[node.name])
        if node_cursor == 0:  # this primary is done: the next one, or the end
            return (index + 1 if index + 1 < len(primaries) else 0), self._ids(keys)
        return node_cursor * MAX_PRIMARIES + index, self._ids(keys)

    def game_ids(self) -> Iterator[str]:
        """Every game with a stream (SCAN; on a cluster, of every primary), for rebuilding
        read models."""
        keys = self._redis.scan_iter(match=self._stream_pattern(), count=1000, _type="stream")
        for key in keys:
            yield from self._ids([key])

    def _stream_pattern(self) -> str:
        return _glob_escape(f"{self._prefix}:g:{{") + "*" + _glob_escape("}:events")

    def _ids(self, keys: Sequence[bytes | str]) -> list[str]:
        """The game ids of stream keys (a key whose id holds a brace is not one of ours)."""
        head, tail = len(f"{self._prefix}:g:{{"), len("}:events")
        ids = [_text(key)[head:-tail] for key in keys]
        return [game_id for game_id in ids if "}" not in game_id]


def _game_id_of(game_id_or_key: str) -> str:
    """A game id, from itself or from one of its keys (`…:g:{<id>}:…`)."""
    start = game_id_or_key.find("{")
    if start < 0:
        return game_id_or_key
    return game_id_or_key[start + 1:game_id_or_key.index("}", start)]


def _default_acks(client: EventsClient) -> int:
    """1 on a cluster or a Sentinel-watched primary (deployments made to survive losing a
    node), 0 on a single node. Decided by the kind of deployment, not by the replicas seen
    at one moment: a replica down when a process starts must not switch the wait off."""
    if isinstance(client, RedisCluster):
        return 1
    return 1 if isinstance(client.connection_pool, SentinelConnectionPool) else 0


def _entry_id(after: int) -> str:
    """The stream id that XREAD answers entries after: that of version `after`."""
    return f"{after}-1" if after > 0 else "0-0"


def _stream_replies(reply: Any) -> list[tuple[bytes | str, list[Any]]]:
    """XREAD's answer as (key, entries) pairs, whichever protocol the client speaks."""
    if not reply:
        return []
    if isinstance(reply, dict):  # RESP3
        return [(key, value[0] if value and isinstance(value[0], list) else value)
                for key, value in reply.items()]
    return [(key, entries) for key, entries in reply]


def _envelopes(entries: list[Any], prev: str) -> list[Envelope]:
    """Stream entries (in order) as envelopes; `prev` is the hash before the first."""
    envelopes: list[Envelope] = []
    for entry_id, fields in entries:
        envelopes.append(_envelope(int(_text(entry_id).split("-")[0]), prev, fields))
        prev = envelopes[-1]["hash"]
    return envelopes


def _version_head(reply: list[bytes | str | None]) -> tuple[int, str]:
    version, head = reply
    if version is None or head is None:
        return 0, GENESIS
    return int(version), _text(head)


_FIELDS = ("type", "at", "by", "hash", "data")


def _entry_fields(envelope: Envelope) -> list[str | bytes]:
    """The stream entry of an envelope, as field values in `_FIELDS` order.

    The hash is kept as its 32 raw bytes and a millisecond timestamp as epoch
    milliseconds (a Redis integer): half the size, and both convert back exactly.
    """
    return [envelope["type"], _compact_time(envelope["at"]), envelope["by"],
            bytes.fromhex(envelope["hash"]), canonical_json(envelope["data"])]


def _compact_time(at: str) -> str:
    try:
        millis = round(datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError:
        return at
    return str(millis) if _iso_time(str(millis)) == at else at  # only when exact


def _iso_time(stored: str) -> str:
    if not stored.isdigit():
        return stored
    moment = datetime.fromtimestamp(int(stored) / 1000, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _envelope(v: int, prev: str, fields: dict[bytes | str, bytes | str] | None) -> Envelope:
    return {
        "v": v,
        "type": _text(_field(fields, "type")),
        "at": _iso_time(_text(_field(fields, "at"))),
        "by": _text(_field(fields, "by")),
        "data": json.loads(_field(fields, "data")),
        "prev": prev,
        "hash": _bytes(_field(fields, "hash")).hex(),
    }


def _field(fields: dict[bytes | str, bytes | str] | None, name: str) -> bytes | str:
    """A stream entry's field, whether or not the client decodes responses."""
    assert fields is not None
    return fields[name.encode()] if name.encode() in fields else fields[name]


def _glob_escape(text: str) -> str:
    return "".join("\\" + char if char in "*?[]\\" else char for char in text)


def _shown(game_id: str) -> str:
    """The id as an error message may repeat it: short, and printable."""
    text = game_id[:64].encode("ascii", "backslashreplace").decode()
    return text + ("…" if len(game_id) > 64 else "")
