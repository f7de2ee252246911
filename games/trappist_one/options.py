"""The table options of Trappist One, as a marshmallow schema. A module of its own so that
playing the rules (and `meeple verify`) never imports marshmallow."""

from __future__ import annotations

from marshmallow import RAISE, Schema, fields


class Options(Schema):
    """The rulebook's two variants, and the refill the Exodite section allows."""

    # "Scoring Dominion Points (Expert Version)"
    expert_scoring = fields.Boolean(load_default=False)
    # "Exodite Expansion": 30 more investment cards in the mix, deck size unchanged
    exodite = fields.Boolean(load_default=False)
    # "you can use the removed cards to refill the market area until all players have played
    # their last turns" (decisions note: an option of the table, default on)
    refill_from_removed = fields.Boolean(load_default=True)

    class Meta:
        unknown = RAISE
