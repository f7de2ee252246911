"""JSON paths into a record, and the first place where two JSON values differ."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from events.domain.envelope import canonical_json

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


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
        difference = first_difference(expected[key], found[key], here)
        if difference:
            return difference
    return None


def _first_in_arrays(expected: list[Any], found: list[Any], path: str) -> Difference | None:
    for index, (mine, theirs) in enumerate(zip(expected, found, strict=False)):
        difference = first_difference(mine, theirs, json_path(path, index))
        if difference:
            return difference
    if len(expected) == len(found):
        return None
    index = min(len(expected), len(found))
    extra = "is missing" if len(found) < len(expected) else "should not be there"
    mine = expected[index] if index < len(expected) else None
    theirs = found[index] if index < len(found) else None
    return Difference(json_path(path, index), mine, theirs, extra)


def brief(value: Any, limit: int = 200) -> str:
    """`value` as canonical JSON, cut to `limit` characters (for one-line descriptions)."""
    text = canonical_json(value).decode()
    return text if len(text) <= limit else text[: limit - 1] + "…"
