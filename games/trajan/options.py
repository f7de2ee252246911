"""The table options of Trajan, as a marshmallow schema. A module of its own so that playing
the rules (and `meeple verify`) never imports marshmallow."""

from __future__ import annotations

from marshmallow import RAISE, Schema


class Options(Schema):
    """The rules summary names no variants."""

    class Meta:
        unknown = RAISE
