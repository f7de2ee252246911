"""The table options of Res Publica 2230 AD, as a marshmallow schema. A module of its own so
that playing the rules (and `meeple verify`) never imports marshmallow: only a table that
names options loads it (marshmallow alone took a fifth of `meeple verify`'s start-up)."""

from __future__ import annotations

from marshmallow import RAISE, Schema


class Options(Schema):
    """The rulebook names no variants."""

    class Meta:
        unknown = RAISE
