"""Live streams (DESIGN §4): a game's log as it grows, and a player's turns across games.

The routes stay thin: a follower here catches up, waits for appends (a game's streams in
one process share one blocking read of them, `Channel`; a player's stream waits on all its
games at once) and gives what the reader may see. A game's log is redacted by the same
code as `GET …/events` (`redact_log`), never a second copy of it.

A follower is an iterator of lists, one list per wake-up; an empty list means nothing
happened for a keepalive interval: time for the route to send a keepalive.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import islice
from typing import Any, cast

import redis
from redis.cluster import RedisCluster

from events.application.meeple import Meeple
from events.domain.envelope import Envelope, now_iso
from events.domain.table import Status, Table
from events.domain.visibility import redact_log
from events.store.clients import RedisURL, events_client
from events.store.event_store import EventStore

KEEPALIVE_SECONDS = 15.0
# How often a player's stream looks in the lobby for tables they joined since.
REFRESH_SECONDS = 5.0
# A player's stream watches at most this many of their games, the newest.
WATCH_LIMIT = 200
# What can change whose turn it is (table talk, seats and ratings cannot).
TURN_EVENTS = frozenset({"GameStarted", "MovePlayed", "TurnTimedOut", "PlayerResigned"})

# A channel's reader blocks this long at a time: how long it outlives its last stream.
CHANNEL_BLOCK_SECONDS = 5.0
# The newest appends a channel keeps for streams that are a little behind.
CHANNEL_BUFFER = 256
# A stream further behind (catching up from `after`) reads the store this much at a time.
CATCH_UP_PAGE = 500

SeatsOf = Callable[[Table], list[int]]


class Shutdown:
    """Set (from a signal handler: no locks) when the process is stopping gracefully: every
    stream then ends within a second (a player's within its wait), so a deploy need not
    wait out the graceful timeout; clients resume where they were on another process."""

    stopping = False


def stop_streams() -> None:
    Shutdown.stopping = True


@dataclass(frozen=True)
class Shown:
    """An envelope as a reader may see it, with its JSON on one line: made once for all the
    streams of a process whose readers see it alike (every spectator, say)."""

    envelope: Envelope
    json: str


def show(envelopes: list[Envelope], seats: list[int], ended: bool) -> list[Shown]:
    """The envelopes as GET …/events shows them to the holder of `seats` (`redact_log`)."""
    return [Shown(e, json.dumps(e, separators=(",", ":")))
            for e in redact_log(envelopes, seats, ended)]


class BlockingReads:
    """Where streams wait for appends: a connection pool of their own, since a blocking
    read holds its connection until it answers (so no cap below the server's own: gunicorn's
    worker_connections), with a socket timeout above the longest block so that a wait is
    never taken for a dead server.

    A game's streams in one process share one reader of its appends (`channel`): an append
    costs one XREAD per process, not one per stream. A reader keeps one connection for its
    whole life: checking a pooled connection out costs a readiness poll per command, and
    under gevent that poll costs more than the XREAD itself."""

    def __init__(self, url: str, prefix: str, block_seconds: float,
                 max_connections: int = 10_000) -> None:
        self.prefix = prefix
        options = {"socket_timeout": max(block_seconds, CHANNEL_BLOCK_SECONDS) + 10,
                   "socket_connect_timeout": 5, "socket_keepalive": True,
                   "max_connections": max_connections}
        # On a cluster each command takes a connection from its node's pool (its own
        # pools, one client shared); elsewhere a session keeps one connection of ours.
        self._cluster: RedisCluster | None = None
        self._pool: redis.ConnectionPool | None = None
        if RedisURL.parse(url).kind == "cluster":
            self._cluster = cast(RedisCluster, events_client(url, **options))
        else:
            self._pool = redis.ConnectionPool.from_url(url, **options)
        self._lock = threading.Lock()
        self._channels: dict[str, Channel] = {}

    @contextmanager
    def session(self) -> Iterator[EventStore]:
        """A store on one connection of the pool, returned to it at the end."""
        if self._cluster is not None:
            yield EventStore(self._cluster, self.prefix)
            return
        client = redis.Redis(connection_pool=self._pool, single_connection_client=True)
        try:
            yield EventStore(client, self.prefix)
        finally:
            client.close()

    @contextmanager
    def channel(self, game_id: str) -> Iterator[Channel]:
        """The process's reader of the game's appends, started by its first stream and
        stopped after its last has gone."""
        with self._lock:
            channel = self._channels.get(game_id)
            if channel is None:
                channel = self._channels[game_id] = Channel(self, game_id)
            else:
                channel.users += 1
        try:
            yield channel
        finally:
            with self._lock:
                channel.users -= 1
                if channel.users == 0 and self._channels.get(game_id) is channel:
                    del self._channels[game_id]

    def _forget(self, channel: Channel) -> None:
        """A channel whose reader stopped (it failed): the next stream starts a new one."""
        with self._lock:
            if self._channels.get(channel.game_id) is channel:
                del self._channels[channel.game_id]


class Channel:
    """One game's appends as they come, read by one thread (a greenlet under gevent) for
    every stream of this process that follows the game; the newest CHANNEL_BUFFER are kept,
    so a stream a little behind takes them from here, one further behind from the store."""

    def __init__(self, reads: BlockingReads, game_id: str) -> None:
        self.game_id = game_id
        # The stream that opens it, counted before its reader starts: a reader that finds
        # no stream stops, and would leave the streams to come waiting on nothing.
        self.users = 1
        self.position: int | None = None  # the last version read; None until it has begun
        self._reads = reads
        self._recent: deque[Envelope] = deque(maxlen=CHANNEL_BUFFER)
        self._changed = threading.Condition()
        self._failure: Exception | None = None
        # What each kind of reader (seats, ended) is shown of the versions still in _recent.
        self._shown: dict[int, dict[tuple[tuple[int, ...], bool], Shown]] = {}
        threading.Thread(target=self._read, name=f"live-{game_id}", daemon=True).start()

    def _read(self) -> None:
        try:
            with self._reads.session() as waiter:
                position, prev = waiter.head(self.game_id)
                self._publish([], position)
                while self.users > 0:
                    fresh = waiter.wait(self.game_id, position, block_ms(CHANNEL_BLOCK_SECONDS),
                                        prev=prev)
                    if fresh:
                        position, prev = fresh[-1]["v"], fresh[-1]["hash"]
                        self._publish(fresh, position)
        except Exception as failure:  # Redis gone: every stream on it ends, clients resume
            with self._changed:
                self._failure = failure
                self._changed.notify_all()
            self._reads._forget(self)

    def _publish(self, fresh: list[Envelope], position: int) -> None:
        with self._changed:
            self._recent.extend(fresh)
            self.position = position
            first = self._recent[0]["v"] if self._recent else position + 1
            for v in [v for v in self._shown if v < first]:
                del self._shown[v]
            self._changed.notify_all()

    def show(self, fresh: list[Envelope], seats: list[int], ended: bool) -> list[Shown]:
        """`show(fresh, seats, ended)`, each envelope redacted and encoded once per kind of
        reader however many streams of this process follow the game."""
        kind = (tuple(seats), ended)
        shown = []
        with self._changed:  # the reader prunes what it no longer holds
            for envelope in fresh:
                made = self._shown.setdefault(envelope["v"], {})
                item = made.get(kind)
                if item is None:
                    item = made[kind] = show([envelope], seats, ended)[0]
                shown.append(item)
        return shown

    def after(self, version: int, timeout: float) -> list[Envelope] | None:
        """The envelopes after `version`, waiting up to `timeout` seconds while there are
        none: [] if none came, None if this channel no longer holds them all (read them
        from the store). Raises what stopped the reader, if it stopped."""
        with self._changed:
            if self._failure is None and (self.position is None or self.position <= version):
                self._changed.wait(timeout)
            if self._failure is not None:
                raise self._failure
            if self.position is None or self.position <= version:
                return []
            if not self._recent or self._recent[0]["v"] > version + 1:
                return None
            return list(islice(self._recent, version + 1 - self._recent[0]["v"], None))


def block_ms(seconds: float) -> int:
    """A wait in XREAD's unit; at least 1 ms (BLOCK 0 would wait forever)."""
    return max(1, round(seconds * 1000))


class GameFollower:
    """One game's log, as `seats_of` lets the reader see it, from after version `after`
    (None: only what is appended from now on). Ends after `SeedRevealed` of a game that ends
    while followed; for a game already over, once everything after `after` has been given."""

    def __init__(self, app: Meeple, reads: BlockingReads, table: Table, after: int | None,
                 seats_of: SeatsOf, keepalive: float = KEEPALIVE_SECONDS) -> None:
        self._app, self._reads, self._seats_of = app, reads, seats_of
        self.game_id = table.id
        self._seats = seats_of(table)
        self._over_at_start = table.status is Status.ENDED
        self._ended = self._over_at_start
        self._last = table.version
        self.position = table.version if after is None else after
        self._keepalive = keepalive

    def __iter__(self) -> Iterator[list[Shown]]:
        if self._over_at_start and self.position >= self._last:
            return
        if self._over_at_start and not self._app.store.in_redis(self.game_id):
            yield from self._archived()  # nothing will be appended: no channel to wait on
            return
        with self._reads.channel(self.game_id) as channel:
            yield from self._follow(channel)

    def _archived(self) -> Iterator[list[Shown]]:
        """An archived game's events after the position, a page at a time from the store."""
        while self.position < self._last and not Shutdown.stopping:
            fresh = self._app.store.read(self.game_id, self.position + 1,
                                         self.position + CATCH_UP_PAGE)
            if not fresh:
                return
            self.position = fresh[-1]["v"]
            yield self._shown(fresh, None)

    def _follow(self, channel: Channel) -> Iterator[list[Shown]]:
        quiet_since = time.monotonic()
        while not Shutdown.stopping:
            wait = min(1.0, max(0.0, quiet_since + self._keepalive - time.monotonic()))
            fresh = channel.after(self.position, wait)
            source: Channel | None = channel
            if fresh is None:  # behind what the channel holds: a page from the store
                fresh = self._app.store.read(self.game_id, self.position + 1,
                                             self.position + CATCH_UP_PAGE)
                source = None
            if fresh:
                self.position = fresh[-1]["v"]
                yield self._shown(fresh, source)
                if self._finished(fresh):
                    return
                quiet_since = time.monotonic()
            elif time.monotonic() - quiet_since >= self._keepalive:
                if not self._app.store.exists(self.game_id):
                    return  # an open table that expired and was discarded: nothing will come
                yield []
                quiet_since = time.monotonic()

    def _shown(self, fresh: list[Envelope], channel: Channel | None) -> list[Shown]:
        """`fresh` as GET …/events would show it to this reader now: with the seats they
        hold now (a SeatTaken may be theirs), unredacted once the game has ended."""
        if any(e["type"] == "SeatTaken" for e in fresh):
            self._seats = self._seats_of(self._app.load(self.game_id))
        self._ended = self._ended or any(e["type"] == "GameEnded" for e in fresh)
        if channel is None:
            return show(fresh, self._seats, self._ended)
        return channel.show(fresh, self._seats, self._ended)

    def _finished(self, fresh: list[Envelope]) -> bool:
        if self._over_at_start:
            return self.position >= self._last
        return self._ended and any(e["type"] == "SeedRevealed" for e in fresh)


@dataclass(frozen=True)
class Notice:
    """One event of a player's stream."""

    event: str  # your_turn, message, game_started, game_ended
    id: str  # "<game_id>:<version>"
    data: dict[str, Any]


# A game the player's stream finds while it runs is read back this far at most.
NEW_GAME_EVENTS = 200
# Games that left a stream's watch (more than WATCH_LIMIT newer ones) whose last version told
# is kept, so that one coming back tells nothing twice.
LEFT_KEPT = 1000


@dataclass
class _Watch:
    position: int  # the last version looked at
    acting: tuple[int, ...]  # the player's seats that had to act then


class PlayerFollower:
    """A player's games: on start, `your_turn` for each game that awaits them; then their
    turns, table talk, starts and ends as they happen. Watches the newest `limit` of their
    active and open tables, looking in the lobby every `refresh` seconds for new ones."""

    def __init__(self, app: Meeple, reads: BlockingReads, player_id: str,
                 keepalive: float = KEEPALIVE_SECONDS, refresh: float = REFRESH_SECONDS,
                 limit: int = WATCH_LIMIT) -> None:
        self._app, self._reads, self.player_id = app, reads, player_id
        self._keepalive, self._refresh_every, self._limit = keepalive, refresh, limit
        self.watched: dict[str, _Watch] = {}
        self._waiter: EventStore  # the session's, while iterating
        self._opened = now_iso()  # a game found later tells what it appended since
        self._left: dict[str, int] = {}  # games that left the watch: the version told
        self._ended: set[str] = set()  # games whose end was told

    def __iter__(self) -> Iterator[list[Notice]]:
        with self._reads.session() as waiter:
            self._waiter = waiter
            yield from self._follow()

    def _follow(self) -> Iterator[list[Notice]]:
        snapshot = self._snapshot()
        if snapshot:
            yield snapshot
        quiet_since = next_refresh = time.monotonic()
        next_refresh += self._refresh_every
        while not Shutdown.stopping:
            notices = self._wait(min(next_refresh, quiet_since + self._keepalive))
            now = time.monotonic()
            if now >= next_refresh:
                notices += self._refresh(announce=True)
                next_refresh = now + self._refresh_every
            if notices or now - quiet_since >= self._keepalive:
                yield notices
                quiet_since = now

    def _snapshot(self) -> list[Notice]:
        """`your_turn` for every game that awaits the player now (the lobby's inbox)."""
        page = self._app.lobby.inbox(self.player_id, awaiting=True, limit=self._limit)
        self._refresh(announce=False)
        versions = self._app.store.versions([game["id"] for game in page.items])
        return [self._your_turn(game["id"], game["type"], version, self._acting_in(game))
                for game, version in zip(page.items, versions, strict=True)
                if self._acting_in(game)]

    def _wait(self, until: float) -> list[Notice]:
        """Notices of the watched games' appends, waiting until `until` for the first."""
        seconds = max(0.0, until - time.monotonic())
        if not self.watched:
            time.sleep(seconds)
            return []
        afters = {game_id: watch.position for game_id, watch in self.watched.items()}
        found = self._waiter.wait_many(afters, block_ms(seconds))
        return [notice for game_id, fresh in found.items()
                for notice in self._notices(game_id, fresh)]

    def _refresh(self, announce: bool) -> list[Notice]:
        """Watch the newest of the player's active and open tables. A game new to the watch
        is announced with `your_turn` if it awaits them; one that left it (ended) first gives
        what it appended since it was last looked at."""
        games = self._newest_games()
        notices: list[Notice] = []
        gone = {game_id: w.position for game_id, w in self.watched.items() if game_id not in games}
        for game_id, fresh in self._waiter.wait_many(gone, 0).items():
            notices += self._notices(game_id, fresh)
        for game_id in gone:
            watch = self.watched.pop(game_id, None)
            if watch is not None and len(self._left) < LEFT_KEPT:
                self._left[game_id] = watch.position  # told up to here, should it come back
        new = [game for game_id, game in games.items()
               if game_id not in self.watched and game_id not in self._ended]
        for game, version in zip(new, self._app.store.versions([g["id"] for g in new]),
                                 strict=True):
            acting = self._acting_in(game)
            if announce:  # found while streaming: a new table, or one the player just joined
                notices += self._since_opened(game["id"], version)
            if game["id"] not in self.watched:
                self.watched[game["id"]] = _Watch(version, acting)
                if announce and acting:
                    notices.append(self._your_turn(game["id"], game["type"], version, acting))
        return notices

    def _since_opened(self, game_id: str, version: int) -> list[Notice]:
        """The notices of what a game found while streaming appended since the stream
        opened (of its last NEW_GAME_EVENTS at most), as if it had been watched all along:
        its start and table talk come before the next look at the lobby."""
        told = self._left.pop(game_id, 0)
        start = max(1, told + 1, version - NEW_GAME_EVENTS + 1)
        fresh = [envelope for envelope in self._app.events(game_id, start, version)
                 if envelope["at"] >= self._opened] if start <= version else []
        if not fresh:
            return []
        self.watched[game_id] = _Watch(fresh[0]["v"] - 1, ())
        return self._notices(game_id, fresh)

    def _newest_games(self) -> dict[str, dict[str, Any]]:
        """The lobby summaries of the player's newest active and open tables, by id."""
        pages = [self._app.lobby.page(player_id=self.player_id, status=status,
                                      limit=self._limit, private_too=True)
                 for status in ("active", "open")]
        games = sorted((game for page in pages for game in page.items),
                       key=lambda game: game["created_at"], reverse=True)[: self._limit]
        return {game["id"]: game for game in games}

    def _notices(self, game_id: str, fresh: list[Envelope]) -> list[Notice]:
        """What `fresh` (a game's new envelopes) means to the player. `your_turn` when one of
        their seats must now act that did not before, or again after another seat acted."""
        watch = self.watched.get(game_id)
        if watch is None:
            return []
        table = self._app.load(game_id)
        notices = [notice for envelope in fresh
                   if (notice := self._notice(table, envelope)) is not None]
        acting = tuple(s for s in table.seats_of(self.player_id)
                       if s in table.actors() and s not in table.resigned)
        mine = set(table.seats_of(self.player_id))
        others_acted = any(e["type"] in TURN_EVENTS and e["data"].get("seat") not in mine
                           for e in fresh)
        if acting and (acting != watch.acting or others_acted):
            notices.append(self._your_turn(game_id, table.type, table.version, acting))
        watch.position, watch.acting = fresh[-1]["v"], acting
        if any(e["type"] == "GameEnded" for e in fresh):
            self.watched.pop(game_id, None)
            if len(self._ended) < LEFT_KEPT:
                self._ended.add(game_id)  # a lobby entry that lags its end brings nothing back
        return notices

    @staticmethod
    def _notice(table: Table, envelope: Envelope) -> Notice | None:
        kind, v, data = envelope["type"], envelope["v"], envelope["data"]
        where = f"{table.id}:{v}"
        if kind == "MessagePosted":
            placed = table.seat_of(data["seat"])
            return Notice("message", where, {
                "game_id": table.id, "v": v, "seat": data["seat"],
                "name": placed.name if placed else "", "text": data["text"]})
        if kind == "GameStarted":
            return Notice("game_started", where,
                          {"game_id": table.id, "type": table.type, "version": v})
        if kind == "GameEnded":
            return Notice("game_ended", where,
                          {"game_id": table.id, "version": v, "result": data["scores"]})
        return None

    def _acting_in(self, game: dict[str, Any]) -> tuple[int, ...]:
        """The player's seats that must act in a lobby summary (resigned ones: the bot's)."""
        actors = set(game["actors"])
        return tuple(s["seat"] for s in game["seats"] if s["player_id"] == self.player_id
                     and s["seat"] in actors and not s.get("resigned"))

    @staticmethod
    def _your_turn(game_id: str, game_type: str, version: int,
                   seats: tuple[int, ...]) -> Notice:
        return Notice("your_turn", f"{game_id}:{version}", {
            "game_id": game_id, "type": game_type, "version": version, "seats": list(seats)})
