"""Whole games without a store: the decider and `evolve` of events.domain.table, envelopes sealed
in memory. For tests, golden records and benchmarks, and to re-enact a record's commands.

The events are exactly those the use cases would append (same deciders, same sealing); only
the clock is a parameter, so a game played twice with the same arguments is the same
stream, byte for byte.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from events.accounts.players import bot_player
from events.domain.envelope import GENESIS, Envelope, NewEvent, now_iso, seal
from events.domain.table import (
    Status,
    Table,
    after_append,
    decide_create,
    decide_join,
    decide_moves,
    decide_moves_for,
    evolve,
)
from games.bots import random_move
from games.registry import get_game
from games.rng import DRAWS_BY_MOVE, Rng

Clock = Callable[[int], str]  # the `at` of the envelope at version v
MOVE_LIMIT = 50_000  # a random game longer than this would never end
NAMES = ("alice", "bob", "carol", "dave", "erin", "frank", "grace")


def fixed_clock(start: datetime = datetime(2030, 1, 1, tzinfo=UTC)) -> Clock:
    """One second per version from `start`: reproducible timestamps for golden records."""

    def at(v: int) -> str:
        moment = start + timedelta(seconds=v)
        return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    return at


def wall_clock(v: int) -> str:
    return now_iso()


def seat_player(seat: int, bots: Iterable[int] = ()) -> tuple[str, str, bool]:
    """(player id, name, is bot) of a seat in an offline game."""
    if seat in set(bots):
        bot = bot_player(seat)
        return bot.id, bot.name, True
    name = NAMES[seat % len(NAMES)]
    return f"p_{name}", name, False


class OfflineLog:
    """A table and its sealed envelopes, growing together."""

    def __init__(self, game_id: str, seed: bytes, clock: Clock = wall_clock) -> None:
        self.table = Table.empty(game_id)
        self.envelopes: list[Envelope] = []
        self.seed = seed
        self.clock = clock

    def append(self, events: Sequence[NewEvent], decided: Table | None = None) -> None:
        """Seal `events` after the last envelope. `decided` is the table decide_moves already
        computed for them (saves re-playing the moves); otherwise they are folded in."""
        prev = self.envelopes[-1]["hash"] if self.envelopes else GENESIS
        sealed: list[Envelope] = []
        for event in events:
            v = len(self.envelopes) + len(sealed) + 1
            sealed.append(seal(v, event.type, event.data, event.by, prev, self.clock(v)))
            prev = sealed[-1]["hash"]
        self.envelopes.extend(sealed)
        if decided is not None:
            self.table = after_append(decided, self.table, sealed, self.seed)
            return
        for envelope in sealed:
            self.table = evolve(self.table, envelope, self.seed)


def play_offline(
    game_type: str,
    players: int,
    seed: bytes,
    rng: Rng,
    *,
    options: dict[str, Any] | None = None,
    bots: Sequence[int] = (),
    moves: int | None = None,
    game_id: str = "offline",
    clock: Clock = wall_clock,
    draws: str = DRAWS_BY_MOVE,
) -> tuple[Table, list[Envelope]]:
    """A game of `players` seats, every seat playing random legal moves drawn from `rng`
    (seats in `bots` are bot players, the others people), to the end or for `moves` moves.
    Made as the server makes a game now, but for `draws=""`: a game of before GameCreated
    said "draws" (its randomness numbered by versions)."""
    game = get_game(game_type)
    log = OfflineLog(game_id, seed, clock)
    chosen = dict(game.options().load(options or {}))
    log.append([decide_create(game, players, chosen, hashlib.sha256(seed).hexdigest(),
                              game_id=game_id, dealing="seats", draws=draws)])
    for seat in range(players):
        player_id, name, bot = seat_player(seat, bots)
        log.append(decide_join(log.table, player_id, name, seat, bot=bot,
                               seed=offline_seat_seed(seed, seat)))
    for _ in range(MOVE_LIMIT if moves is None else moves):
        if log.table.status is Status.ENDED:
            break
        play_random_move(log, rng)
    if moves is None and log.table.status is not Status.ENDED:
        raise RuntimeError(f"{game_type}: no end after {MOVE_LIMIT} random moves")
    return log.table, log.envelopes


def offline_seat_seed(seed: bytes, seat: int) -> str:
    """A seat's contribution in an offline game: reproducible from the game's seed, so a game
    played twice with the same arguments is the same stream."""
    return hashlib.sha256(b"offline-seat/%d/" % seat + seed).hexdigest()[:32]


def play_random_move(log: OfflineLog, rng: Rng) -> None:
    table = log.table
    assert table.state is not None
    game = table.game
    seat = rng.choice(sorted(game.actors(table.state)))
    move = random_move(game, table.state, seat, rng)
    player = table.seat_of(seat)
    assert player is not None
    decision = decide_moves(table, player.player_id, seat, [{"id": move["id"]}], log.seed)
    log.append(decision.events, decision.table)


def extend(
    table: Table, envelopes: list[Envelope], events: Sequence[NewEvent], seed: bytes,
    clock: Clock = wall_clock,
) -> tuple[Table, list[Envelope]]:
    """Append more events (e.g. GameScored, as the scoring worker does) to an offline game."""
    log = OfflineLog(table.id, seed, clock)
    log.table, log.envelopes = table, list(envelopes)
    log.append(events)
    return log.table, log.envelopes


def reenact(record: dict[str, Any]) -> list[Envelope]:
    """The envelopes the server's own deciders make from a complete record's commands
    (create, each join, each move, with the record's seed, authors and times). A record
    whose events all come back hash for hash is exactly what this code would have written.
    Events that are not commands (GameScored, ...) are carried over as they are."""
    events = record["events"]
    header = record["game"]
    seed = bytes.fromhex(record["seed"])
    log = OfflineLog(header["id"], seed, lambda v: str(events[v - 1]["at"]))
    for envelope in events:
        if len(log.envelopes) >= envelope["v"]:
            continue  # already made by the decision of an earlier command
        _reenact_one(log, envelope)
    return log.envelopes


def _reenact_one(log: OfflineLog, envelope: Envelope) -> None:
    kind, data, by = envelope["type"], envelope["data"], envelope["by"]
    if kind == "GameCreated":
        game = get_game(data["type"], data["rules_version"])
        log.append([decide_create(game, data["seats"], data["options"], data["seed_commitment"],
                                  data.get("deadline"), data.get("game_id"),
                                  data.get("dealing", ""), data.get("public", True),
                                  data.get("draws", ""))])
    elif kind == "SeatTaken":
        log.append(decide_join(log.table, data["player_id"], data["name"], data["seat"],
                               bot=data["bot"], seed=data.get("seed")))
    elif kind == "MovePlayed":
        if by == "system":  # a resigned or timed-out seat, played by the bot
            decision = decide_moves_for(log.table, data["seat"], [data["move"]], log.seed)
        else:
            decision = decide_moves(log.table, by, data["seat"], [data["move"]], log.seed)
        log.append(decision.events, decision.table)
    else:
        log.append([NewEvent(kind, data, by)])
