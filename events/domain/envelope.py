"""Event envelopes and their hash chain (DESIGN §3).

An envelope is {"v", "type", "at", "by", "data", "prev", "hash"}. `hash` is
the SHA-256 (hex) of the canonical JSON of the envelope without `hash`;
`prev` is the previous envelope's hash (64 zeros for v=1). Canonical JSON is
UTF-8, keys sorted, no whitespace: any language can recompute it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

GENESIS = "0" * 64

Envelope = dict[str, Any]


@dataclass(frozen=True)
class NewEvent:
    """An event a decider wants appended; the store gives it its v, at, prev and hash."""

    type: str
    data: dict[str, Any]
    by: str  # player id, bot name or "system"


def canonical_json(value: Any) -> bytes:
    """The bytes hashes and signatures are computed over (docs/records.md, section 3).
    ValueError for NaN and the infinities, which are not JSON (json.dumps would write them)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode()


def require_string_keys(value: Any) -> None:
    """ValueError if an object in `value` has a key that is not a string. json.dumps turns
    such a key into text (1 into "1") but sorts the keys before that, as numbers: {9: …,
    10: …} hashes otherwise than the {"10": …, "9": …} it is stored and read back as."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, child in item.items():
                if not isinstance(key, str):
                    raise ValueError(f"an event's data holds the key {key!r}, which is not a "
                                     "string: JSON would store it as another value")
                if isinstance(child, dict | list | tuple):
                    stack.append(child)
        elif isinstance(item, list | tuple):
            stack.extend(child for child in item if isinstance(child, dict | list | tuple))


def envelope_hash(envelope: Envelope) -> str:
    body = {key: value for key, value in envelope.items() if key != "hash"}
    return hashlib.sha256(canonical_json(body)).hexdigest()


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def seal(
    v: int, type_: str, data: dict[str, Any], by: str, prev: str, at: str | None = None
) -> Envelope:
    """A complete envelope for version `v`, chained to `prev`. ValueError if `data` is not
    what it will be once stored and read back (a key that is not a string, NaN)."""
    require_string_keys(data)
    envelope: Envelope = {
        "v": v,
        "type": type_,
        "at": at or now_iso(),
        "by": by,
        "data": data,
        "prev": prev,
    }
    envelope["hash"] = envelope_hash(envelope)
    return envelope


def chain_breaks(envelopes: list[Envelope]) -> list[str]:
    """Every place where the chain is not intact, in order; empty when it is."""
    problems: list[str] = []
    prev = GENESIS
    for expected_v, envelope in enumerate(envelopes, start=1):
        version = envelope.get("v")
        if type(version) is not int or version != expected_v:  # JSON true is not 1
            problems.append(f"v{expected_v}: version is {version!r}")
        if envelope.get("prev") != prev:
            problems.append(f"v{expected_v}: prev does not match the hash before it")
        if envelope_hash(envelope) != envelope.get("hash"):
            problems.append(f"v{expected_v}: hash does not match the content")
        prev = envelope.get("hash", "")
    return problems
