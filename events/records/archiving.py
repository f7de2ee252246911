"""Finished games leave Redis: archived, read back, compared, and only then deleted.

A finished five-player game holds about 210 KB of Redis for ever; its archive document
(events.store.archive_document) is about 15 KB. Once a game has ended and nothing has
happened at its table for `MEEPLE_ARCHIVE_AFTER_DAYS` (7; scores and the last table talk
come within minutes, and idempotency keys expire after one day), `archive_game`:

1. builds and signs its final record if nobody asked for it yet (events.records.finished);
2. packs the record, every event, the origin and the commits into one document;
3. checks that it unpacks to the same record bytes and envelopes as the store holds now,
   writes it to the archive and reads back the same bytes;
4. deletes the game's keys in one transaction, if the game is still at the version read
   (a message that came in between keeps the game in Redis; its stale document is removed).

A crash anywhere leaves the game whole in Redis (with at most a document nobody reads yet),
or whole in the archive. Readers never notice: the event store answers from the archive.
`meeple archive` runs it by hand; the hourly housekeeping runs a bounded slice.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from events.application.meeple import Meeple
from events.domain.deadlines import parse_time
from events.domain.table import Status
from events.exceptions import ArchiveUnavailable, MeepleError
from events.records.finished import finished_record
from events.records.keys import Keyring
from events.store.archive_document import pack_game
from events.store.archive_stores import GameArchive

ARCHIVE_AFTER_DAYS = 7.0
GAMES_PER_SLICE = 2000  # an hourly pass looks at about this many games in Redis
SCAN_COUNT = 500


def archive_after() -> timedelta | None:
    """MEEPLE_ARCHIVE_AFTER_DAYS (default 7) as a time; None when it is `off`."""
    raw = os.environ.get("MEEPLE_ARCHIVE_AFTER_DAYS", "").strip().lower()
    if raw == "off":
        return None
    days = float(raw) if raw else ARCHIVE_AFTER_DAYS
    if days < 0:
        raise ValueError("MEEPLE_ARCHIVE_AFTER_DAYS is a number of days (0 or more) or off")
    return timedelta(days=days)


@dataclass(frozen=True)
class Moved:
    """One game archived: its document's size and the Redis memory it held."""

    game_id: str
    events: int
    document_bytes: int
    redis_bytes: int


@dataclass
class ArchivePass:
    """What one pass did."""

    looked_at: int = 0
    moved: list[Moved] = field(default_factory=list)
    not_in_redis: int = 0  # archived already, or no such game
    not_ended: int = 0
    too_recent: int = 0
    moved_on: int = 0  # a new event between the read and the delete: kept in Redis
    failed: list[str] = field(default_factory=list)

    @property
    def document_bytes(self) -> int:
        return sum(m.document_bytes for m in self.moved)

    @property
    def redis_bytes(self) -> int:
        return sum(m.redis_bytes for m in self.moved)


class NotArchivable(MeepleError):
    code = "not_archivable"


def archive_game(app: Meeple, game_id: str, keyring: Keyring | None) -> Moved | None:
    """Move one ended game to the archive (steps 1-4 above); None if it moved on meanwhile
    or is not in Redis. NotArchivable if it has not ended, or its record is not signed yet
    and there is no `keyring` to sign it; ArchiveUnavailable if the archive fails."""
    archive = _archive_of(app)
    if not app.store.in_redis(game_id):
        return None  # archived already (or gone)
    table = app.load(game_id)
    if table.status is not Status.ENDED:
        raise NotArchivable(f"game {game_id} has not ended")
    record = app.store.get_record(game_id)
    if record is None:
        if keyring is None:
            raise NotArchivable(f"game {game_id}: its record is not signed yet, and this "
                                "process has no signing key (MEEPLE_KEYS_DIR)")
        record = finished_record(app, game_id, keyring)
    envelopes = app.store.read(game_id, 1, table.version)
    if len(envelopes) != table.version:
        return None  # already archived (read from there), or moving on: not this pass
    try:
        document = pack_game(game_id, record, envelopes, app.store.origin(game_id),
                             app.store.batches(game_id))
    except ValueError as err:  # a record not of this stream: keep the game, say so, go on
        raise NotArchivable(str(err)) from err
    redis_bytes = app.store.memory_usage(game_id)
    archive.put(game_id, document)
    _check_read_back(archive, game_id, document)
    if not app.store.drop_archived(game_id, table.version):
        if app.store.in_redis(game_id):  # moved on: the document is stale, and not the truth
            archive.delete(game_id)
        return None  # (or another pass archived it at the same moment: its document stays)
    return Moved(game_id, table.version, len(document), redis_bytes)


def archive_finished_games(
    app: Meeple, keyring: Keyring | None, now: datetime, older_than: timedelta,
    game_ids: Iterable[str] | None = None, limit: int | None = None,
    on_game: Callable[[ArchivePass], None] | None = None,
) -> ArchivePass:
    """Archive the ended games in Redis (`game_ids`, default every one) whose last event is
    older than `older_than`, at most `limit`; `on_game` is called after each one looked at."""
    done = ArchivePass()
    cutoff = now - older_than
    for game_id in app.store.game_ids() if game_ids is None else game_ids:
        if limit is not None and len(done.moved) >= limit:
            break
        done.looked_at += 1
        try:
            _archive_if_due(app, keyring, game_id, cutoff, done)
        except MeepleError as err:  # one game's trouble does not stop the pass
            done.failed.append(f"{game_id}: {err.detail}")
        if on_game is not None:
            on_game(done)
    return done


def _archive_if_due(app: Meeple, keyring: Keyring | None, game_id: str, cutoff: datetime,
                    done: ArchivePass) -> None:
    last = app.store.last_change(game_id)
    if last is None:
        done.not_in_redis += 1
        return
    if parse_time(last) > cutoff:
        done.too_recent += 1
        return
    if app.load(game_id).status is not Status.ENDED:
        done.not_ended += 1
        return
    moved = archive_game(app, game_id, keyring)
    if moved is None:
        done.moved_on += 1
    else:
        done.moved.append(moved)


def archive_a_slice(app: Meeple, keyring: Keyring | None, now: datetime,
                    older_than: timedelta, games: int = GAMES_PER_SLICE) -> ArchivePass:
    """One step of a scan over the games in Redis (the cursor kept on the control store
    between passes, so that successive passes go round them all): about `games` looked at."""
    cursor_key = f"{app.prefix}:archive:cursor"
    cursor = int(app.redis.get(cursor_key) or 0)
    done = ArchivePass()
    while done.looked_at < games:
        cursor, ids = app.store.scan_game_ids(cursor, SCAN_COUNT)
        step = archive_finished_games(app, keyring, now, older_than, game_ids=ids)
        _add(done, step)
        if cursor == 0:
            break
    app.redis.set(cursor_key, cursor)
    return done


def _add(total: ArchivePass, step: ArchivePass) -> None:
    total.looked_at += step.looked_at
    total.moved += step.moved
    total.not_in_redis += step.not_in_redis
    total.not_ended += step.not_ended
    total.too_recent += step.too_recent
    total.moved_on += step.moved_on
    total.failed += step.failed


def _archive_of(app: Meeple) -> GameArchive:
    if app.store.archive is None:
        raise ArchiveUnavailable("no archive is set (MEEPLE_ARCHIVE_URL is none)")
    return app.store.archive


def _check_read_back(archive: GameArchive, game_id: str, document: bytes) -> None:
    """The archive gives back the very bytes written (pack_game has already checked that
    they unpack to the stored record and events: equal bytes unpack the same)."""
    if archive.get(game_id) != document:
        raise ArchiveUnavailable(f"game {game_id}: the archive did not give back what was "
                                 "written; the game stays in Redis")
