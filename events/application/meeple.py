"""The use cases: the only code that writes to the event store.

Each use case loads a table (snapshot + the events after it), decides the new
events with the pure functions of `events.domain.table`, appends them atomically with
the expected version, then refreshes the caches (snapshot, lobby) and tells
the dispatcher, which queues follow-up work (bot turns, scoring).

Longer than our other modules (some 600 lines) on purpose: `Meeple` is the one class
through which anything is written to a game's stream, so every write, and every check made
before one, can be read in this one file.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import os
import secrets
import time
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

import redis
from marshmallow import Schema, ValidationError, fields
from redis.exceptions import LockError

from events.accounts.players import Player, Players, bot_player
from events.application.dispatch import Dispatcher, NoDispatch, RQDispatcher
from events.domain.deadlines import deadline_rule, min_move_seconds
from events.domain.envelope import Envelope, NewEvent, canonical_json
from events.domain.lru import LRU
from events.domain.table import (
    Decision,
    Status,
    Table,
    after_append,
    decide_create,
    decide_join,
    decide_moves,
    decide_moves_for,
    decide_resign,
    decide_timeout,
    evolve,
)
from events.exceptions import (
    ArchiveUnavailable,
    GameExists,
    GameNotFound,
    IdempotencyKeyReused,
    InvalidMessage,
    InvalidOptions,
    MeepleError,
    NotSeated,
    QuotaExceeded,
    UnknownGameType,
    VersionConflict,
    VersionNotFound,
)
from events.readmodels.lobby import Lobby, summary
from events.store.archive_stores import GameArchive, open_archive
from events.store.clients import Connections, EventsClient
from events.store.event_store import EventStore
from games.bots import GREEDY, RANDOM, Level, move_floor
from games.contract import Game, Move
from games.registry import GAMES, UnknownGame, get_game
from games.rng import DRAWS_BY_MOVE

# Without an expected version from the client, a lost race is retried this often.
# A write that does not depend on the version (a join, table talk, a resignation, moves sent
# without an expected version) is decided again after another writer's append, for this
# long, with a short random pause between attempts: a crowd writing at once (everyone's
# "gg" at the end) all get through, none with a 409.
RETRY_SECONDS = 2.0
RETRY_PAUSE_SECONDS = 0.02  # the longest pause; each is random below it
_R = TypeVar("_R")  # what a use case answers
# A snapshot (a cache of the folded table) is written every this many versions.
SNAPSHOT_EVERY = 25
# A past version (`state?version=N`, replays) is rebuilt from the checkpoint before it:
# one per this many versions, about 1 KB each compressed (3% of a finished game's stream).
CHECKPOINT_EVERY = 100
CACHE_SIZE = 512
# Table talk: at most this many characters once surrounding whitespace is stripped.
MESSAGE_MAX_LENGTH = 500
# Open tables (waiting for players) that seat one player at most at once.
MAX_OPEN_GAMES = 20
# Bot-only tables (join=false, every seat a bot) a player may have running at once: each
# plays to its end on the `ai` workers, which every table's bots share.
MAX_BOT_GAMES = 3
# How long a lock on a player's open-table count lives: what a lock left by a process that
# died holds the next request up (the count and the write take milliseconds). A request
# waits twice that for it, so a dead holder's lock always expires while it waits.
QUOTA_LOCK_SECONDS = 5
# Records imported per player and day: each costs its whole game's storage.
MAX_IMPORTS_PER_DAY = 50


@dataclass(frozen=True)
class MovesResult:
    table: Table
    envelopes: list[Envelope]
    replayed: bool


@dataclass(frozen=True)
class MessageResult:
    table: Table
    envelope: Envelope
    replayed: bool


class Meeple:
    def __init__(
        self,
        client: redis.Redis,
        dispatcher: Dispatcher | None = None,
        prefix: str = "meeple",
        new_seed: Callable[[], bytes] = lambda: secrets.token_bytes(32),
        min_move_seconds: int | None = None,
        events: EventsClient | None = None,
        archive: GameArchive | None = None,
    ) -> None:
        # `client` is the control store (players, lobby, RQ); `events` the event store, which
        # may be a Redis Cluster (events.store.clients); one server holds both by default.
        self.redis = client
        # The shortest time per move a table may choose (MEEPLE_MIN_MOVE_SECONDS by default).
        self.min_move_seconds = min_move_seconds
        self.clock: Callable[[], datetime] = lambda: datetime.now(UTC)
        # Every game's secret seed comes from here; tests that replay a known deal pass their own.
        self._new_seed = new_seed
        self.prefix = prefix
        self.connections = Connections(events if events is not None else client, client)
        # Finished games that left Redis are read from `archive` (events.records.archiving).
        self.store = EventStore(self.connections.events, prefix, archive=archive)
        self.players = Players(client, prefix)
        self.lobby = Lobby(client, prefix)
        self.dispatcher: Dispatcher = dispatcher or NoDispatch()
        # Tables and seeds are immutable, so a process may keep recent ones; `load` still
        # asks Redis for the version each time, so another process's writes are seen.
        self._tables: LRU[Table] = LRU(CACHE_SIZE)
        self._seeds: LRU[bytes] = LRU(CACHE_SIZE)
        self._id_secret: bytes | None = None  # keyed_game_id's, read on first use
        # Bot-only tables a player may have running at once (MEEPLE_MAX_BOT_GAMES; 0: any
        # number). None for a process that plays its own one after another (`meeple simulate`).
        limit = int(os.environ.get("MEEPLE_MAX_BOT_GAMES") or MAX_BOT_GAMES)
        self.max_bot_games: int | None = limit or None

    @classmethod
    def connect(cls, connections: Connections, *, dispatch: bool = True) -> Meeple:
        """The use cases on both Redis roles (`events.store.clients.connect`), queueing
        follow-up work on RQ (on the control store) unless `dispatch` is False, with the
        archive of finished games that MEEPLE_ARCHIVE_URL names."""
        dispatcher = (RQDispatcher(connections.control, events=connections.events)
                      if dispatch else None)
        return cls(connections.control, dispatcher, events=connections.events,
                   archive=open_archive())

    # --- game types -------------------------------------------------------

    @staticmethod
    def game_types() -> list[Game]:
        return list(GAMES.values())

    @staticmethod
    def game_type(game_type: str) -> Game:
        try:
            return get_game(game_type)
        except UnknownGame:
            known = ", ".join(sorted(GAMES))
            raise UnknownGameType(f"no game type '{game_type}'; known: {known}") from None

    # --- commands ---------------------------------------------------------

    def create_game(
        self,
        player: Player,
        game_type: str,
        seats: int,
        options: dict[str, Any] | None = None,
        bots: Sequence[int | dict[str, Any]] | None = None,
        join: bool = True,
        idempotency_key: str | None = None,
        deadline: dict[str, Any] | None = None,
        seat_seed: str | None = None,
        public: bool = True,
    ) -> Table:
        """Open a table. With an idempotency key the game id is derived from it, so a
        retried request finds the game the first one made instead of making another.
        `deadline`: {"hours", "on_expiry"} (events.domain.deadlines), or None for no time limit.
        `seat_seed`: the creator's contribution to the randomness (made from the server's
        seed if None, as for bots: games.rng.server_made_seat_seed).
        `public`: anyone may watch it (a private table shows itself to its seats only).
        `bots`: the seats bots play, each a seat number (a random bot) or {"seat", "level"}
        (games.bots)."""
        game = self.game_type(game_type)
        clean_options = self._validate_options(game, options or {})
        rule = self._deadline_rule(deadline)
        levels = _bot_levels(bots or [], seats)
        if join and len(levels) >= seats:
            raise InvalidOptions("every seat is a bot: pass join=false to watch a bot-only game")
        request = {"type": game.id, "seats": seats, "options": clean_options,
                   "bots": {s: level.id for s, level in levels.items()},
                   "deadline": rule, "public": public}
        if idempotency_key is None:
            game_id = secrets.token_hex(8)
        else:
            game_id = self.keyed_game_id(player.id, idempotency_key)
            if self.store.exists(game_id):
                return self._same_creation(game_id, request)
        # A seat that brings no seed gets one made from the server's seed (decide_join).
        joins: list[tuple[Player, int | None, bool, str | None]] = [
            (bot_player(s, level.id), s, True, None) for s, level in levels.items()]
        if join:
            joins.append((player, None, False, seat_seed))
        # A table whose seats are all taken at once (bots, the creator) starts: it won't wait.
        # Counted against MEEPLE_MAX_BOT_GAMES: bot-only tables, and tables whose bots search
        # (a person at one seat beside four ismcts-5000ms bots costs the `ai` workers as much;
        # so does a searching stand-in, which a resignation hands the seat to at once).
        stand_in = Level.parse(rule["bot"]) if rule is not None and rule.get("bot") else RANDOM
        bot_table = len(levels) >= seats or any(level.kind == "ismcts"
                                                 for level in [*levels.values(), stand_in])
        with self._open_quota(player, waits=len(joins) < seats, bot_table=bot_table):
            seed = self._new_seed()
            events = _creation(game, game_id, seats, clean_options, rule, joins, seed,
                               public)  # may refuse
            stored = self.store.put_seed(game_id, seed)
            if stored != seed:
                # A request that died between storing its seed and appending GameCreated left
                # a seed nobody saw anything of: this retry takes it up and completes it.
                seed = stored
                events = _creation(game, game_id, seats, clean_options, rule, joins, seed,
                                   public)
            try:
                result = self.store.append(game_id, 0, events)
            except VersionConflict:
                # Only a concurrent retry of the same keyed request can get here first.
                return self._same_creation(game_id, request)
            table = self._fold(Table.empty(game_id), result.envelopes, seed)
            if not join and table.status is Status.OPEN:
                self.redis.zadd(f"{self.prefix}:hosting:{player.id}", {game_id: time.time()})
            if bot_table:
                self.redis.zadd(f"{self.prefix}:bot-games:{player.id}", {game_id: time.time()})
            return self._committed(table, len(result.envelopes), by=player.id)

    def keyed_game_id(self, player_id: str, idempotency_key: str) -> str:
        """The id of the game a keyed creation makes: the same for a retry, and keyed with a
        server secret, since player ids are public and keys often guessable (a counter):
        nobody else can compute a private table's id from them."""
        mac = hmac.new(self._game_id_secret(), f"{player_id}/{idempotency_key}".encode(),
                       hashlib.sha256)
        return mac.hexdigest()[:16]

    def _game_id_secret(self) -> bytes:
        """A secret made once for the whole service (the first process to need it stores it
        in the control store; every other takes that one), kept in this process."""
        if self._id_secret is None:
            key = f"{self.prefix}:secret:game-ids"
            self.redis.set(key, secrets.token_hex(32), nx=True)
            stored = self.redis.get(key)
            assert stored is not None  # just set, unless it was there already
            self._id_secret = stored if isinstance(stored, bytes) else str(stored).encode()
        return self._id_secret

    @contextmanager
    def _open_quota(self, player: Player, waits: bool, bot_table: bool = False
                    ) -> Iterator[None]:
        """Tables waiting for players cost storage and nobody may make them without end:
        at most MEEPLE_MAX_OPEN_GAMES (20) open tables a player sits at or made at once. A
        bot-only table, or one whose bots search, costs the `ai` workers every table shares
        until it ends: at most MEEPLE_MAX_BOT_GAMES (3) open or running at once a player
        made. When the request at hand leaves one more table waiting for the player
        (`waits`), or makes a bot table, the count and the write that adds the table (up to
        the lobby, or the player's list of bot tables, where the next count reads it) hold
        the player's lock: requests of one player racing each other would all read the same
        count and all pass it."""
        if not waits and not bot_table:
            yield
            return
        lock = self.redis.lock(f"{self.prefix}:open-quota-lock:{player.id}",
                               timeout=QUOTA_LOCK_SECONDS, sleep=0.01,
                               blocking_timeout=2 * QUOTA_LOCK_SECONDS)
        if not lock.acquire():
            raise QuotaExceeded("you are opening or joining too many tables at once: wait "
                                "for those requests to be answered, then try again")
        try:
            if waits:
                self._check_open_quota(player)
            if bot_table:
                self._check_bot_quota(player)
            yield
        finally:
            with suppress(LockError):  # held past its timeout: another holds it now
                lock.release()

    def _check_open_quota(self, player: Player) -> None:
        limit = int(os.environ.get("MEEPLE_MAX_OPEN_GAMES") or MAX_OPEN_GAMES)
        waiting = self.lobby.open_tables(player.id) + self._hosted_open(player.id)
        if waiting >= limit:
            raise QuotaExceeded(f"you have {waiting} tables waiting for players (at most "
                                f"{limit}): start or fill one before you open or join "
                                "another")

    def _check_bot_quota(self, player: Player) -> None:
        limit = self.max_bot_games
        if limit is None:
            return
        running = self._count_listed(f"{self.prefix}:bot-games:{player.id}",
                                     {"open", "active"})
        if running >= limit:
            raise QuotaExceeded(f"you have {running} tables of bots only or with searching "
                                f"bots (at most {limit}): wait for one to end before you "
                                "start another")

    def _hosted_open(self, player_id: str) -> int:
        """How many open tables the player made without a seat (`join=false`): the streams
        do not say who made a table (GameCreated is by "system"), so each is listed at its
        creation under the player, and those no longer open are dropped here."""
        return self._count_listed(f"{self.prefix}:hosting:{player_id}", {"open"})

    def _count_listed(self, key: str, statuses: set[str]) -> int:
        """How many of the tables listed at `key` the lobby shows in one of `statuses`; the
        others are dropped from the list (they never come back to these)."""
        ids = [raw.decode() if isinstance(raw, bytes) else str(raw)
               for raw in self.redis.zrange(key, 0, -1)]
        done = [game_id for game_id, status in zip(ids, self.lobby.statuses(ids), strict=True)
                if status not in statuses]
        if done:
            self.redis.zrem(key, *done)
        return len(ids) - len(done)

    def _count_import(self, player_id: str) -> None:
        limit = int(os.environ.get("MEEPLE_MAX_IMPORTS_PER_DAY") or MAX_IMPORTS_PER_DAY)
        key = f"{self.prefix}:imports:{player_id}:{self.clock().date().isoformat()}"
        pipe = self.redis.pipeline()
        pipe.incr(key)
        pipe.expire(key, 2 * 86400)
        count, _ = pipe.execute()
        if int(count) > limit:
            raise QuotaExceeded(f"at most {limit} imports a day; try again tomorrow")

    def _same_creation(self, game_id: str, request: dict[str, Any]) -> Table:
        for _ in range(50):  # the first request may still be between its two writes
            if self.store.exists(game_id):
                break
            time.sleep(0.01)
        created = self.store.read(game_id, 1, self.store.batch_end(game_id, 1))
        table = self._replay(game_id, created)
        made = {"type": table.type, "seats": table.seat_count, "options": table.options,
                "bots": {s.seat: level.id for s in table.seats
                         if (level := table.bot_level(s.seat)) is not None},
                "deadline": table.deadline,
                "public": table.public}
        if made != request:
            raise IdempotencyKeyReused("this Idempotency-Key already created a different game")
        return table

    def join_game(
        self,
        player: Player,
        game_id: str,
        seat: int | None = None,
        idempotency_key: str | None = None,
        seat_seed: str | None = None,
    ) -> Table:
        """Take a seat. A retried request with the same key does not take a second one.
        `seat_seed`: the seat's contribution to the randomness (made from the server's
        committed seed if None: games.rng.server_made_seat_seed)."""
        key, request_hash, earlier = self._earlier(game_id, player, idempotency_key,
                                                   {"join": seat, "seed": seat_seed})
        return self._once(game_id, key, request_hash, earlier,
                          lambda: self._join(player, game_id, seat, seat_seed, key,
                                             request_hash),
                          lambda envelopes: self._replay(game_id, envelopes))

    def _join(self, player: Player, game_id: str, seat: int | None, seat_seed: str | None,
              key: str | None, request_hash: str) -> Table:
        def attempt() -> Table:
            table = self.load(game_id)
            if table.status is not Status.OPEN:
                # An open private table takes whoever has its id (the id is the invitation);
                # any other is, to a stranger, no game.
                self._check_shown(table, player)
            server_seed = self._seed(game_id) if table.dealing == "seats" else None
            events = decide_join(table, player.id, player.name, seat, seed=seat_seed,
                                 server_seed=server_seed)
            # A join that does not start the game leaves one more table waiting for the
            # player (unless they sat there already): the quota of open tables applies.
            waits = (not table.seats_of(player.id)
                     and not any(event.type == "GameStarted" for event in events))
            with self._open_quota(player, waits):
                result = self.store.append(game_id, table.version, events,
                                           idempotency_key=key, request_hash=request_hash)
                if result.replayed:
                    return self._replay(game_id, result.envelopes)
                joined = self._fold(table, result.envelopes, self._seed(game_id))
                return self._committed(joined, len(result.envelopes), before=table,
                                       by=player.id)
        return _on_the_latest_version(attempt)

    def play_moves(
        self,
        player: Player,
        game_id: str,
        moves: list[Move],
        expected_version: int | None = None,
        seat: int | None = None,
        idempotency_key: str | None = None,
    ) -> MovesResult:
        """Apply one or several moves, all or nothing."""
        key, request_hash, earlier = self._earlier(
            game_id, player, idempotency_key,
            {"moves": moves, "seat": seat, "expected": expected_version})
        return self._once(
            game_id, key, request_hash, earlier,
            lambda: self._play(player, game_id, moves, expected_version, seat, key,
                               request_hash),
            lambda envelopes: MovesResult(self._replay(game_id, envelopes), envelopes, True))

    def _play(self, player: Player, game_id: str, moves: list[Move],
              expected_version: int | None, seat: int | None, key: str | None,
              request_hash: str) -> MovesResult:
        seed = self._seed(game_id)
        give_up_at = time.monotonic() + RETRY_SECONDS
        for attempt in itertools.count():
            trusted = self._cached_at(game_id, expected_version) if attempt == 0 else None
            table = loaded = trusted or self.load(game_id)
            self._check_shown(table, player)
            if expected_version is not None and expected_version != table.version:
                raise VersionConflict(current=table.version)
            decision = decide_moves(table, player.id, seat, moves, seed)
            try:
                result = self.store.append(
                    game_id, table.version, decision.events,
                    idempotency_key=key, request_hash=request_hash, expected_head=table.head,
                )
            except VersionConflict:
                # After a trusted cache, load once from the store and decide again.
                if (expected_version is not None and trusted is None) or \
                        time.monotonic() >= give_up_at:
                    raise
                _pause()
                continue
            if result.replayed:
                return MovesResult(self._replay(game_id, result.envelopes), result.envelopes,
                                   True)
            table = after_append(decision.table, loaded, result.envelopes, seed)
            committed = self._committed(table, len(result.envelopes), before=loaded,
                                        by=player.id)
            return MovesResult(committed, result.envelopes, False)
        raise AssertionError("unreachable")

    def append_system_events(self, game_id: str, events: list[NewEvent], expected: int) -> Table:
        """For workers: append events that are not moves (e.g. GameScored)."""
        table = self.load(game_id)
        result = self.store.append(game_id, expected, events)
        after = self._fold(table, result.envelopes, self._seed(game_id))
        return self._committed(after, len(result.envelopes), before=table)

    # --- deadlines (events.domain.deadlines) ---------------------------------------

    def expire_turn(self, game_id: str, seat: int, started: int) -> Table:
        """The deadline of `seat`'s turn that started at version `started` has passed:
        TurnTimedOut and the table's consequence, in one append. StaleDeadline when that turn
        is over, DeadlineNotDue before its time (the caller may try again later)."""
        seed = self._seed(game_id)
        # The stand-in's choices, by the state it chose in: table talk appended meanwhile
        # changes no state, so deciding again (the draws of a later version differ, so a
        # decision is never reused) does not search again what it searched already.
        chosen: dict[str, str] = {}
        # From the first attempt: one that meets table talk waits out no floor again (the
        # wait would widen the window the next talk lands in).
        began = time.monotonic()

        def attempt() -> Table:
            table = self.load(game_id)
            decision = decide_timeout(table, seat, started, seed, self.clock(), time.monotonic,
                                      chosen)
            # The stand-in's moves wait out their floor: when they come tells nothing of the
            # seat's hand (one legal move is played at once).
            moves = sum(event.type == "MovePlayed" for event in decision.events)
            wait_until(began + moves * move_floor(table.stand_in_level()))
            return self._append_decision(table, decision, seed)
        return _on_the_latest_version(attempt)

    def resign(self, player: Player, game_id: str, seat: int | None = None,
               idempotency_key: str | None = None) -> Table:
        """The player gives up `seat` (default: their only or first seat not yet resigned):
        the bot plays it from now on, and it ranks last. A retried request with the same key
        finds the resignation made instead of `already_resigned`."""
        key, request_hash, earlier = self._earlier(game_id, player, idempotency_key,
                                                   {"resign": seat})
        return self._once(game_id, key, request_hash, earlier,
                          lambda: self._resign(player, game_id, seat, key, request_hash),
                          lambda envelopes: self._replay(game_id, envelopes))

    def _resign(self, player: Player, game_id: str, seat: int | None, key: str | None,
                request_hash: str) -> Table:
        def attempt() -> Table:
            table = self.load(game_id)
            self._check_shown(table, player)
            mine = table.seats_of(player.id)
            if not mine or (seat is not None and seat not in mine):
                raise NotSeated("you have no seat at this table" if not mine
                                else f"seat {seat} is not yours")
            chosen = seat if seat is not None else next(
                (s for s in mine if s not in table.resigned), mine[0])
            decision = decide_resign(table, chosen, player.id)
            return self._append_decision(table, decision, self._seed(game_id),
                                         by=player.id, idempotency_key=key,
                                         request_hash=request_hash)
        return _on_the_latest_version(attempt)

    def talk_since(self, game_id: str, version: int) -> int | None:
        """The game's version now if nothing but table talk was appended after `version`
        (talk changes neither the state nor whose turn it is, so a move decided at
        `version` still stands), else None."""
        later = self.store.read(game_id, version + 1, None)
        if later and all(envelope["type"] == "MessagePosted" for envelope in later):
            return int(later[-1]["v"])
        return None

    def play_for_seat(self, game_id: str, seat: int, moves: list[Move],
                      expected_version: int) -> Table:
        """The system plays `moves` for a resigned seat (the `ai` queue's bot moves)."""
        table = self.load(game_id)
        if table.version != expected_version:
            raise VersionConflict(current=table.version)
        if seat not in table.resigned:
            raise NotSeated(f"seat {seat} is played by its player, not by the system")
        seed = self._seed(game_id)
        return self._append_decision(table, decide_moves_for(table, seat, moves, seed), seed)

    def tables_on_the_clock(self) -> Iterator[Table]:
        """Every game in play that has a deadline (from the lobby's index of active games)."""
        offset, page_size = 0, 100
        while True:
            page = self.lobby.page(status=Status.ACTIVE.value, offset=offset, limit=page_size,
                                   everything=True)
            for item in page.items:
                try:
                    table = self.load(item["id"])
                except MeepleError:  # e.g. played under rules this server no longer runs
                    continue
                if table.deadline is not None and table.status is Status.ACTIVE:
                    yield table
            offset += page_size
            if offset >= page.total:
                return

    def _append_decision(self, table: Table, decision: Decision, seed: bytes,
                         by: str | None = None, idempotency_key: str | None = None,
                         request_hash: str = "") -> Table:
        result = self.store.append(table.id, table.version, decision.events,
                                   expected_head=table.head or None,
                                   idempotency_key=idempotency_key, request_hash=request_hash)
        if result.replayed:
            return self._replay(table.id, result.envelopes)
        after = after_append(decision.table, table, result.envelopes, seed)
        return self._committed(after, len(result.envelopes), before=table, by=by)

    def _deadline_rule(self, deadline: dict[str, Any] | None) -> dict[str, Any] | None:
        if deadline is None:
            return None
        minimum = self.min_move_seconds
        try:
            return deadline_rule(deadline["hours"], deadline["on_expiry"],
                                 min_move_seconds() if minimum is None else minimum,
                                 deadline.get("bot", GREEDY.id))
        except (KeyError, TypeError, ValueError) as err:
            raise InvalidOptions(f"invalid deadline: {err}") from None

    def import_game(self, game_id: str, envelopes: list[Envelope], seed: bytes,
                    player_id: str | None = None, signed_by: str | None = None,
                    keep: Callable[[], None] | None = None) -> Table:
        """A finished game from a verified record, under its original id, event for event and
        hash for hash. Importing the same record again finds the game it made. `player_id`:
        who imports, counted against MEEPLE_MAX_IMPORTS_PER_DAY (50) imports a day;
        `signed_by`: the record's key id; `keep`: keeps the record as it came. The game is
        marked imported before its events are written, so it is never rated."""
        if player_id is not None:
            self._count_import(player_id)
        if self.store.exists(game_id):
            # The same game if the record is the start of its stream here, event for event:
            # a game played here goes on after its record's SeedRevealed (GameScored).
            stored = [e["hash"] for e in self.store.read(game_id, 1, len(envelopes))]
            if stored == [e["hash"] for e in envelopes]:
                return self.load(game_id)
            raise GameExists(f"game {game_id} already exists here and is another game")
        if self.store.put_seed(game_id, seed) != seed:
            raise GameExists(f"game {game_id} is being created here as another game")
        self.store.put_origin(game_id, {"signed_by": signed_by, "imported_by": player_id,
                                        "imported_at": self.clock().isoformat()})
        if keep is not None:
            keep()
        try:
            self.store.import_sealed(game_id, envelopes)
        except VersionConflict:  # a concurrent import of the same id got there first
            return self.import_game(game_id, envelopes, seed)
        table = self.load(game_id)
        self.lobby.record(summary(table))
        return table

    # --- queries ----------------------------------------------------------

    def load(self, game_id: str) -> Table:
        """The current table: from this process's cache, else the newest snapshot, plus the
        events after it. One round trip when the cache is current."""
        version = self.store.version(game_id)
        if version == 0:
            raise self._not_found(game_id)
        table = self._tables.get(game_id)
        if table is None or table.version > version:
            snapshot = self.store.load_snapshot(game_id)
            fresh = snapshot is not None and snapshot[0] <= version
            table = Table.from_json(snapshot[1]) if fresh else Table.empty(game_id)  # type: ignore[index]
        if table.version < version:
            tail = self.store.read(game_id, table.version + 1, version)
            table = self._fold(table, tail, self._seed(game_id))
            if len(tail) >= SNAPSHOT_EVERY:
                self.store.save_snapshot(game_id, table.version, table.to_json())
        self._tables.put(game_id, table)
        return table

    def table_at(self, game_id: str, version: int) -> Table:
        """The table as it was right after event `version`: from the nearest checkpoint or
        snapshot before it, so at most CHECKPOINT_EVERY events are read and folded once a
        game has its checkpoints (those missing are saved on the way)."""
        current = self.store.version(game_id)
        if current == 0:
            raise self._not_found(game_id)
        if not 1 <= version <= current:
            raise VersionNotFound(f"versions of this game run from 1 to {current}")
        cached = self._tables.get(game_id)
        if cached is not None and cached.version == version:
            return cached
        table = Table.empty(game_id)
        for found in (self.store.checkpoint(game_id, version),
                      self.store.load_snapshot(game_id)):
            if found is not None and table.version < found[0] <= version:
                table = Table.from_json(found[1])
        seed = self.store.get_seed(game_id)
        missing: dict[int, dict[str, Any]] = {}
        for envelope in self.store.read(game_id, table.version + 1, version):
            table = evolve(table, envelope, seed)
            if table.version % CHECKPOINT_EVERY == 0:
                missing[table.version] = table.to_json()
        self.store.save_checkpoints(game_id, missing)
        return table

    def events(self, game_id: str, start: int = 1, end: int | None = None) -> list[Envelope]:
        if not self.store.exists(game_id):
            raise self._not_found(game_id)
        return self.store.read(game_id, start, end)

    def current_versions(self, summaries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Lobby summaries with each game's version now. The lobby is written only when what
        it shows changes (status, seats, who must act), so its own version may be older than
        the game's: a client sends the version it lists back as `expected_version`."""
        versions = self.store.versions([item["id"] for item in summaries])
        return [{**item, "version": max(version, item["version"])}
                for item, version in zip(summaries, versions, strict=True)]

    def rebuild_lobby(self) -> int:
        """Refill the lobby from every game stream, and every archived game; returns the
        number of games."""
        count = 0
        in_redis = self.store.game_ids()
        archived = self.store.archive.game_ids() if self.store.archive is not None else iter(())
        for game_id in itertools.chain(in_redis, archived):
            try:
                self.lobby.record(summary(self.load(game_id)))
            except GameNotFound:
                continue  # a stale file: archived and then removed, or never finished
            count += 1
        return count

    # --- helpers ----------------------------------------------------------

    def _committed(self, table: Table, appended: int, before: Table | None = None,
                   by: str | None = None) -> Table:
        """After a successful append of `appended` events that made `table` from `before`
        (None: a new game), by the player `by` (None: the system)."""
        self._tables.put(table.id, table)
        crossed = table.version // SNAPSHOT_EVERY != (table.version - appended) // SNAPSHOT_EVERY
        if crossed or table.status is Status.ENDED:
            self.store.save_snapshot(table.id, table.version, table.to_json())
        if table.version // CHECKPOINT_EVERY != (table.version - appended) // CHECKPOINT_EVERY:
            self.store.save_checkpoints(table.id, {table.version: table.to_json()})
        # Most moves change nothing the lobby shows (status, seats, who must act): skip the
        # write then. The lobby's version and updated_at are those of its last change.
        if before is None or _lobby_key(before) != _lobby_key(table):
            self.lobby.record(summary(table))
        self.dispatcher.after_commit(table, before, by)
        return table

    def _earlier(self, game_id: str, player: Player, idempotency_key: str | None,
                 request: dict[str, Any]) -> tuple[str | None, str, list[Envelope] | None]:
        """(the store's idempotency key, the request's hash, what an earlier request with
        this key wrote, if one did). Keys are the player's own: two players' keys never meet."""
        key = f"{player.id}:{idempotency_key}" if idempotency_key else None
        request_hash = hashlib.sha256(canonical_json(request)).hexdigest()
        earlier = self.store.earlier_result(game_id, key, request_hash) if key else None
        return key, request_hash, earlier

    def _once(self, game_id: str, key: str | None, request_hash: str,
              earlier: list[Envelope] | None, write: Callable[[], _R],
              replay: Callable[[list[Envelope]], _R]) -> _R:
        """`write`, unless an earlier request with this key already wrote: then its answer.
        A retry racing its own first attempt can be refused (a version conflict, a seat
        taken, a turn passed) because that attempt moved the game on under it; the key then
        says whether it wrote, and the retry gets its answer instead of the refusal."""
        if earlier is None:
            try:
                return write()
            except MeepleError:
                if key is None:
                    raise
                earlier = self.store.earlier_result(game_id, key, request_hash)
                if earlier is None:
                    raise
        return replay(earlier)

    def _replay(self, game_id: str, envelopes: list[Envelope]) -> Table:
        """The table for a retry of a request that was applied: `envelopes` are what it
        wrote. If that commit is still the last one, whatever of its follow-ups is missing
        is queued now (the first attempt may have died between its append and its queueing,
        or answered 503 after the append)."""
        table = self.load(game_id)
        if envelopes and envelopes[-1]["v"] == table.version:
            start = envelopes[0]["v"]
            before = self.table_at(game_id, start - 1) if start > 1 else None
            if before is None or _lobby_key(before) != _lobby_key(table):
                self.lobby.record(summary(table))
            self.dispatcher.reconcile(table, before, envelopes[-1])
        return table

    def _cached_at(self, game_id: str, version: int | None) -> Table | None:
        """This process's cached table when it is at the version the client names. Deciding on
        it skips a round trip: the append script re-checks version and head atomically, so a
        stale cache costs a retry, never a wrong write."""
        table = self._tables.get(game_id)
        if table is None or version is None or table.version != version:
            return None
        return table

    def _check_shown(self, table: Table, player: Player) -> None:
        """A private table is, to a player without a seat at it, no game (404), before any
        error that would tell that it exists or what state it is in."""
        if not table.public and not table.seats_of(player.id):
            raise self.not_shown(table.id)

    def not_shown(self, game_id: str) -> GameNotFound:
        """What a private game is to whoever has no seat at it: exactly no game."""
        return GameNotFound(f"no game {game_id}")

    def _not_found(self, game_id: str) -> MeepleError:
        """No such game; if it was an open table that expired, the error says so. A public
        game the lobby lists as ended, with neither its stream nor its archived document to
        be found, was archived and its document is lost or moved: ArchiveUnavailable, for an
        operator to restore, never "no game" (a private one stays no game to whoever asks)."""
        listed = self.lobby.get(game_id) if self.store.archive is not None else None
        if listed and listed["status"] == Status.ENDED.value and listed["public"]:
            return ArchiveUnavailable(f"the archived document of game {game_id} is missing")
        return GameNotFound(self.store.gone(game_id) or f"no game {game_id}")

    def _seed(self, game_id: str) -> bytes:
        seed = self._seeds.get(game_id) or self.store.get_seed(game_id)
        if seed is None:
            raise GameNotFound(f"no game {game_id}")
        self._seeds.put(game_id, seed)
        return seed

    @staticmethod
    def _fold(table: Table, envelopes: list[Envelope], seed: bytes | None) -> Table:
        for envelope in envelopes:
            table = evolve(table, envelope, seed)
        return table

    @staticmethod
    def _validate_options(game: Game, options: dict[str, Any]) -> dict[str, Any]:
        schema = game.options()
        try:
            wrong = _loosely_typed_options(schema, options)
            if wrong:
                raise ValidationError(wrong)
            loaded: dict[str, Any] = schema.load(options)
        except ValidationError as err:
            raise InvalidOptions(f"invalid options for {game.id}: {err.messages}") from None
        return loaded

    # --- table talk -------------------------------------------------------

    def post_message(
        self, player: Player, game_id: str, text: str, idempotency_key: str | None = None
    ) -> MessageResult:
        """Post a line of table talk as the caller's first seat (seated players only, also
        after the end). A MessagePosted event changes nothing the rules see, but it is an event:
        it advances the version, so a move guarded by the version before it is a conflict."""
        clean = text.strip()
        problem = message_problem(clean)
        if problem:
            raise InvalidMessage(problem)
        key, request_hash, earlier = self._earlier(game_id, player, idempotency_key,
                                                   {"message": clean})
        return self._once(
            game_id, key, request_hash, earlier,
            lambda: self._post(player, game_id, clean, key, request_hash),
            lambda envelopes: MessageResult(self._replay(game_id, envelopes), envelopes[0],
                                            True))

    def _post(self, player: Player, game_id: str, clean: str, key: str | None,
              request_hash: str) -> MessageResult:
        def attempt() -> MessageResult:
            table = self.load(game_id)
            self._check_shown(table, player)
            seats = table.seats_of(player.id)
            if not seats:
                raise NotSeated("only players seated at this table may post messages")
            event = NewEvent("MessagePosted", {"seat": seats[0], "text": clean}, player.id)
            result = self.store.append(game_id, table.version, [event],
                                       idempotency_key=key, request_hash=request_hash)
            if result.replayed:
                return MessageResult(self._replay(game_id, result.envelopes),
                                     result.envelopes[0], True)
            after = self._fold(table, result.envelopes, self._seed(game_id))
            committed = self._committed(after, len(result.envelopes), before=table,
                                        by=player.id)
            self.dispatcher.after_message(committed, result.envelopes[0])
            return MessageResult(committed, result.envelopes[0], False)
        return _on_the_latest_version(attempt)


def _on_the_latest_version(attempt: Callable[[], _R]) -> _R:
    """Optimistic concurrency for a use case that loads a table, decides and appends at the
    version it loaded: when another writer appended first (the store's VersionConflict; the
    append is the one step of an attempt that raises it, and nothing is written before it),
    decide again on the table as it now is, for up to RETRY_SECONDS."""
    give_up_at = time.monotonic() + RETRY_SECONDS
    while True:
        try:
            return attempt()
        except VersionConflict:
            if time.monotonic() >= give_up_at:
                raise
            _pause()


def _pause() -> None:
    """A short random pause before another attempt: writers that met do not meet again."""
    time.sleep(secrets.randbelow(1000) / 1000 * RETRY_PAUSE_SECONDS)


def message_problem(clean: str) -> str | None:
    """Why table talk (already stripped) cannot be posted, or None. Records hold the same
    rule (events.records.verify.fields.is_message): what is posted here always verifies."""
    if not 1 <= len(clean) <= MESSAGE_MAX_LENGTH:
        return (f"a message is 1 to {MESSAGE_MAX_LENGTH} characters once surrounding "
                f"whitespace is stripped; this one is {len(clean)}")
    if any(unicodedata.category(c) == "Cc" and c not in "\t\n\r" for c in clean):
        return "a message holds no control characters but tab and line breaks"
    hidden = next((c for i, c in enumerate(clean) if _hidden_format(clean, i)), None)
    if hidden is not None:
        # As in names: invisible, they make a message look empty or run backwards (U+202E).
        return (f"a message holds no format characters such as U+200B, U+FEFF or U+202E "
                f"(found U+{ord(hidden):04X})")
    return None


def without_hidden_format(text: str) -> str:
    """`text` less the format characters table talk refuses (`message_problem`): what a mail
    client slips into a reply (a zero-width space, a byte-order mark) is not the player's."""
    return "".join(c for i, c in enumerate(text) if not _hidden_format(text, i))


def _hidden_format(text: str, index: int) -> bool:
    """Whether text[index] is a format character (Cf) other than a zero-width joiner inside
    a word or an emoji sequence (👩‍💻 is three characters, the joiner in between)."""
    if unicodedata.category(text[index]) != "Cf":
        return False
    if text[index] != "\u200d" or not 0 < index < len(text) - 1:
        return True
    return not all(_visible(text[index + side]) for side in (-1, 1))


def _visible(char: str) -> bool:
    return not char.isspace() and unicodedata.category(char) not in ("Cc", "Cf")


def _loosely_typed_options(schema: Schema, options: dict[str, Any]) -> dict[str, str]:
    """Options whose JSON type is not the one their field says: marshmallow would take "yes"
    or 1 for a boolean and "5" or 5.0 for an integer, which the spec does not allow."""
    wrong = {}
    for name, value in options.items():
        field = schema.fields.get(name)
        if isinstance(field, fields.Boolean) and type(value) is not bool:
            wrong[name] = "must be true or false"
        elif isinstance(field, fields.Integer) and type(value) is not int:
            wrong[name] = "must be an integer"
    return wrong


def _bot_levels(bots: Sequence[int | dict[str, Any]], seats: int) -> dict[int, Level]:
    """Each bot seat's level, by seat: a bare seat number is a random bot (as before levels
    existed). InvalidOptions for a seat out of range, named twice, or an unknown level."""
    levels: dict[int, Level] = {}
    for entry in bots:
        seat, text = (entry, RANDOM.id) if isinstance(entry, int) else (
            entry.get("seat"), entry.get("level", RANDOM.id))
        if type(seat) is not int or not 0 <= seat < seats:
            raise InvalidOptions(f"bot seats must be between 0 and {seats - 1}")
        try:
            level = Level.parse(text)
        except ValueError as err:
            raise InvalidOptions(str(err)) from None
        if levels.setdefault(seat, level) != level:
            raise InvalidOptions(f"seat {seat} is given two bot levels")
    return dict(sorted(levels.items()))


def _creation(game: Game, game_id: str, seats: int, options: dict[str, Any],
              rule: dict[str, Any] | None,
              joins: list[tuple[Player, int | None, bool, str | None]],
              seed: bytes, public: bool = True) -> list[NewEvent]:
    """GameCreated and the seats taken with it (bots, the creator), decided in order. Every
    game made now deals by seats: its randomness derives from the server's seed and each
    seat's (events.domain.table.Table.rng_key), and draws from streams numbered by the moves
    alone (games.rng.setup_stream, move_stream), which no other event the server writes moves."""
    created = decide_create(game, seats, options, hashlib.sha256(seed).hexdigest(), rule,
                            game_id, dealing="seats", public=public, draws=DRAWS_BY_MOVE)
    table = evolve(Table.empty(game_id), _draft(created, 1), seed)
    events = [created]
    for who, seat, is_bot, seat_seed in joins:
        for event in decide_join(table, who.id, who.name, seat, bot=is_bot, seed=seat_seed,
                                 server_seed=seed):
            events.append(event)
            table = evolve(table, _draft(event, len(events)), seed)
    return events


def _lobby_key(table: Table) -> tuple[object, ...]:
    return table.status, table.seats, tuple(table.actors()), table.resigned


def _draft(event: NewEvent, v: int) -> Envelope:
    """An unsealed envelope, to fold an event into a table before it is stored."""
    return {"v": v, "type": event.type, "data": event.data, "by": event.by, "at": ""}


__all__ = ["Meeple", "MessageResult", "MovesResult", "NoDispatch", "Dispatcher", "Status",
           "summary"]


def wait_until(moment: float) -> None:
    """Sleep until `moment` (time.monotonic), if it is still to come."""
    time.sleep(max(0.0, moment - time.monotonic()))
