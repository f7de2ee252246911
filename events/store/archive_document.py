"""A finished game as one small compressed document, to keep out of Redis (DESIGN §3).

    pack_game(record, envelopes, origin, batches) -> bytes     (xz'd JSON)
    unpack_game(data) -> ArchivedGame                          (every envelope, as read)

The document holds the game's final signed record (its exact bytes), the events that came
after the end (scores, table talk), an imported game's origin and the commits that wrote
more than one event. It leaves out what can be computed again: each envelope's version,
`prev` and `hash` (two SHA-256s in hex are 128 of the ~200 bytes an event takes once
compressed, and they do not compress). Unpacking computes them again and checks the
record's bytes against their SHA-256, so a damaged archive is refused, never served.
A record that would not come back byte for byte from its events (one imported with its
keys in another order) is kept as its text instead.

Pure: no I/O. Where the documents are kept: events.store.archive_stores.
"""

from __future__ import annotations

import hashlib
import json
import lzma
from dataclasses import dataclass, field
from typing import Any

from events.domain.envelope import GENESIS, Envelope, envelope_hash

FORMAT = "meeple-archive/1"
MAX_UNPACKED_BYTES = 64 * 1024 * 1024  # a record is under 1 MB: a bomb stops here


class DamagedArchive(ValueError):
    """An archived document that does not unpack to what was archived."""


@dataclass(frozen=True)
class ArchivedGame:
    """A finished game as it was in the store when it was archived."""

    game_id: str
    record: bytes
    envelopes: list[Envelope]
    seed: bytes | None
    origin: dict[str, Any] | None = None
    batches: list[tuple[int, int]] = field(default_factory=list)

    @property
    def version(self) -> int:
        return len(self.envelopes)

    @property
    def head(self) -> str:
        return self.envelopes[-1]["hash"] if self.envelopes else GENESIS

    def read(self, start: int = 1, end: int | None = None) -> list[Envelope]:
        last = self.version if end is None else min(end, self.version)
        return [dict(e) for e in self.envelopes[max(start, 1) - 1:max(last, 0)]]

    def batch_start(self, version: int) -> int:
        return next((first for first, last in self.batches if first <= version <= last),
                    version)

    def batch_end(self, first: int) -> int:
        return next((last for start, last in self.batches if start == first), first)


def pack_game(game_id: str, record: bytes, envelopes: list[Envelope],
              origin: dict[str, Any] | None = None,
              batches: list[tuple[int, int]] | None = None) -> bytes:
    """The archive document of a finished game: its kept `record`, every envelope of its
    stream (`envelopes`, versions 1..n, which start with the record's events)."""
    parsed = json.loads(record)
    in_record = len(parsed.get("events") or [])
    if [e["hash"] for e in envelopes[:in_record]] != [e.get("hash")
                                                     for e in parsed["events"]]:
        raise ValueError(f"game {game_id}: the record's events are not the stream's")
    document: dict[str, Any] = {
        "format": FORMAT,
        "game_id": game_id,
        "record_sha256": hashlib.sha256(record).hexdigest(),
        "events": [_compact(e) for e in envelopes],
        "record_events": in_record,
        "origin": origin,
        "batches": [list(run) for run in batches or []],
    }
    shell = {**parsed, "events": None}
    if _record_bytes(shell, envelopes[:in_record]) == record:
        document["record"] = shell  # the events are filled in again from "events"
    else:
        document["record_text"] = record.decode()
    packed = lzma.compress(json.dumps(document, ensure_ascii=False,
                                      separators=(",", ":")).encode(),
                           preset=9 | lzma.PRESET_EXTREME)
    unpacked = unpack_game(packed)  # never keep a document that does not read back
    if unpacked.record != record or unpacked.envelopes != envelopes:
        raise ValueError(f"game {game_id}: the archive would not read back as the game")
    return packed


def unpack_game(data: bytes) -> ArchivedGame:
    """The game in an archive document; DamagedArchive if it is not one, or not intact."""
    document = _document(data)
    try:
        envelopes = _chained(document["events"])
        in_record = int(document["record_events"])
        if "record" in document:
            record = _record_bytes(document["record"], envelopes[:in_record])
        else:
            record = str(document["record_text"]).encode()
        seed_hex = json.loads(record).get("seed")
        game = ArchivedGame(
            game_id=str(document["game_id"]), record=record, envelopes=envelopes,
            seed=bytes.fromhex(seed_hex) if seed_hex else None, origin=document["origin"],
            batches=[(int(first), int(last)) for first, last in document["batches"]])
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise DamagedArchive(f"an archive document with a bad field: {err}") from None
    if hashlib.sha256(game.record).hexdigest() != document.get("record_sha256"):
        raise DamagedArchive(f"game {game.game_id}: the archived record is not the one kept")
    return game


def count_events(data: bytes) -> int:
    """How many events an archive document holds, without checking it (for lists)."""
    return len(_document(data)["events"])


def _document(data: bytes) -> dict[str, Any]:
    try:
        decompressor = lzma.LZMADecompressor()
        text = decompressor.decompress(data, max_length=MAX_UNPACKED_BYTES)
        if not decompressor.eof:
            raise DamagedArchive("the archive is truncated or too large")
        document = json.loads(text)
    except (lzma.LZMAError, ValueError, EOFError) as err:
        if isinstance(err, DamagedArchive):
            raise
        raise DamagedArchive(f"not an archive document: {err}") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise DamagedArchive("not a meeple-archive/1 document")
    if not isinstance(document.get("events"), list):
        raise DamagedArchive("an archive document without its events")
    return document


def _compact(envelope: Envelope) -> list[Any]:
    return [envelope["type"], envelope["at"], envelope["by"], envelope["data"]]


def _chained(compact: list[list[Any]]) -> list[Envelope]:
    """The envelopes again, with their versions, `prev` and `hash` (the keys in the order
    the store reads them: a record's bytes depend on it)."""
    envelopes: list[Envelope] = []
    prev = GENESIS
    for v, (type_, at, by, data) in enumerate(compact, start=1):
        envelope: Envelope = {"v": v, "type": type_, "at": at, "by": by, "data": data,
                              "prev": prev}
        envelope["hash"] = prev = envelope_hash(envelope)
        envelopes.append(envelope)
    return envelopes


def _record_bytes(shell: dict[str, Any], events: list[Envelope]) -> bytes:
    # As events.records.finished.serialise writes a record (kept bytes are its output).
    return json.dumps({**shell, "events": events}, ensure_ascii=False).encode()
