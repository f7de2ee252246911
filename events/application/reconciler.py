"""No stranded game: find games whose last commit lacks a follow-up, and queue it again.

A commit's follow-ups (events.application.dispatch) are queued after the append, by the
process that made it. If that process dies in between, or Redis or a worker dies while a
job waits or runs, the game would wait forever for a bot that never moves, a notice never
sent, a score never kept. Everything a commit calls for can be derived again from the
stream, so each pass of the reconciler looks at the games that may be missing something
and lets the dispatcher queue again what is neither done nor on its way:

- the games the lobby lists as open or active (bounded per pass), and a slice of every game
  id in the store (a SCAN cursor kept between passes), so that a game the lobby never heard
  of (its lobby write lost too) is found within a few passes;
- a game is looked at only once its last commit is `GRACE_SECONDS` old (its own process
  had time to queue everything) and until all of that commit's follow-ups are done for
  good; then its version is remembered (`{prefix}:reconciled`) and it costs one lookup
  per pass until it changes.

The lobby entry is mended on the way. Passes run when a worker with the scheduler starts
and then every `INTERVAL_SECONDS` on RQ's scheduler (workers.reconcile).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from events.application.dispatch import Dispatcher
from events.application.meeple import Meeple
from events.domain.deadlines import parse_time
from events.domain.table import Table
from events.exceptions import MeepleError
from events.readmodels.lobby import summary

GRACE_SECONDS = 10.0
INTERVAL_SECONDS = 5
LOBBY_GAMES_PER_PASS = 500
SCAN_KEYS_PER_PASS = 200


@dataclass
class Pass:
    """What one pass did."""

    looked_at: int = 0
    settled: int = 0
    requeued: int = 0
    lobby_mended: int = 0
    unreadable: list[str] = field(default_factory=list)


class Reconciler:
    def __init__(self, app: Meeple, dispatcher: Dispatcher, prefix: str = "meeple") -> None:
        self.app = app
        self.dispatcher = dispatcher
        self._redis = app.redis
        self._marks = f"{prefix}:reconciled"
        self._cursor = f"{prefix}:reconcile:cursor"

    def run_once(self, now: datetime | None = None) -> Pass:
        moment = now or datetime.now(UTC)
        done = Pass()
        for game_id in self._unsettled(self._candidates()):
            try:
                self._reconcile_game(game_id, moment, done)
            except MeepleError as err:  # e.g. a rules version this server no longer runs
                done.unreadable.append(f"{game_id}: {err.detail}")
        return done

    def _candidates(self) -> list[str]:
        ids: dict[str, None] = {}
        for status in ("active", "open", "ended"):
            ids.update((game_id, None) for game_id in
                       self.app.lobby.game_ids(status, LOBBY_GAMES_PER_PASS))
        ids.update((game_id, None) for game_id in self._scan_slice())
        return list(ids)

    def _unsettled(self, game_ids: list[str]) -> list[str]:
        """The games whose version is past the one last settled: two round trips in all."""
        if not game_ids:
            return []
        # A game not in Redis (archived, or gone) has nothing left to reconcile: its version
        # is not looked up in the archive.
        versions = self.app.store.versions(game_ids, archived=False)
        marks = self._redis.hmget(self._marks, game_ids)
        return [game_id for game_id, version, mark in zip(game_ids, versions, marks,
                                                          strict=True)
                if version > 0 and (mark is None or int(mark) < version)]

    def _scan_slice(self) -> list[str]:
        cursor = int(self._redis.get(self._cursor) or 0)
        cursor, found = self.app.store.scan_game_ids(cursor, SCAN_KEYS_PER_PASS)
        self._redis.set(self._cursor, cursor)
        return found

    def _reconcile_game(self, game_id: str, now: datetime, done: Pass) -> None:
        table = self.app.load(game_id)
        if (now - parse_time(table.updated_at)).total_seconds() < GRACE_SECONDS:
            return  # its own process may still be queueing what it calls for
        done.looked_at += 1
        if self._mend_lobby(table):
            done.lobby_mended += 1
        head = self.app.events(game_id, table.version, table.version)[0]
        # The commit is the whole batch that ended with the head: the table before it is the
        # one its follow-ups were derived from (a new game's first batch had none).
        start = self.app.store.batch_start(game_id, table.version)
        before = self.app.table_at(game_id, start - 1) if start > 1 else None
        settled = self.dispatcher.reconcile(table, before, head)
        done.requeued += settled.requeued
        if settled.done:
            self._redis.hset(self._marks, game_id, table.version)
            done.settled += 1

    def _mend_lobby(self, table: Table) -> bool:
        shown = self.app.lobby.get(table.id)
        wanted = summary(table)
        if shown is not None and _lobby_view(shown) == _lobby_view(wanted):
            return False
        return self.app.lobby.record(wanted)


def _lobby_view(entry: dict[str, object]) -> dict[str, object]:
    """What the lobby must get right; `version` and `updated_at` are those of its last change."""
    return {key: value for key, value in entry.items() if key not in ("version", "updated_at")}
