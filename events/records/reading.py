"""JSON text read strictly and in bounds: the server's reader of every request body
(service.middleware.json_body, which uses `strict_loads`) and of a record's text, whoever
reads it (`parse_record`: the server's record routes, `meeple verify`, `meeple replay`), so
that a text one of them refuses, the others refuse too (docs/records.md, sections 1 and 3).

The standard parser accepts what would later cost a 500, a traceback or the host's memory:
nesting deep enough to exhaust the stack, integers of thousands of digits (Python refuses to
turn them into text later), NaN and Infinity (not JSON), lone UTF-16 surrogates ("\\ud800"),
which no UTF-8 text can hold (the canonical JSON that hashes a record cannot encode them),
bytes that are not UTF-8 (`json.loads` of bytes also guesses UTF-16 and UTF-32, and skips a
UTF-8 byte order mark), and an object naming a key twice: Python's reader keeps the last of
two members with the same key, another reader may keep the first, so two readers could see
two records in one text. Each is refused, with one line saying why.

A record's cost is bounded before it is parsed: in bytes, and in JSON objects and arrays,
which cost memory out of proportion to their bytes ("{}" is 2 bytes, a parsed dict some 60).
A long real game is well under both.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

RECORD_MAX_BYTES = 4 * 1024 * 1024
RECORD_MAX_CONTAINERS = 200_000
MAX_DEPTH = 32  # a record, the deepest body we take, nests about 8 levels
MAX_INT_DIGITS = 20  # 2**64 has 20 digits; no count, seat or version of ours comes close


class UnacceptableJson(ValueError):
    """A text that is JSON but not one we take (or not JSON at all)."""


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


def strict_loads(data: str | bytes) -> Any:
    """The JSON value of `data` (bytes: UTF-8, and nothing else); UnacceptableJson, with one
    line saying why, for anything above."""
    try:
        text = data.decode("utf-8") if isinstance(data, bytes | bytearray) else data
        value = json.loads(text, parse_int=_int, parse_float=_float, parse_constant=_constant,
                           object_pairs_hook=unique_keys)
    except DuplicateKey as err:
        raise UnacceptableJson(str(err)) from None
    except RecursionError:
        raise UnacceptableJson(f"JSON nested deeper than {MAX_DEPTH} levels") from None
    except UnicodeDecodeError as err:
        raise UnacceptableJson(f"not UTF-8 ({err.reason} at byte {err.start})") from None
    except json.JSONDecodeError as err:
        raise UnacceptableJson(f"not JSON: {err.msg} at line {err.lineno} column {err.colno}") \
            from None
    check(value)
    return value


def check(value: Any) -> None:
    """Depth and strings, without recursion: a stack of (value, depth)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > MAX_DEPTH:
                raise UnacceptableJson(f"JSON nested deeper than {MAX_DEPTH} levels")
            children = [*item.keys(), *item.values()] if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
        elif isinstance(item, str) and not item.isascii():
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                raise UnacceptableJson("a string holds a lone UTF-16 surrogate (\\ud800 to "
                                       "\\udfff not in a pair): not text") from None


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise UnacceptableJson(f"an integer of more than {MAX_INT_DIGITS} digits")
    return int(text)


def _float(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise UnacceptableJson(f"a number too large to hold: {text[:20]}")
    return number


def _constant(name: str) -> Any:
    raise UnacceptableJson(f"{name} is not JSON")


# A JSON string: what is between two quotes, escapes included. Possessive (no backtracking):
# one pass over the text, whatever it holds.
_STRING = re.compile(rb'"(?:[^"\\]++|\\.)*+"', re.DOTALL)


def containers(data: bytes) -> int:
    """The JSON objects and arrays of this text, or more: its "{" and "[" bytes outside
    strings. Most texts hold far fewer of both bytes than the bound, and that count (C
    speed) is taken first; only past the bound are strings skipped (table talk of 500 "{"
    is no object), in one more linear pass. A text that is not JSON is counted up to where
    the parser would stop, at least: what the parser would build, it never undercounts."""
    rough = data.count(b"{") + data.count(b"[")
    if rough <= RECORD_MAX_CONTAINERS:
        return rough
    outside = _STRING.sub(b"", data)
    return outside.count(b"{") + outside.count(b"[")


def too_many_containers(data: bytes) -> str | None:
    """Why a text of this many objects and arrays is not read, or None."""
    if containers(data) > RECORD_MAX_CONTAINERS:
        return f"more than {RECORD_MAX_CONTAINERS:,} JSON objects and arrays"
    return None


def too_large(data: bytes, max_bytes: int = RECORD_MAX_BYTES) -> str | None:
    """Why a record of these bytes is not read, or None."""
    if len(data) > max_bytes:
        return f"{len(data):,} bytes, more than a record may hold ({max_bytes:,})"
    return too_many_containers(data)


def parse_record(data: bytes, max_bytes: int = RECORD_MAX_BYTES) -> Any:
    """The JSON value of a record's bytes; ValueError (an UnacceptableJson when the text is
    the reason) saying why in one line."""
    reason = too_large(data, max_bytes)
    if reason:
        raise ValueError(reason)
    return strict_loads(data)
