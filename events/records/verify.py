"""Verify a game record (events.records.record) offline: no server, no Redis, only the rules code.

`verify_record(record)` runs every check it can and reports every problem it finds:

1. format and shape: a JSON object in the meeple-record/1 layout, every field of its type;
2. signature: Ed25519 by the embedded public key over the canonical record without
   "signature"; the key id is that key's id; with `trusted_keys`, the key is trusted;
3. hash chain: versions 1..n without gap or repeat, each `prev` the hash before, each
   `hash` the SHA-256 of its envelope's canonical JSON (events.domain.envelope);
4. header: what "game" and "seed_commitment" say equals what GameCreated and SeatTaken say;
   the game type and its rules_version are the ones this code has;
5. seed: SHA-256(seed) is the commitment, and SeedRevealed, right after GameEnded, carries it;
6. re-execution: setup with the seed at GameStarted (which must come exactly when the last
   seat is taken), then every move with the rng of its version: its seat must be an actor,
   its id a legal move, its facts exactly the ones the rules produce; GameEnded exactly when
   the game is over, with the rules' score sheet, which the record's "scores" repeat;
7. deadlines (events.domain.deadlines), for a table with one: each TurnTimedOut names a seat on the
   clock started at that version and comes at or after its deadline; then, at a "resign"
   table, that seat's PlayerResigned at once; a MovePlayed by "system" only for a resigned
   seat or one timed out at a "bot" table, until it stops acting (which moves the bot chose
   is not re-derived: any legal move re-executes); resigned seats rank last.

A record that is not complete (an unfinished game, one seat's redacted view) holds neither
the seed nor the other seats' facts, so it cannot be re-executed. Its report says so: `ok`
is False and `status` is "partial" when nothing else is wrong (a problem with check
"complete" says what could and could not be checked), "invalid" when something is.

Problems are ordered by their place in the record (header, events in order, seed, scores,
signature); `path` is a JSON path into the record, e.g. `events[41].data.facts[0].data.card`,
and `version` the version of the event at that place (its index + 1). Nothing raises: any
JSON value gets a report.

`checked` says what was checked: events, hashes_checked, redacted_events, signature
{key_id, valid, trusted (None when no trusted keys were given)}, rules, seed_commitment,
moves_reexecuted, facts_compared, reexecuted_to_the_end, and not_rederived: events carried
in the record that the rules cannot re-derive (GameScored: ratings depend on other games).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from events.domain.deadlines import (
    TurnClock,
    due,
    is_rule,
    next_clocks,
    parse_time,
    rank_resigned_last,
)
from events.domain.envelope import GENESIS, canonical_json, envelope_hash
from events.records.keys import ALG, b64url_decode, key_id_of, public_key_from_b64, raw_public_key
from games.contract import Game, State
from games.registry import GAMES
from games.rng import Rng

FORMAT = "meeple-record/1"  # the same as events.records.record.FORMAT (kept apart: no Table import)
TrustedKeys = Callable[[str], Ed25519PublicKey | None]

# Top-level fields in record order: problems are sorted by it.
RECORD_FIELDS = ("format", "game", "seed_commitment", "complete", "redacted_for", "note",
                 "events", "seed", "scores", "signature")
ENVELOPE_FIELDS = ("v", "type", "at", "by", "data", "prev", "hash")
SYSTEM_EVENTS = ("GameCreated", "GameStarted", "GameEnded", "SeedRevealed", "GameScored",
                 "TurnTimedOut")
# Carried in a record but not derived from the rules: the verifier can only count them.
NOT_REDERIVED = {
    "GameScored": "ratings depend on other games; carried, not re-derived",
    "MessagePosted": "table talk; carried, not re-derived",
}
_HEX64 = re.compile(r"[0-9a-f]{64}")
_HEX = re.compile(r"(?:[0-9a-f]{2})+")
_ISO_UTC = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,6})?Z")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_AFTER_EVERY_EVENT = 1 << 62  # "events" itself: what is missing after the last one


@dataclass(frozen=True)
class Problem:
    check: str  # format, signature, chain, header, rules, seed, replay, scores, complete, internal
    version: int | None
    path: str  # JSON path into the record ("" is the record itself)
    expected: Any
    found: Any
    detail: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def describe(self) -> str:
        where = self.path or "(the record)"
        text = f"{where}: {self.detail}"
        shown = [f"{word} {_brief(value)}" for word, value in
                 (("expected", self.expected), ("found", self.found)) if value is not None]
        return text + (f" ({', '.join(shown)})" if shown else "")


@dataclass
class Report:
    ok: bool
    status: str  # "valid", "partial" (an incomplete record, nothing else wrong) or "invalid"
    problems: list[Problem] = field(default_factory=list)
    checked: dict[str, Any] = field(default_factory=dict)

    @property
    def first(self) -> Problem | None:
        """The first problem in record order."""
        return self.problems[0] if self.problems else None

    def to_json(self) -> dict[str, Any]:
        first = self.first
        return {
            "ok": self.ok,
            "status": self.status,
            "first": first.to_json() if first else None,
            "problems": [problem.to_json() for problem in self.problems],
            "checked": self.checked,
        }


def verify_record(record: Any, trusted_keys: TrustedKeys | None = None) -> Report:
    """Every check above; never raises."""
    verifier = _Verifier(record, trusted_keys)
    try:
        verifier.run()
    except Exception as error:  # noqa: BLE001 - a report, whatever the input did to us
        verifier.add("internal", "", f"the verifier could not finish: {error!r}")
    return verifier.report()


def unreadable(detail: str) -> Report:
    """The report for a document that is not even JSON."""
    problem = Problem("format", None, "", None, None, f"not a JSON document: {detail}")
    return Report(False, "invalid", [problem], {"events": 0})


# --- JSON paths and differences -------------------------------------------------------------


def json_path(base: str, *keys: str | int) -> str:
    """`base` followed by `.key` or `[index]` for each key, e.g. events[3].data.facts[0]."""
    path = base
    for key in keys:
        if isinstance(key, int):
            path += f"[{key}]"
        elif _NAME.fullmatch(key):
            path += f".{key}" if path else key
        else:
            path += "[" + canonical_json(key).decode() + "]"
    return path


@dataclass(frozen=True)
class Difference:
    path: str
    expected: Any
    found: Any
    detail: str


def first_difference(expected: Any, found: Any, path: str) -> Difference | None:
    """The first place where two JSON values differ, depth first, keys in sorted order; None
    if they are equal as JSON (1 and true and 1.0 are three different values here)."""
    if type(expected) is not type(found):
        return Difference(path, expected, found, "differs")
    if isinstance(expected, dict):
        for key in sorted(set(expected) | set(found)):
            here = json_path(path, key)
            if key not in found:
                return Difference(here, expected[key], None, "is missing")
            if key not in expected:
                return Difference(here, None, found[key], "should not be there")
            difference = first_difference(expected[key], found[key], here)
            if difference:
                return difference
        return None
    if isinstance(expected, list):
        for index, (mine, theirs) in enumerate(zip(expected, found, strict=False)):
            difference = first_difference(mine, theirs, json_path(path, index))
            if difference:
                return difference
        if len(expected) != len(found):
            index = min(len(expected), len(found))
            extra = "is missing" if len(found) < len(expected) else "should not be there"
            mine = expected[index] if index < len(expected) else None
            theirs = found[index] if index < len(found) else None
            return Difference(json_path(path, index), mine, theirs, extra)
        return None
    return None if expected == found else Difference(path, expected, found, "differs")


def _brief(value: Any, limit: int = 200) -> str:
    text = canonical_json(value).decode()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _hex64_or_null(value: Any) -> bool:
    return value is None or (isinstance(value, str) and bool(_HEX64.fullmatch(value)))


def _is_int(value: Any) -> bool:
    return type(value) is int  # JSON true is not a number


def _is_iso_utc(value: Any) -> bool:
    if not isinstance(value, str) or not _ISO_UTC.fullmatch(value):
        return False
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def _sort_key(path: str) -> tuple[int, int]:
    """(top-level field rank, event index) of a path: the record order of problems."""
    top = re.match(r"[A-Za-z_]+", path)
    name = top.group(0) if top else ""
    rank = RECORD_FIELDS.index(name) if name in RECORD_FIELDS else -1
    event = re.match(r"events\[(\d+)\]", path)
    if event:
        return rank, int(event.group(1))
    return rank, _AFTER_EVERY_EVENT if name == "events" else -1


# --- the checks ------------------------------------------------------------------------------


class _Verifier:
    def __init__(self, record: Any, trusted_keys: TrustedKeys | None) -> None:
        self.record = record
        self.trusted_keys = trusted_keys
        self.problems: list[tuple[tuple[int, int], int, Problem]] = []
        self.checked: dict[str, Any] = {"events": 0}
        self.events: list[Any] = []
        self.usable: list[bool] = []  # per event: its envelope has the right shape

    # -- reporting ---------------------------------------------------------------------------

    def add(self, check: str, path: str, detail: str, *, version: int | None = None,
            expected: Any = None, found: Any = None) -> None:
        if version is None:
            event = re.match(r"events\[(\d+)\]", path)
            version = int(event.group(1)) + 1 if event else None
        problem = Problem(check, version, path, expected, found, detail)
        self.problems.append((_sort_key(path), len(self.problems), problem))

    def add_difference(self, check: str, difference: Difference, what: str) -> None:
        detail = what if difference.detail == "differs" else f"{what}: {difference.detail}"
        self.add(check, difference.path, detail, expected=difference.expected,
                 found=difference.found)

    def report(self) -> Report:
        problems = [problem for _, _, problem in sorted(self.problems, key=lambda p: p[:2])]
        if not problems:
            status = "valid"
        elif all(problem.check == "complete" for problem in problems):
            status = "partial"
        else:
            status = "invalid"
        return Report(status == "valid", status, problems, self.checked)

    # -- the run -----------------------------------------------------------------------------

    def run(self) -> None:
        if not self.check_shape():
            return
        self.check_signature()
        self.check_chain()
        game, created = self.check_header()
        if self.record["complete"] is True:
            if self.record["redacted_for"] is not None:
                self.add("format", "redacted_for", "a complete record is nobody's redacted "
                         "view", expected=None, found=self.record["redacted_for"])
            seed = self.check_seed(created)
            if game is not None and seed is not None and created is not None:
                _Replay(self, game, created, seed).run()
            self.check_scores()
        else:
            self.check_partial()

    # -- 1. format and shape -----------------------------------------------------------------

    def check_shape(self) -> bool:
        """False when the record cannot be read any further."""
        record = self.record
        if not isinstance(record, dict):
            self.add("format", "", "not a game record: expected a JSON object, found "
                     f"{_json_kind(record)}")
            return False
        if record.get("format") != FORMAT:
            self.add("format", "format", f"not a {FORMAT} record", expected=FORMAT,
                     found=record.get("format"))
            return False
        fields = {
            "game": isinstance(record.get("game"), dict),
            "seed_commitment": isinstance(record.get("seed_commitment"), str),
            "complete": isinstance(record.get("complete"), bool),
            "redacted_for": record.get("redacted_for") is None or _seat_list(
                record.get("redacted_for")),
            "events": isinstance(record.get("events"), list),
            "seed": record.get("seed") is None or isinstance(record.get("seed"), str),
            "scores": record.get("scores") is None or isinstance(record.get("scores"), dict),
            "signature": isinstance(record.get("signature"), dict),
        }
        for name, fine in fields.items():
            if name not in record:
                self.add("format", name, "is missing" + (
                    ": the record is not signed" if name == "signature" else ""))
                fields[name] = False
            elif not fine:
                self.add("format", name, f"has the wrong type ({_json_kind(record[name])})")
        if "note" in record and not isinstance(record["note"], str):
            self.add("format", "note", "must be a string")
        for name in sorted(set(record) - set(RECORD_FIELDS)):
            self.add("format", json_path("", name), "is not a field of a record")
        if not all(fields.values()):
            return False
        self.check_header_shape(record["game"])
        self.events = record["events"]
        self.checked["events"] = len(self.events)
        self.usable = [self.check_envelope_shape(i, e) for i, e in enumerate(self.events)]
        return True

    def check_header_shape(self, header: dict[str, Any]) -> None:
        kinds: dict[str, Callable[[Any], bool]] = {
            "id": lambda v: isinstance(v, str), "type": lambda v: isinstance(v, str),
            "rules_version": lambda v: isinstance(v, str),
            "options": lambda v: isinstance(v, dict), "seat_count": _is_int,
            "seats": lambda v: isinstance(v, list), "created_at": _is_iso_utc,
            "status": lambda v: v in ("open", "active", "ended"),
        }
        self._check_fields(header, "game", kinds, {"deadline": is_rule})

    def check_envelope_shape(self, index: int, envelope: Any) -> bool:
        path = json_path("events", index)
        if not isinstance(envelope, dict):
            self.add("format", path, f"an event is a JSON object, not {_json_kind(envelope)}")
            return False
        kinds: dict[str, Callable[[Any], bool]] = {
            "v": _is_int, "type": lambda v: isinstance(v, str), "at": _is_iso_utc,
            "by": lambda v: isinstance(v, str), "data": lambda v: isinstance(v, dict),
            "prev": lambda v: isinstance(v, str) and bool(_HEX64.fullmatch(v)),
            "hash": lambda v: isinstance(v, str) and bool(_HEX64.fullmatch(v)),
        }
        optional: dict[str, Callable[[Any], bool]] = {}
        if self.record["complete"] is False:
            optional["redacted"] = lambda v: v is True  # only views of unfinished games
            # Before the end hashes are withheld (null): each would let guesses be tested.
            kinds["prev"] = kinds["hash"] = _hex64_or_null
        return self._check_fields(envelope, path, kinds, optional)

    def _check_fields(self, value: dict[str, Any], path: str,
                      kinds: dict[str, Callable[[Any], bool]],
                      optional: dict[str, Callable[[Any], bool]] | None = None) -> bool:
        fine = True
        for name, is_right in kinds.items():
            if name not in value:
                self.add("format", json_path(path, name), "is missing")
                fine = False
            elif not is_right(value[name]):
                self.add("format", json_path(path, name), "has the wrong type or form",
                         found=value[name])
                fine = False
        for name in sorted(set(value) - set(kinds)):
            if optional and name in optional and optional[name](value[name]):
                continue
            self.add("format", json_path(path, name), "is not a field here")
            fine = False
        return fine

    # -- 2. signature ------------------------------------------------------------------------

    def check_signature(self) -> None:
        signature = self.record["signature"]
        self.checked["signature"] = {"key_id": signature.get("key_id"), "valid": False,
                                     "trusted": None}
        kinds: dict[str, Callable[[Any], bool]] = {
            "alg": lambda v: v == ALG, "key_id": lambda v: isinstance(v, str),
            "public_key": lambda v: isinstance(v, str), "value": lambda v: isinstance(v, str),
        }
        if not self._check_fields(signature, "signature", kinds):
            return
        try:
            public = public_key_from_b64(signature["public_key"])
        except ValueError as error:
            self.add("signature", "signature.public_key", f"not an {ALG} public key: {error}")
            return
        if key_id_of(public) != signature["key_id"]:
            self.add("signature", "signature.key_id", "is not the id of the embedded public key",
                     expected=key_id_of(public), found=signature["key_id"])
        self.check_signature_value(public, signature["value"])
        if self.trusted_keys is not None:
            self.check_trusted(public, signature["key_id"])

    def check_signature_value(self, public: Ed25519PublicKey, value: str) -> None:
        try:
            raw = b64url_decode(value)
        except ValueError as error:
            self.add("signature", "signature.value", f"not a signature: {error}")
            return
        body = {key: item for key, item in self.record.items() if key != "signature"}
        try:
            public.verify(raw, canonical_json(body))
        except InvalidSignature:
            self.add("signature", "signature.value", "does not match the record: the record "
                     "was changed after it was signed, or signed with another key")
            return
        self.checked["signature"]["valid"] = True

    def check_trusted(self, public: Ed25519PublicKey, key_id: str) -> None:
        assert self.trusted_keys is not None
        trusted = self.trusted_keys(key_id)
        self.checked["signature"]["trusted"] = False
        if trusted is None:
            self.add("signature", "signature.key_id", f"key {key_id} is not one of the "
                     "trusted keys (the server's published keys)", found=key_id)
        elif raw_public_key(trusted) != raw_public_key(public):
            self.add("signature", "signature.public_key", f"is not the trusted key {key_id}")
        else:
            self.checked["signature"]["trusted"] = True

    # -- 3. hash chain -----------------------------------------------------------------------

    def check_chain(self) -> None:
        prev: Any = GENESIS
        hashed, redacted = 0, 0
        last_v: Any = 0
        for index, envelope in enumerate(self.events):
            if not isinstance(envelope, dict):
                prev, last_v = "", None
                continue
            path = json_path("events", index)
            v = envelope.get("v")
            # Each break is reported once, where it is: after a dropped event, the next ones
            # still follow each other.
            wanted = last_v + 1 if _is_int(last_v) else index + 1
            if not _is_int(v) or v != wanted:
                after = f": v{v} follows v{last_v}" if _is_int(last_v) and index else ""
                self.add("chain", f"{path}.v", "versions must run 1, 2, 3, … without gap or "
                         f"repeat{after}", expected=wanted, found=v)
            last_v = v
            withheld = self.record.get("complete") is False and envelope.get("prev") is None
            if envelope.get("prev") != prev and not withheld:
                self.add("chain", f"{path}.prev", "is not the hash of the event before",
                         expected=prev, found=envelope.get("prev"))
            if envelope.get("redacted") is True:
                redacted += 1  # its content was cut for this view: its hash cannot match
            elif withheld and envelope.get("hash") is None:
                pass  # an unfinished game's view: hashes are published at the end
            elif (computed := envelope_hash(envelope)) != envelope.get("hash"):
                self.add("chain", f"{path}.hash", "hash does not match the content: this "
                         "event was changed after it was sealed", expected=computed,
                         found=envelope.get("hash"))
            else:
                hashed += 1
            prev = envelope.get("hash")
        self.checked["hashes_checked"] = hashed
        self.checked["redacted_events"] = redacted

    # -- 4. header ---------------------------------------------------------------------------

    def check_header(self) -> tuple[Game | None, dict[str, Any] | None]:
        """The registered game and GameCreated's data, when re-execution can use them."""
        created = self.created_data()
        if created is None:
            return None, None
        header = self.record["game"]
        pairs = (("type", "type"), ("rules_version", "rules_version"), ("options", "options"),
                 ("seat_count", "seats"))
        for mine, theirs in pairs:
            self.compare_header(json_path("game", mine), created.get(theirs),
                                header.get(mine), f"events[0].data.{theirs}")
        self.compare_header(json_path("game", "deadline"), created.get("deadline"),
                            header.get("deadline"), "events[0].data.deadline")
        self.compare_header("seed_commitment", created.get("seed_commitment"),
                            self.record["seed_commitment"], "events[0].data.seed_commitment")
        self.compare_header("game.created_at", self.events[0].get("at"),
                            header.get("created_at"), "events[0].at")
        self.compare_header("game.seats", self.seats_taken(), header.get("seats"),
                            "the SeatTaken events")
        ended = self.first_index("GameEnded") is not None
        status = "ended" if ended else "active" if self.first_index("GameStarted") is not None \
            else "open"
        self.compare_header("game.status", status, header.get("status"), "the events")
        self.compare_header("complete", ended, self.record["complete"], "GameEnded's presence")
        return self.registered_game(created), created

    def created_data(self) -> dict[str, Any] | None:
        first = self.events[0] if self.events else None
        if not isinstance(first, dict) or first.get("type") != "GameCreated":
            self.add("header", "events[0].type" if self.events else "events",
                     "the first event must be GameCreated", expected="GameCreated",
                     found=first.get("type") if isinstance(first, dict) else None)
            return None
        data = first.get("data")
        if not isinstance(data, dict):
            return None
        kinds: dict[str, Callable[[Any], bool]] = {
            "type": lambda v: isinstance(v, str), "rules_version": lambda v: isinstance(v, str),
            "options": lambda v: isinstance(v, dict), "seats": _is_int,
            "seed_commitment": lambda v: isinstance(v, str) and bool(_HEX64.fullmatch(v)),
        }
        # A table with a time per move says so; the others carry no "deadline" at all.
        optional: dict[str, Callable[[Any], bool]] = {"deadline": is_rule}
        return data if self._check_fields(data, "events[0].data", kinds, optional) else None

    def compare_header(self, path: str, expected: Any, found: Any, source: str) -> None:
        difference = first_difference(expected, found, path)
        if difference:
            self.add_difference("header", difference, f"the header disagrees with {source}")

    def seats_taken(self) -> list[dict[str, Any]]:
        names = ("seat", "player_id", "name", "bot")
        seats = [
            {name: e["data"].get(name) for name in names}
            for e in self.events
            if isinstance(e, dict) and e.get("type") == "SeatTaken" and isinstance(e.get("data"),
                                                                                    dict)
        ]
        return sorted(seats, key=lambda s: s["seat"] if _is_int(s["seat"]) else -1)

    def first_index(self, kind: str) -> int | None:
        return next((i for i, e in enumerate(self.events)
                     if isinstance(e, dict) and e.get("type") == kind), None)

    def registered_game(self, created: dict[str, Any]) -> Game | None:
        game = GAMES.get(created["type"])
        self.checked["rules"] = f"{created['type']} rules_version {created['rules_version']}"
        if game is None:
            self.add("rules", "game.type", f"unknown game type {created['type']!r}: this code "
                     f"has {sorted(GAMES)}; cannot re-execute", found=created["type"])
            return None
        if game.rules_version != created["rules_version"]:
            self.add("rules", "game.rules_version", f"cannot re-execute: rules_version "
                     f"{created['rules_version']}, this code has {game.rules_version}",
                     expected=game.rules_version, found=created["rules_version"])
            return None
        return game

    # -- 5. seed -----------------------------------------------------------------------------

    def check_seed(self, created: dict[str, Any] | None) -> bytes | None:
        """The seed to re-execute with: one that matches the commitment (the record's, else
        SeedRevealed's). None when none does: re-executing with a seed already shown to be
        wrong would only add noise before the real problem."""
        commitment = created["seed_commitment"] if created else self.record["seed_commitment"]
        seed = self.record["seed"]
        if not isinstance(seed, str) or not _HEX.fullmatch(seed):
            self.add("seed", "seed", "a complete record carries the seed, as lowercase hex",
                     found=seed)
            seed = None
        elif not self.matches_commitment("seed", seed, commitment):
            seed = None
        revealed = self.check_seed_revealed(self.record["seed"], commitment)
        usable = seed or revealed
        self.checked["seed_commitment"] = usable is not None
        if usable is None:
            self.add("seed", "seed", "cannot re-execute the moves: no seed in this record "
                     "matches the seed commitment")
        return bytes.fromhex(usable) if usable is not None else None

    def matches_commitment(self, path: str, seed: str, commitment: str) -> bool:
        digest = _sha256_hex(seed)
        if digest != commitment:
            self.add("seed", path, "SHA-256 of the seed is not the seed commitment of "
                     "GameCreated", expected=commitment, found=digest)
        return digest == commitment

    def check_seed_revealed(self, seed: Any, commitment: str) -> str | None:
        """SeedRevealed's seed if it is right after GameEnded and matches the commitment."""
        ended = self.first_index("GameEnded")
        if ended is None:
            return None  # the header check reports a "complete" game without GameEnded
        after = ended + 1
        revealed = self.events[after] if after < len(self.events) else None
        if not isinstance(revealed, dict) or revealed.get("type") != "SeedRevealed":
            found = revealed.get("type") if isinstance(revealed, dict) else None
            self.add("seed", json_path("events", after) + ".type" if revealed else "events",
                     "SeedRevealed must come right after GameEnded", expected="SeedRevealed",
                     found=found)
            return None
        data = revealed.get("data")
        shown = data.get("seed") if isinstance(data, dict) else None
        path = json_path("events", after, "data", "seed")
        if not isinstance(shown, str) or not _HEX.fullmatch(shown):
            self.add("seed", path, "SeedRevealed carries the seed as lowercase hex", found=shown)
            return None
        if shown != seed:
            self.add("seed", "seed", f"is not the seed that SeedRevealed ({path}) carries",
                     expected=shown, found=seed)
        return shown if self.matches_commitment(path, shown, commitment) else None

    # -- 6. scores; incomplete records --------------------------------------------------------

    def check_scores(self) -> None:
        ended = self.first_index("GameEnded")
        if ended is None:
            return
        data = self.events[ended].get("data")
        sheet = data.get("scores") if isinstance(data, dict) else None
        difference = first_difference(sheet, self.record["scores"], "scores")
        if difference:
            self.add_difference("scores", difference,
                                f"the record's scores disagree with GameEnded (events[{ended}])")

    def check_partial(self) -> None:
        seats = self.record["redacted_for"]
        if seats is None:
            self.add("format", "redacted_for", "an incomplete record names the seats whose "
                     "view it is", expected=[])
        for name in ("seed", "scores"):
            if self.record[name] is not None:
                self.add("format", name, "an incomplete record must not carry it")
        self.add("complete", "complete", f"an unfinished game's record, redacted for seats "
                 f"{seats}: without the seed and the facts those seats may not read it cannot "
                 "be re-executed; only its shape, signature, chain links, the hashes of "
                 "unredacted events and its header were checked", expected=True, found=False)


class _Replay:
    """Check 6: the events against the rules, from setup to the end."""

    def __init__(self, verifier: _Verifier, game: Game, created: dict[str, Any],
                 seed: bytes) -> None:
        self.v = verifier
        self.game = game
        self.seed = seed
        self.seat_count: int = created["seats"]
        self.options: dict[str, Any] = created["options"]
        self.players: dict[int, str] = {}  # seat -> player id
        self.bots: set[int] = set()
        # Deadlines (events.domain.deadlines): the rule, the turn clocks, the seats that
        # resigned (in order), the timed-out seats the system plays until they stop acting,
        # and a seat whose PlayerResigned must come next (a timed-out turn at a "resign" table).
        self.rule: dict[str, Any] | None = created.get("deadline")
        self.clocks: tuple[TurnClock, ...] = ()
        self.resigned: list[int] = []
        self.autoplay: set[int] = set()
        self.must_resign: int | None = None
        self.state: State | None = None
        self.ended_at: int | None = None
        self.revealed_at: int | None = None
        self.moves = 0
        self.facts = 0
        self.carried: dict[str, int] = {}

    def run(self) -> None:
        handlers: dict[str, Callable[[int, dict[str, Any]], bool]] = {
            "GameCreated": self.created, "SeatTaken": self.seat_taken,
            "GameStarted": self.started, "MovePlayed": self.move, "GameEnded": self.ended,
            "SeedRevealed": self.seed_revealed, "GameScored": self.carried_event,
            "MessagePosted": self.carried_event, "TurnTimedOut": self.timed_out,
            "PlayerResigned": self.player_resigned,
        }
        finished = True
        for index, envelope in enumerate(self.v.events):
            if not self.v.usable[index]:
                self.stop(index, "this event is malformed")
                finished = False
                break
            self.check_author(index, envelope)
            if not self.expect_start(index, envelope["type"]):
                finished = False
                break
            handler = handlers.get(envelope["type"], self.unknown)
            if not self.expect_resignation(index, envelope) or not handler(index, envelope):
                finished = False
                break
            self.tick(envelope)
        if finished:
            self.check_end()
        self.v.checked.update({
            "moves_reexecuted": self.moves, "facts_compared": self.facts,
            "not_rederived": {kind: f"{count} × {NOT_REDERIVED[kind]}"
                              for kind, count in self.carried.items()},
            "reexecuted_to_the_end": finished,
        })

    def stop(self, index: int, why: str) -> None:
        self.v.add("replay", json_path("events", index),
                   f"re-execution stops at version {index + 1}: {why}")

    def path(self, index: int, *keys: str | int) -> str:
        return json_path("events", index, *keys)

    def check_author(self, index: int, envelope: dict[str, Any]) -> None:
        kind, by = envelope["type"], envelope["by"]
        expected: str | None = "system" if kind in SYSTEM_EVENTS else None
        data = envelope["data"]
        if kind == "SeatTaken" and isinstance(data.get("player_id"), str):
            expected = data["player_id"]
        elif kind == "MovePlayed" and _is_int(data.get("seat")):
            expected = self.players.get(data["seat"])
            if by == "system" and data["seat"] in (*self.resigned, *self.autoplay):
                expected = "system"  # a resigned or timed-out seat, played by the bot
        elif kind == "PlayerResigned" and _is_int(data.get("seat")):
            expected = "system" if self.must_resign == data["seat"] else self.players.get(
                data["seat"])
        if expected is not None and by != expected:
            self.v.add("replay", self.path(index, "by"), f"a {kind} event is written by "
                       f"{'the system' if expected == 'system' else 'the seat’s player'}",
                       expected=expected, found=by)

    def expect_start(self, index: int, kind: str) -> bool:
        """GameStarted must follow the SeatTaken that fills the table, at once."""
        full = self.state is None and len(self.players) == self.seat_count
        if full and kind != "GameStarted":
            self.v.add("replay", self.path(index, "type"), "every seat is taken: GameStarted "
                       "must come now", expected="GameStarted", found=kind)
            return False
        return True

    # -- handlers: False stops the re-execution ---------------------------------------------

    def created(self, index: int, envelope: dict[str, Any]) -> bool:
        if index != 0:
            self.v.add("replay", self.path(index, "type"), "GameCreated comes once, first")
        return index == 0

    def seat_taken(self, index: int, envelope: dict[str, Any]) -> bool:
        data = envelope["data"]
        seat = data.get("seat")
        if self.state is not None:
            self.v.add("replay", self.path(index, "type"), "a seat is taken after the start")
            return False
        if not _is_int(seat) or not 0 <= seat < self.seat_count or seat in self.players:
            free = [s for s in range(self.seat_count) if s not in self.players]
            self.v.add("replay", self.path(index, "data", "seat"), "is not a free seat",
                       expected=free, found=seat)
            return False
        if not isinstance(data.get("player_id"), str):
            self.v.add("replay", self.path(index, "data", "player_id"), "must be a string")
            return False
        self.players[seat] = data["player_id"]
        if data.get("bot") is True:
            self.bots.add(seat)
        return True

    def started(self, index: int, envelope: dict[str, Any]) -> bool:
        if self.state is not None or len(self.players) != self.seat_count:
            free = [s for s in range(self.seat_count) if s not in self.players]
            self.v.add("replay", self.path(index, "type"), "GameStarted comes exactly when the "
                       f"last seat is taken (free seats: {free})", found="GameStarted")
            return False
        try:
            self.state = self.game.setup(self.seat_count, self.options, Rng(self.seed, index + 1))
        except Exception as error:  # noqa: BLE001 - the rules refuse this setup
            self.stop(index, f"the rules cannot set this game up: {error!r}")
            return False
        return True

    def move(self, index: int, envelope: dict[str, Any]) -> bool:
        state = self.playable_state(index)
        if state is None:
            return False
        data = envelope["data"]
        seat, move, facts = data.get("seat"), data.get("move"), data.get("facts")
        if not self.move_shape(index, data):
            return False
        actors = sorted(self.game.actors(state))
        if seat not in actors:
            self.v.add("replay", self.path(index, "data", "seat"), "this seat is not asked to "
                       "act at this point", expected=actors, found=seat)
            return False
        legal = [m["id"] for m in self.game.legal_moves(state, seat)]
        if move["id"] not in legal:
            self.v.add("replay", self.path(index, "data", "move", "id"), f"illegal move for "
                       f"seat {seat}; the legal ones are listed", expected=legal, found=move["id"])
            return False
        try:
            self.state, produced = self.game.play(state, seat, {"id": move["id"]},
                                                  Rng(self.seed, index + 1))
        except Exception as error:  # noqa: BLE001 - a rules bug must not hide the report
            self.stop(index, f"the rules failed on this move: {error!r}")
            return False
        self.moves += 1
        self.facts += len(produced)
        difference = first_difference(produced, facts, self.path(index, "data", "facts"))
        if difference:
            self.v.add_difference("replay", difference, "the recorded facts are not what the "
                                  "rules produce for this move")
        return True  # go on from the rules' state: later moves are checked against it

    def playable_state(self, index: int) -> State | None:
        if self.state is None:
            self.v.add("replay", self.path(index, "type"), "a move before the game started")
        elif self.ended_at is not None:
            self.v.add("replay", self.path(index, "type"), "a move after GameEnded "
                       f"(events[{self.ended_at}])")
        elif self.game.is_over(self.state):
            self.v.add("replay", self.path(index, "type"), "the game is over by the rules: "
                       "GameEnded must come now", expected="GameEnded", found="MovePlayed")
        else:
            return self.state
        return None

    def move_shape(self, index: int, data: dict[str, Any]) -> bool:
        fine = True
        if not _is_int(data.get("seat")):
            self.v.add("format", self.path(index, "data", "seat"), "must be a seat number")
            fine = False
        move = data.get("move")
        if not isinstance(move, dict) or set(move) != {"id"} or not isinstance(move["id"], str):
            self.v.add("format", self.path(index, "data", "move"), 'a recorded move is '
                       '{"id": "<move id>"}', found=move)
            fine = False
        if not isinstance(data.get("facts"), list):
            self.v.add("format", self.path(index, "data", "facts"), "must be a list of facts")
            fine = False
        extra = sorted(set(data) - {"seat", "move", "facts"})
        if extra:
            self.v.add("format", self.path(index, "data", extra[0]), "is not a field of a move")
        return fine

    def ended(self, index: int, envelope: dict[str, Any]) -> bool:
        if self.state is None or self.ended_at is not None:
            self.v.add("replay", self.path(index, "type"), "GameEnded comes once, after the "
                       "game started")
            return False
        if not self.game.is_over(self.state):
            self.v.add("replay", self.path(index, "type"), "the game is not over by the rules "
                       "at this point", found="GameEnded",
                       expected=sorted(self.game.actors(self.state)))
            return False
        self.ended_at = index
        sheet = rank_resigned_last(self.game.score(self.state), self.resigned)
        difference = first_difference(sheet, envelope["data"].get("scores"),
                                      self.path(index, "data", "scores"))
        if difference:
            self.v.add_difference("replay", difference,
                                  "the recorded scores are not the rules' score sheet")
        return True

    def seed_revealed(self, index: int, envelope: dict[str, Any]) -> bool:
        if self.ended_at is None or index != self.ended_at + 1:
            self.v.add("replay", self.path(index, "type"), "SeedRevealed comes right after "
                       "GameEnded, once")
        else:
            self.revealed_at = index
        return True  # the seed itself is check 5's

    def carried_event(self, index: int, envelope: dict[str, Any]) -> bool:
        kind = envelope["type"]
        self.carried[kind] = self.carried.get(kind, 0) + 1
        if kind == "GameScored" and self.revealed_at is None:
            self.v.add("replay", self.path(index, "type"), "GameScored comes after the end")
        return True

    # -- deadlines -----------------------------------------------------------------------------

    def human_actors(self) -> list[int]:
        if self.state is None or self.ended_at is not None or self.game.is_over(self.state):
            return []
        return sorted(seat for seat in self.game.actors(self.state)
                      if seat not in self.bots and seat not in self.resigned)

    def tick(self, envelope: dict[str, Any]) -> None:
        """The turn clocks after an event, as events.domain.table.evolve keeps them."""
        kind = envelope["type"]
        if self.rule is None or kind == "MessagePosted":
            return
        restart = envelope["data"].get("seat") if kind == "TurnTimedOut" else None
        acting = self.human_actors()
        self.clocks = next_clocks(self.clocks, acting, envelope["v"], envelope["at"], restart)
        if self.state is None or self.ended_at is not None:
            self.autoplay.clear()
        else:
            self.autoplay &= set(self.game.actors(self.state))

    def timed_out(self, index: int, envelope: dict[str, Any]) -> bool:
        data = envelope["data"]
        seat, started = data.get("seat"), data.get("started")
        if set(data) != {"seat", "started"} or not _is_int(seat) or not _is_int(started):
            self.v.add("format", self.path(index, "data"), 'TurnTimedOut is {"seat", "started"}',
                       found=data)
            return False
        if self.rule is None:
            self.v.add("replay", self.path(index, "type"), "a game without a deadline has no "
                       "timed-out turns", found="TurnTimedOut")
            return False
        clock = next((c for c in self.clocks if c.seat == seat), None)
        if clock is None or clock.version != started:
            self.v.add("replay", self.path(index, "data", "started"), f"seat {seat} is not on "
                       "a clock that started at this version",
                       expected=clock.version if clock else None, found=started)
            return False
        deadline = due(clock, self.rule)
        if parse_time(envelope["at"]) < deadline:
            self.v.add("replay", self.path(index, "at"), "the turn timed out before its "
                       "deadline", expected=f">= {deadline.isoformat()}", found=envelope["at"])
        if self.rule["on_expiry"] == "resign":
            self.must_resign = seat
        else:
            self.autoplay.add(seat)
        return True

    def expect_resignation(self, index: int, envelope: dict[str, Any]) -> bool:
        """At a "resign" table, the seat's PlayerResigned comes right after TurnTimedOut."""
        if self.must_resign is None:
            return True
        seat = envelope["data"].get("seat")
        if envelope["type"] == "PlayerResigned" and seat == self.must_resign:
            return True
        self.v.add("replay", self.path(index, "type"), f"seat {self.must_resign} timed out at a "
                   "table whose rule is to resign: its PlayerResigned must come now",
                   expected="PlayerResigned", found=envelope["type"])
        return False

    def player_resigned(self, index: int, envelope: dict[str, Any]) -> bool:
        data = envelope["data"]
        seat = data.get("seat")
        if set(data) != {"seat"} or not _is_int(seat):
            self.v.add("format", self.path(index, "data"), 'PlayerResigned is {"seat"}',
                       found=data)
            return False
        playing = self.state is not None and self.ended_at is None
        if not playing or seat not in self.players or seat in self.bots \
                or seat in self.resigned:
            self.v.add("replay", self.path(index, "data", "seat"), "only a player's seat that "
                       "has not resigned may resign, while the game is in play", found=seat)
            return False
        self.must_resign = None
        self.resigned.append(seat)
        return True

    def unknown(self, index: int, envelope: dict[str, Any]) -> bool:
        self.v.add("replay", self.path(index, "type"), "an event type this code does not "
                   "know: it cannot be checked", found=envelope["type"])
        return True

    def check_end(self) -> None:
        if self.state is not None and self.ended_at is None and self.game.is_over(self.state):
            self.v.add("replay", "events", "the game is over by the rules after the last event, "
                       "but no GameEnded follows", expected="GameEnded")


def _seat_list(value: Any) -> bool:
    return isinstance(value, list) and all(_is_int(seat) for seat in value)


def _json_kind(value: Any) -> str:
    kinds = ((dict, "an object"), (list, "an array"), (str, "a string"), (bool, "a boolean"),
             (int, "a number"), (float, "a number"))
    if value is None:
        return "null"
    return next((name for kind, name in kinds if isinstance(value, kind)), type(value).__name__)


def _sha256_hex(seed_hex: str) -> str:
    return hashlib.sha256(bytes.fromhex(seed_hex)).hexdigest()
