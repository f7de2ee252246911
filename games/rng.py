"""Deterministic randomness a verifier in any language can reproduce.

Random stream number `n` of a game is

    block_i = HMAC-SHA256(key=seed, msg=b"meeple/rng/v1/" + str(n) + b"/" + str(i))

for i = 0, 1, 2, ... (decimal ASCII). Integers are drawn 8 bytes at a time,
big-endian, with rejection sampling so every value is equally likely.
Shuffles are Fisher-Yates from the last index down. Python's `random` is
never used, so results do not depend on the Python version.

Which stream the setup and each move draw from is `setup_stream` and `move_stream`:
in games whose GameCreated says `"draws": "moves"` (every game made since), the setup
draws from stream 0 and the n-th move (MovePlayed) from stream n, whatever else is in
the log; older games used the version of GameStarted, and of the move.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import struct
from collections.abc import MutableSequence, Sequence
from typing import TypeVar

T = TypeVar("T")

_WORD = 8  # bytes per draw
_SPAN = 1 << (8 * _WORD)
_BLOCK_WORDS = struct.Struct(">4Q")  # one HMAC-SHA256 block = four big-endian words


class Rng:
    """HMAC-SHA256 in counter mode, keyed by the game's secret seed."""

    def __init__(self, seed: bytes, stream: int) -> None:
        self._seed = seed
        self._prefix = b"meeple/rng/v1/" + str(stream).encode() + b"/"
        self._counter = 0
        self._words: list[int] = []  # the unused 8-byte words of the last block, next last

    def _next_word(self) -> int:
        if not self._words:
            msg = self._prefix + str(self._counter).encode()
            block = hmac.digest(self._seed, msg, hashlib.sha256)
            self._counter += 1
            self._words = list(reversed(_BLOCK_WORDS.unpack(block)))
        return self._words.pop()

    def randbelow(self, n: int) -> int:
        """A uniform integer in [0, n)."""
        if n <= 0:
            raise ValueError("randbelow needs n > 0")
        limit = _SPAN - (_SPAN % n)  # reject the biased tail
        while True:
            word = self._next_word()
            if word < limit:
                return word % n

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher-Yates in place: for i from len-1 down to 1, swap i with randbelow(i+1)."""
        for i in range(len(items) - 1, 0, -1):
            j = self.randbelow(i + 1)
            items[i], items[j] = items[j], items[i]

    def choice(self, items: Sequence[T]) -> T:
        return items[self.randbelow(len(items))]


# GameCreated's "draws" in every game made since the server could no longer pad the log: the
# setup and the moves draw from streams numbered by the moves alone. Without it (older games)
# they draw from the stream of their event's version.
DRAWS_BY_MOVE = "moves"


def setup_stream(draws: str, version: int) -> int:
    """The stream the game's setup draws from, at GameStarted of version `version`: 0 in a
    game whose GameCreated says `"draws": "moves"`, else that version.

    Numbered by versions, every event before the start (table talk by a seat already taken,
    say) moved the deal: a server that had read the last seat's own seed could add events
    until the deal suited it, and the log would still be a valid one. Stream 0 is the
    deal's whatever the log holds."""
    return 0 if draws == DRAWS_BY_MOVE else version


def move_stream(draws: str, version: int, moves_before: int) -> int:
    """The stream a move draws from, played as event `version` after `moves_before` other
    moves (MovePlayed) of its game: its number among the moves (`moves_before + 1`) in a
    game whose GameCreated says `"draws": "moves"`, else its version. Nothing but a move
    moves the stream: not table talk, not a resignation, not a timeout."""
    return moves_before + 1 if draws == DRAWS_BY_MOVE else version


SEATS_DEALING = b"meeple/seats/v1"
# A seat's contribution (games that deal by seats): what a client may send when it joins,
# and the form of what the server makes when it sends none.
SEAT_SEED = r"^[A-Za-z0-9_-]{1,64}$"


SERVER_MADE_SEAT_SEED = b"meeple/seat-seed/v1/"


def server_made_seat_seed(server_seed: bytes, seat: int) -> str:
    """The seed of a seat that brings none (a bot's, a player's who sends none):

        base64url(HMAC-SHA256(key=server_seed, b"meeple/seat-seed/v1/" + decimal seat)),
        unpadded (43 characters)

    It follows from the server's seed, to which GameCreated committed before anybody joined,
    so the server cannot choose it after seeing the seeds the other seats brought. Once the
    seed is revealed anyone can tell such a seat's seed apart (`meeple verify` lists them): a
    player who sent none can check that hers is this one."""
    digest = hmac.new(server_seed, SERVER_MADE_SEAT_SEED + str(seat).encode(),
                      hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def seats_key(server_seed: bytes, contributions: Sequence[str]) -> bytes:
    """The key of a game whose seats each contributed a seed (GameCreated `"dealing":
    "seats"`), in place of the server's seed alone:

        key = SHA-256(b"meeple/seats/v1" + server_seed + SHA-256(c_0) + ... + SHA-256(c_n-1))

    with each contribution c_i (UTF-8) in seat order. Nobody chooses the deal: the server
    committed to its seed (GameCreated) before any seat sent its own, and no seat knows the
    server's seed until the end, so neither side can try seeds until one favours it."""
    parts = [SEATS_DEALING, server_seed]
    parts += [hashlib.sha256(c.encode()).digest() for c in contributions]
    return hashlib.sha256(b"".join(parts)).digest()
