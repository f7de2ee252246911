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
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def envelope_hash(envelope: Envelope) -> str:
    body = {key: value for key, value in envelope.items() if key != "hash"}
    return hashlib.sha256(canonical_json(body)).hexdigest()


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def seal(
    v: int, type_: str, data: dict[str, Any], by: str, prev: str, at: str | None = None
) -> Envelope:
    """A complete envelope for version `v`, chained to `prev`."""
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
        if envelope.get("v") != expected_v:
            problems.append(f"v{expected_v}: version is {envelope.get('v')!r}")
        if envelope.get("prev") != prev:
            problems.append(f"v{expected_v}: prev does not match the hash before it")
        if envelope_hash(envelope) != envelope.get("hash"):
            problems.append(f"v{expected_v}: hash does not match the content")
        prev = envelope.get("hash", "")
    return problems
