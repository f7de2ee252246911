"""A record's text read as JSON, in bounds and with one value per key (docs/records.md,
sections 1 and 3).

Two readers may not see two records in one text: Python's reader keeps the last of two
members with the same key, another reader may keep the first, so such a text is refused
(as the browser's verifier refuses it). And a record's cost is bounded before it is parsed:
in bytes, and in JSON objects and arrays, which cost memory out of proportion to their bytes
("{}" is 2 bytes, a parsed dict some 60). A long real game is well under both. The server
(`service/api/records.py`) and `meeple verify` / `meeple replay` hold records to the same
bounds.
"""

from __future__ import annotations

import json
from typing import Any

RECORD_MAX_BYTES = 4 * 1024 * 1024
RECORD_MAX_CONTAINERS = 200_000


class DuplicateKey(ValueError):
    """An object names the same key twice."""


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An `object_pairs_hook` for `json.loads`: the object, unless a key comes twice."""
    made = dict(pairs)
    if len(made) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKey(f"the key {key!r} appears twice in one object")
            seen.add(key)
    return made


def too_large(data: bytes, max_bytes: int = RECORD_MAX_BYTES) -> str | None:
    """Why a record of these bytes is not read, or None."""
    if len(data) > max_bytes:
        return f"{len(data):,} bytes, more than a record may hold ({max_bytes:,})"
    containers = data.count(b"{") + data.count(b"[")  # an upper bound: strings count too
    if containers > RECORD_MAX_CONTAINERS:
        return f"more than {RECORD_MAX_CONTAINERS:,} JSON objects and arrays"
    return None


def parse_record(data: bytes, max_bytes: int = RECORD_MAX_BYTES) -> Any:
    """The JSON value of a record's bytes; ValueError saying why it cannot be read."""
    reason = too_large(data, max_bytes)
    if reason:
        raise ValueError(reason)
    try:
        return json.loads(data, object_pairs_hook=unique_keys)
    except RecursionError:
        raise ValueError("JSON nested too deep") from None
