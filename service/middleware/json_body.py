"""Request bodies parsed as JSON with bounds: every body, whatever route reads it.

The standard parser accepts what would later cost us a 500 or the host's memory: nesting
deep enough to exhaust the stack, integers of thousands of digits (Python refuses to turn
them into text later), NaN and Infinity (not JSON), lone UTF-16 surrogates ("\\ud800"),
which no UTF-8 store can hold, bytes that are not UTF-8, and an object naming a key twice
(which of the two counts depends on the reader: a record holding one is not valid,
docs/records.md). Each is refused here, at parse time, as a 400.

The reader itself is events.records.reading's `strict_loads`: `meeple verify` and `meeple
replay` read a record's text with it too, so that they refuse what the server refuses.
"""

from __future__ import annotations

from typing import Any

from flask import Flask
from flask.json.provider import DefaultJSONProvider

from events.records.reading import MAX_DEPTH, MAX_INT_DIGITS, UnacceptableJson, check
from events.records.reading import strict_loads as loads

__all__ = ["MAX_DEPTH", "MAX_INT_DIGITS", "BoundedJSONProvider", "UnacceptableJson", "check",
           "init_app", "loads"]


class BoundedJSONProvider(DefaultJSONProvider):
    """Flask's JSON, with `loads` above (request.get_json and the schemas' bodies)."""

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return loads(s)


def init_app(app: Flask) -> None:
    app.json = BoundedJSONProvider(app)
