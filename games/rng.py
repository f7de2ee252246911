"""Deterministic randomness a verifier in any language can reproduce.

The stream of random bytes for a game at event version `v` is

    block_i = HMAC-SHA256(key=seed, msg=b"meeple/rng/v1/" + str(v) + b"/" + str(i))

for i = 0, 1, 2, ... (decimal ASCII). Integers are drawn 8 bytes at a time,
big-endian, with rejection sampling so every value is equally likely.
Shuffles are Fisher-Yates from the last index down. Python's `random` is
never used, so results do not depend on the Python version.
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

    def __init__(self, seed: bytes, version: int) -> None:
        self._seed = seed
        self._prefix = b"meeple/rng/v1/" + str(version).encode() + b"/"
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
