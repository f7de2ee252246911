"""Request bodies parsed as JSON with bounds: every body, whatever route reads it.

The standard parser accepts what would later cost us a 500 or the host's memory: nesting
deep enough to exhaust the stack, integers of thousands of digits (Python refuses to turn
them into text later), NaN and Infinity (not JSON), lone UTF-16 surrogates ("\\ud800"),
which no UTF-8 store can hold, and an object naming a key twice (which of the two counts
depends on the reader: a record holding one is not valid, docs/records.md). Each is refused
here, at parse time, as a 400.
"""

from __future__ import annotations

import json
import math
from typing import Any

from flask import Flask
from flask.json.provider import DefaultJSONProvider

from events.records.reading import DuplicateKey, unique_keys

MAX_DEPTH = 32  # a record, the deepest body we take, nests about 8 levels
MAX_INT_DIGITS = 20  # 2**64 has 20 digits; no count, seat or version of ours comes close


class UnacceptableJson(ValueError):
    """A body that is JSON but not one we take (or not JSON at all)."""


def loads(data: str | bytes) -> Any:
    try:
        text = data.decode("utf-8") if isinstance(data, bytes | bytearray) else data
        value = json.loads(text, parse_int=_int, parse_float=_float, parse_constant=_constant,
                           object_pairs_hook=unique_keys)
    except DuplicateKey as err:
        raise UnacceptableJson(str(err)) from None
    except RecursionError:
        raise UnacceptableJson(f"JSON nested deeper than {MAX_DEPTH} levels") from None
    except UnicodeDecodeError as err:
        raise UnacceptableJson(f"the body is not UTF-8 ({err.reason})") from None
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


class BoundedJSONProvider(DefaultJSONProvider):
    """Flask's JSON, with `loads` above (request.get_json and the schemas' bodies)."""

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return loads(s)


def init_app(app: Flask) -> None:
    app.json = BoundedJSONProvider(app)
