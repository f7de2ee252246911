"""The rng is specified byte for byte (games/rng.py) so any verifier can reproduce a game.

These tests re-derive its output from the written spec alone, independently of the code.
"""

from __future__ import annotations

import hashlib
import hmac

from hypothesis import given
from hypothesis import strategies as st

from games.rng import Rng


def spec_words(seed: bytes, version: int):
    """block_i = HMAC-SHA256(seed, b"meeple/rng/v1/<version>/<i>"), as 8-byte big-endian words."""
    counter = 0
    while True:
        block = hmac.new(seed, f"meeple/rng/v1/{version}/{counter}".encode(), hashlib.sha256)
        digest = block.digest()
        for offset in range(0, 32, 8):
            yield int.from_bytes(digest[offset:offset + 8], "big")
        counter += 1


def spec_randbelow(words, n: int) -> int:
    limit = 2**64 - (2**64 % n)
    while True:
        word = next(words)
        if word < limit:
            return word % n


@given(seed=st.binary(min_size=1, max_size=64), version=st.integers(0, 10**9),
       bounds=st.lists(st.integers(1, 2**64 - 1), min_size=1, max_size=40))
def test_draws_follow_the_written_spec(seed: bytes, version: int, bounds: list[int]) -> None:
    rng, words = Rng(seed, version), spec_words(seed, version)
    assert [rng.randbelow(n) for n in bounds] == [spec_randbelow(words, n) for n in bounds]


@given(seed=st.binary(min_size=1, max_size=64), size=st.integers(0, 80))
def test_shuffle_is_fisher_yates_from_the_last_index(seed: bytes, size: int) -> None:
    items, expected = list(range(size)), list(range(size))
    Rng(seed, 3).shuffle(items)
    words = spec_words(seed, 3)
    for i in range(size - 1, 0, -1):
        j = spec_randbelow(words, i + 1)
        expected[i], expected[j] = expected[j], expected[i]
    assert items == expected


def test_a_fixed_vector_never_changes() -> None:
    # If this fails, every recorded game would replay differently: never change the rng.
    rng = Rng(b"meeple-test-vector", 7)
    assert [rng.randbelow(1000) for _ in range(10)] == [
        790, 929, 697, 593, 973, 814, 206, 179, 578, 805]
