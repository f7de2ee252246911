"""The kinds of JSON value a record's fields hold, and the check of an object's fields that
the shape, header and signature checks share."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from typing import Any

from events.records.verify.paths import json_path
from events.records.verify.report import Findings

Kind = Callable[[Any], bool]  # is this JSON value of the right type and form?

HEX = re.compile(r"(?:[0-9a-f]{2})+")  # lowercase, whole bytes: how seeds are written
_HEX64 = re.compile(r"[0-9a-f]{64}")
_ISO_UTC = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,6})?Z")


def is_str(value: Any) -> bool:
    return isinstance(value, str)


def is_dict(value: Any) -> bool:
    return isinstance(value, dict)


def is_list(value: Any) -> bool:
    return isinstance(value, list)


def is_int(value: Any) -> bool:
    return type(value) is int  # JSON true is not a number


def is_hex64(value: Any) -> bool:
    return isinstance(value, str) and bool(_HEX64.fullmatch(value))


def hex64_or_null(value: Any) -> bool:
    return value is None or is_hex64(value)


def is_iso_utc(value: Any) -> bool:
    if not isinstance(value, str) or not _ISO_UTC.fullmatch(value):
        return False
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def seat_list(value: Any) -> bool:
    return isinstance(value, list) and all(is_int(seat) for seat in value)


def json_kind(value: Any) -> str:
    """What a JSON value is, in words: "an object", "null", ..."""
    kinds = ((dict, "an object"), (list, "an array"), (str, "a string"), (bool, "a boolean"),
             (int, "a number"), (float, "a number"))
    if value is None:
        return "null"
    return next((name for kind, name in kinds if isinstance(value, kind)), type(value).__name__)


def check_fields(findings: Findings, value: dict[str, Any], path: str, kinds: dict[str, Kind],
                 optional: dict[str, Kind] | None = None) -> bool:
    """Every field of `kinds` is there and of its kind, and no other is, except the ones of
    `optional` when of their kind; False (with "format" problems) when not."""
    fine = True
    for name, is_right in kinds.items():
        if name not in value:
            findings.add("format", json_path(path, name), "is missing")
            fine = False
        elif not is_right(value[name]):
            findings.add("format", json_path(path, name), "has the wrong type or form",
                         found=value[name])
            fine = False
    for name in sorted(set(value) - set(kinds)):
        if optional and name in optional and optional[name](value[name]):
            continue
        findings.add("format", json_path(path, name), "is not a field here")
        fine = False
    return fine
