"""Check 3, hash chain: versions 1..n without gap or repeat, each `prev` the hash before, each
`hash` the SHA-256 of its envelope's canonical JSON (events.domain.envelope)."""

from __future__ import annotations

from typing import Any

from events.domain.envelope import GENESIS, envelope_hash
from events.records.verify.fields import is_int
from events.records.verify.paths import json_path
from events.records.verify.verification import Verification


def check_chain(v: Verification) -> None:
    prev: Any = GENESIS
    hashed, redacted = 0, 0
    last_v: Any = 0
    for index, envelope in enumerate(v.events):
        if not isinstance(envelope, dict):
            prev, last_v = "", None
            continue
        path = json_path("events", index)
        _check_version(v, index, path, envelope.get("v"), last_v)
        last_v = envelope.get("v")
        withheld = v.record.get("complete") is False and envelope.get("prev") is None
        if envelope.get("prev") != prev and not withheld:
            v.findings.add("chain", f"{path}.prev", "is not the hash of the event before",
                           expected=prev, found=envelope.get("prev"))
        if envelope.get("redacted") is True:
            redacted += 1  # its content was cut for this view: its hash cannot match
        elif withheld and envelope.get("hash") is None:
            pass  # an unfinished game's view: hashes are published at the end
        elif (computed := envelope_hash(envelope)) != envelope.get("hash"):
            v.findings.add("chain", f"{path}.hash", "hash does not match the content: this "
                           "event was changed after it was sealed", expected=computed,
                           found=envelope.get("hash"))
        else:
            hashed += 1
        prev = envelope.get("hash")
    v.checked["hashes_checked"] = hashed
    v.checked["redacted_events"] = redacted


def _check_version(v: Verification, index: int, path: str, version: Any, last_v: Any) -> None:
    # Each break is reported once, where it is: after a dropped event, the next ones still
    # follow each other.
    wanted = last_v + 1 if is_int(last_v) else index + 1
    if not is_int(version) or version != wanted:
        after = f": v{version} follows v{last_v}" if is_int(last_v) and index else ""
        v.findings.add("chain", f"{path}.v", "versions must run 1, 2, 3, … without gap or "
                       f"repeat{after}", expected=wanted, found=version)
