"""A second verifier of Meeple records, written from docs/records.md alone: hash chain, seed
commitment and signature (its sections 3 to 7). It imports nothing of Meeple's, only the
standard library and `cryptography`, so it holds the document, not our code, to account."""

from __future__ import annotations

import base64
import hashlib
import re
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

GENESIS = "0" * 64
ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f",
           "\r": "\\r"}


def canonical(value: Any) -> bytes:
    """Section 3. A lone surrogate cannot be encoded: UnicodeEncodeError, a ValueError."""
    return _text(value).encode("utf-8")


def _text(value: Any) -> str:
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != value or abs(value) == float("inf"):
            raise ValueError("NaN and Infinity are not JSON")
        return repr(value)  # shortest round trip; 25.0, 1e+16, 1e-05
    if isinstance(value, str):
        escaped = (ESCAPES.get(c) or (f"\\u{ord(c):04x}" if c < " " else c) for c in value)
        return '"' + "".join(escaped) + '"'
    if isinstance(value, list):
        return "[" + ",".join(map(_text, value)) + "]"
    if isinstance(value, dict):  # keys by code point: Python's str order
        return "{" + ",".join(f"{_text(k)}:{_text(value[k])}" for k in sorted(value)) + "}"
    raise ValueError(f"not a JSON value: {type(value).__name__}")


def b64url(text: Any, size: int) -> bytes:
    """Section 6: unpadded base64url of `size` bytes, in its one canonical form only."""
    if not isinstance(text, str) or not re.fullmatch(r"[A-Za-z0-9_-]*", text):
        raise ValueError("not unpadded base64url")
    raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if base64.urlsafe_b64encode(raw).rstrip(b"=").decode() != text or len(raw) != size:
        raise ValueError(f"not the canonical base64url of {size} bytes")
    return raw


def key_id(raw_public_key: bytes) -> str:
    return hashlib.sha256(raw_public_key).hexdigest()[:16]


def verify(record: Any, trusted: Any) -> list[str]:
    """Every problem found in a complete record; empty when chain, seed and signature hold.
    `trusted` is a document in the format of GET /v1/keys (section 7)."""
    try:
        return _chain(record) + _seed(record) + _signature(record, trusted)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
        return [f"cannot verify: {error!r}"]


def _chain(record: dict[str, Any]) -> list[str]:  # section 4
    problems, prev, last, events = [], GENESIS, 0, record["events"]
    if not events or events[0].get("type") != "GameCreated":
        problems.append("events[0] is not GameCreated")
    for i, envelope in enumerate(events):
        v = envelope.get("v")  # 1, 2, 3, ...: each break is reported once, where it is
        if type(v) is not int or v != last + 1:
            problems.append(f"events[{i}].v is {v!r}, not {last + 1}")
        last = v if type(v) is int else last + 1
        if envelope.get("prev") != prev:
            problems.append(f"events[{i}].prev is not the hash before it")
        body = {key: value for key, value in envelope.items() if key != "hash"}
        if hashlib.sha256(canonical(body)).hexdigest() != envelope.get("hash"):
            problems.append(f"events[{i}].hash does not match its content")
        prev = envelope.get("hash")
    return problems


def _seed(record: dict[str, Any]) -> list[str]:  # section 5
    if record.get("complete") is not True:
        return ["not a complete record: it has no seed to check"]
    seed, commitment, events = record["seed"], record["seed_commitment"], record["events"]
    if not isinstance(seed, str) or not re.fullmatch(r"(?:[0-9a-f]{2})+", seed):
        return ["seed is not lowercase hex"]
    problems = []
    if hashlib.sha256(bytes.fromhex(seed)).hexdigest() != commitment:
        problems.append("SHA-256 of the seed is not seed_commitment")
    if events[0]["data"].get("seed_commitment") != commitment:
        problems.append("seed_commitment is not GameCreated's")
    ended = [i for i, e in enumerate(events) if e.get("type") == "GameEnded"][:1]
    after = events[ended[0] + 1] if ended and ended[0] + 1 < len(events) else {}
    if after.get("type") != "SeedRevealed" or after["data"].get("seed") != seed:
        problems.append("no SeedRevealed with this seed right after GameEnded")
    return problems


def _signature(record: dict[str, Any], trusted: Any) -> list[str]:  # sections 6 and 7
    signature = record["signature"]
    if signature.get("alg") != "Ed25519":
        return ["signature.alg is not Ed25519"]
    public = b64url(signature["public_key"], 32)
    problems = [] if key_id(public) == signature["key_id"] else ["key_id is not its key's id"]
    body = {key: value for key, value in record.items() if key != "signature"}
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(b64url(signature["value"], 64),
                                                          canonical(body))
    except (InvalidSignature, ValueError):
        problems.append("signature.value does not match the record")
    keys = {}
    for entry in trusted["keys"]:
        raw = b64url(entry["public_key"], 32)
        if entry.get("alg") != "Ed25519" or key_id(raw) != entry["id"]:
            raise ValueError(f"trusted key {entry.get('id')!r} is not an Ed25519 key of its id")
        keys[entry["id"]] = raw
    if keys.get(signature["key_id"]) != public:
        problems.append(f"key {signature['key_id']} is not a trusted key with this public key")
    return problems
