"""The table options of Asking for Trobils, as a marshmallow schema. A module of its own so
that playing the rules (and `meeple verify`) never imports marshmallow: only options that
are not plain booleans load it."""

from __future__ import annotations

from marshmallow import RAISE, Schema, fields


class Options(Schema):
    """The rulebook's one variant: "To play a shorter game, remove the 5 cards marked for a
    2 Player game setup." """

    short_game = fields.Boolean(load_default=False)

    class Meta:
        unknown = RAISE
