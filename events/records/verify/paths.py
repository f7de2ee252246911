"""JSON paths into a record, and the first place where two JSON values differ."""

from __future__ import annotations

import json
import re
import reprlib
from dataclasses import dataclass
from typing import Any

from events.domain.envelope import canonical_json

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Keys already matched as names: paths are written for every event, and most use the same few
# keys ("data", "facts"), which the regex would match again each time. Bounded, so that a
# record of a million different keys cannot grow it.
_NAMES: set[str] = set()
_NAMES_KEPT = 4096


def json_path(base: str, *keys: str | int) -> str:
    """`base` followed by `.key` or `[index]` for each key, e.g. events[3].data.facts[0]."""
    path = base
    for key in keys:
        if isinstance(key, int):
            path += f"[{key}]"
        elif type(key) is str and key in _NAMES:
            path += f".{key}" if path else key
        elif _NAME.fullmatch(key):
            if type(key) is str and len(_NAMES) < _NAMES_KEPT:
                _NAMES.add(key)
            path += f".{key}" if path else key
        else:
            path += "[" + _quoted(key) + "]"
    return path


def _quoted(key: str) -> str:
    """A key as a JSON string: as canonical JSON writes it, or escaped to ASCII when it
    cannot be UTF-8 (a lone surrogate, in a value made in memory)."""
    try:
        return canonical_json(key).decode()
    except (ValueError, TypeError):
        return json.dumps(key)


@dataclass(frozen=True)
class Difference:
    path: str
    expected: Any
    found: Any
    detail: str


def first_difference(expected: Any, found: Any, path: str, *, _inside: bool = False
                     ) -> Difference | None:
    """The first place where two JSON values differ, depth first, keys in sorted order; None
    if they are equal as JSON (1 and true and 1.0 are three different values here).

    Most values compared are equal (a record's facts, as the rules make them again): `_equal`
    says so first, without the sorted keys and the path of every value that the walk below
    writes; the walk runs only where they differ, or where `_equal` cannot tell (then it finds
    what it always found, raising where it always raised)."""
    if not _inside and _surely_equal(expected, found):
        return None
    if type(expected) is not type(found):
        return Difference(path, expected, found, "differs")
    if isinstance(expected, dict):
        return _first_in_objects(expected, found, path)
    if isinstance(expected, list):
        return _first_in_arrays(expected, found, path)
    return None if expected == found else Difference(path, expected, found, "differs")


def _first_in_objects(expected: dict[str, Any], found: dict[str, Any],
                      path: str) -> Difference | None:
    for key in sorted(set(expected) | set(found)):
        here = json_path(path, key)
        if key not in found:
            return Difference(here, expected[key], None, "is missing")
        if key not in expected:
            return Difference(here, None, found[key], "should not be there")
        difference = first_difference(expected[key], found[key], here, _inside=True)
        if difference:
            return difference
    return None


def _first_in_arrays(expected: list[Any], found: list[Any], path: str) -> Difference | None:
    for index, (mine, theirs) in enumerate(zip(expected, found, strict=False)):
        difference = first_difference(mine, theirs, json_path(path, index), _inside=True)
        if difference:
            return difference
    if len(expected) == len(found):
        return None
    index = min(len(expected), len(found))
    extra = "is missing" if len(found) < len(expected) else "should not be there"
    mine = expected[index] if index < len(expected) else None
    theirs = found[index] if index < len(found) else None
    return Difference(json_path(path, index), mine, theirs, extra)


# How deep `_equal` looks: facts and score sheets are a few levels deep; anything deeper is
# left to the walk, whose recursion (and so where a deep enough value stops it) stays its own.
_EQUAL_DEPTH = 32


def _surely_equal(expected: Any, found: Any) -> bool:
    try:
        return _equal(expected, found, _EQUAL_DEPTH)
    except RecursionError:
        return False  # the walk decides, and fails as it would have


def _equal(expected: Any, found: Any, depth: int) -> bool:
    """True only if the walk of first_difference would find no difference and raise nothing:
    the same types everywhere, the same keys (all ASCII strings, which every path can name),
    the same lengths, equal leaves, at most `depth` levels deep. False when unsure."""
    if type(expected) is not type(found):
        return False
    if isinstance(expected, dict):
        if not depth or len(expected) != len(found):
            return False
        for key, value in expected.items():
            if type(key) is not str or not key.isascii() or key not in found:
                return False
            if not _equal(value, found[key], depth - 1):
                return False
        return True
    if isinstance(expected, list):
        if not depth or len(expected) != len(found):
            return False
        for mine, theirs in zip(expected, found, strict=True):
            if not _equal(mine, theirs, depth - 1):
                return False
        return True
    try:
        return bool(expected == found)
    except Exception:  # noqa: BLE001 - whatever a leaf does, the walk meets it again
        return False


def brief(value: Any, limit: int = 200) -> str:
    """`value` as canonical JSON, cut to `limit` characters (for one-line descriptions). A
    value canonical JSON cannot write (a lone surrogate, NaN, a key that is not a string: a
    record made in memory may hold them) is shown as well as it can be, never raising."""
    try:
        text = canonical_json(value).decode()
    except (ValueError, TypeError, RecursionError):  # UnicodeEncodeError is a ValueError
        text = _loose(value, limit)
    return cut(text, limit)


def _loose(value: Any, limit: int) -> str:
    try:
        return json.dumps(value, sort_keys=False, default=repr)  # ASCII: \ud800 escaped
    except (ValueError, TypeError, RecursionError):
        shown = reprlib.Repr()
        shown.maxstring = shown.maxother = limit
        return shown.repr(value)


def described(error: BaseException, limit: int = 300) -> str:
    """An exception in one short line: its repr can hold a whole record (a UnicodeError
    repeats the text it failed on)."""
    if isinstance(error, UnicodeError):
        reason = getattr(error, "reason", "")
        text = f"{type(error).__name__}: {reason}" if reason else type(error).__name__
    else:
        try:
            text = repr(error)
        except Exception:  # noqa: BLE001 - whatever an error's repr does, a line is due
            text = type(error).__name__
    return cut(text, limit)


def cut(text: str, limit: int = 300) -> str:
    """`text`, at most `limit` characters: cut with "…"."""
    return text if len(text) <= limit else text[: limit - 1] + "…"
