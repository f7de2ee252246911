"""Finished offline games, signed records and ways to tamper with them, for tests/records."""

from __future__ import annotations

import functools
import json
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from events.application.offline import fixed_clock, play_offline
from events.domain.envelope import GENESIS, Envelope, seal
from events.domain.table import Table
from events.records.keys import key_id_of
from events.records.record import build_record, sign_record
from games.registry import GAMES
from games.rng import Rng

GAME_TYPES = sorted(GAMES)  # every registered game: each gets the whole tamper matrix
SEED = b"tests/records: a seed"


@functools.cache
def server_key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(bytes(range(32)))


@functools.cache
def attacker_key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(bytes(range(32, 64)))


def sign(record: dict[str, Any], key: Ed25519PrivateKey | None = None) -> dict[str, Any]:
    key = key or server_key()
    return sign_record(record, key_id_of(key.public_key()), key)


@functools.cache
def _game(game_type: str, players: int, seed: bytes, moves: int | None
          ) -> tuple[Table, tuple[Envelope, ...]]:
    table, envelopes = play_offline(game_type, players, seed, Rng(b"tests/records bots", players),
                                    moves=moves, game_id=f"g-{game_type}-{players}",
                                    clock=fixed_clock())
    return table, tuple(envelopes)


def game(game_type: str, players: int = 2, seed: bytes = SEED, moves: int | None = None
         ) -> tuple[Table, list[Envelope]]:
    """A game played offline by random seats (cached: treat it as read-only)."""
    table, envelopes = _game(game_type, players, seed, moves)
    return table, list(envelopes)


def finished_record(game_type: str, players: int = 2, seed: bytes = SEED) -> dict[str, Any]:
    """A signed record of a finished game, as a reader gets it (through JSON, so no two
    places share one object): a fresh copy, free to tamper with."""
    return json.loads(_signed_finished(game_type, players, seed))


@functools.cache
def _signed_finished(game_type: str, players: int, seed: bytes) -> str:
    table, envelopes = game(game_type, players, seed)
    return json.dumps(sign(build_record(table, envelopes, seed, [])))


def reseal(events: list[Envelope]) -> list[Envelope]:
    """The same events with versions, prev and hashes made consistent again (a forger's
    fix-up: the chain alone then proves nothing)."""
    sealed: list[Envelope] = []
    prev = GENESIS
    for v, envelope in enumerate(events, start=1):
        sealed.append(seal(v, envelope["type"], envelope["data"], envelope["by"], prev,
                           envelope["at"]))
        prev = sealed[-1]["hash"]
    return sealed


def forge(record: dict[str, Any]) -> dict[str, Any]:
    """`record` after a change, with its chain re-sealed and re-signed with another key."""
    record["events"] = reseal(record["events"])
    return sign(record, attacker_key())


def flip_char(text: str, index: int = -1, to: str | None = None) -> str:
    """`text` with one character replaced by another of the same kind (a hex digit stays a
    hex digit, a digit a digit), or by `to`."""
    old = text[index]
    if to is None:
        pool = "0123456789abcdef" if old in "0123456789abcdef" else "abcdefghijklmnopqrstuvwxyz"
        if old.isupper():
            pool = pool.upper()
        to = next(c for c in pool if c != old)
    position = index % len(text)
    return text[:position] + to + text[position + 1:]


def event_index(record: dict[str, Any], kind: str, nth: int = 0) -> int:
    indexes = [i for i, e in enumerate(record["events"]) if e["type"] == kind]
    return indexes[nth]


def middle_move(record: dict[str, Any]) -> int:
    moves = [i for i, e in enumerate(record["events"]) if e["type"] == "MovePlayed"]
    return moves[len(moves) // 2]


def fact_with_card(record: dict[str, Any]) -> tuple[int, int]:
    """(event index, fact index) of the first public fact naming one card."""
    for i, envelope in enumerate(record["events"]):
        if envelope["type"] != "MovePlayed":
            continue
        for j, fact in enumerate(envelope["data"]["facts"]):
            if isinstance(fact["data"].get("card"), str) and fact["to"] == "all":
                return i, j
    raise AssertionError("no fact names a card")


def other_seed_hex(record: dict[str, Any]) -> str:
    return bytes(b ^ 0x5A for b in bytes.fromhex(record["seed"])).hex()
