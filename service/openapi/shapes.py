"""The shapes of the JSON the API passes through untouched: moves, facts, envelopes and
their data, score sheets, views. They are documentation only. An answer is dumped through a
field that passes the value as it is (`typed`), so a game's own fields are never dropped on
the way out, while the spec names the component that describes it, and a generated client
gets typed objects.

Event data follows what servers write and the verifier accepts
(events/records/verify/data.py); a change there is a change here.
"""

from __future__ import annotations

from typing import Any

from marshmallow import INCLUDE, Schema, fields, validate

from events.domain.deadlines import MAX_MOVE_SECONDS, ON_EXPIRY
from games.rng import SEAT_SEED

REF = "#/components/schemas/"


def typed(component: str, *, nullable: bool = False, required: bool = False,
          description: str | None = None) -> fields.Raw:
    """A field dumped as is, documented as the component `component`."""
    ref: dict[str, Any] = {"$ref": REF + component}
    shape = {"anyOf": [ref, {"type": "null"}]} if nullable else ref
    return _documented(shape, required, description, allow_none=nullable)


def typed_list(component: str, *, required: bool = False,
               description: str | None = None) -> fields.Raw:
    """A list dumped as is, documented as a list of `component`."""
    shape = {"type": "array", "items": {"$ref": REF + component}}
    return _documented(shape, required, description)


def _documented(shape: dict[str, Any], required: bool, description: str | None,
                allow_none: bool = False) -> fields.Raw:
    metadata: dict[str, Any] = {"openapi": shape}
    if description:
        metadata["description"] = description
    return fields.Raw(required=required, allow_none=allow_none, metadata=metadata)


class Open(Schema):
    """An object with the fields below and possibly more (a game's own)."""

    class Meta:
        unknown = INCLUDE


class Closed(Schema):
    """An object with exactly the fields below."""


# --- moves, facts, views, score sheets ------------------------------------------------------


class LegalMove(Open):
    """A legal move, as `GET …/moves` lists it. The `id` alone decides when it is sent back;
    the other fields describe it for clients (each game's `move_schema` names them)."""

    id = fields.String(required=True, metadata={"description": "Stable at this point of the "
                                                               "game: send it back to play"})
    label = fields.String(required=True, metadata={"description": "The move in words"})


class RecordedMove(Closed):
    """A move as the log keeps it: its id."""

    id = fields.String(required=True, validate=validate.Length(min=1, max=200))


class Fact(Closed):
    """One line of the game log."""

    text = fields.String(required=True)
    data = fields.Dict(required=True, metadata={"description": "The line as data, for clients"})
    to = fields.Raw(required=True, metadata={"openapi": {
        "description": '"all", or the seats that may read it',
        "oneOf": [{"type": "string", "enum": ["all"]},
                  {"type": "array", "items": {"type": "integer", "minimum": 0}}]}})


class GameView(Open):
    """What every game's view holds; the rest is the game's own (its `view_schema` at
    `GET /v1/game-types/{type}`, and the `<Game>View` components here)."""

    phase = fields.String(required=True, metadata={"description": "The game's step now, in "
                                                                  "its own words"})
    active = fields.Integer(required=True, metadata={"description": "The seat whose turn it is"})
    turn = fields.Integer(required=True, validate=validate.Range(min=0),
                          metadata={"description": "The turn (or round) number"})
    actors = fields.List(fields.Integer(), required=True,
                         metadata={"description": "The seats that must act now"})
    players = fields.List(fields.Dict(), required=True,
                          metadata={"description": "Every seat's area, in seat order"})
    prompt = fields.String(required=True, allow_none=True, metadata={
        "description": "What the seat this view is for must decide now, or whom it waits "
                       "for, in words (null in some games for a seat that need not act)"})
    score = typed("ScoreSheet", nullable=True, required=True,
                  description="The final score sheet once over; null before")


class SeatScore(Open):
    seat = fields.Integer(required=True)
    total = fields.Integer(required=True, metadata={"description": "Final points"})
    breakdown = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True,
                            metadata={"description": "Points by scoring category"})
    rank = fields.Integer(required=True, metadata={"description": "1 is first; tied seats "
                                                                  "share a rank"})


class ScoreSheet(Open):
    """The final scores. Games may add figures of their own (Trajan's `quarters`, ...)."""

    ranking = fields.Raw(required=True, metadata={"openapi": {
        "description": "Seats from first to last; seats tied for a place are one list",
        "type": "array",
        "items": {"oneOf": [{"type": "integer"},
                            {"type": "array", "items": {"type": "integer"}}]}}})
    seats = fields.List(fields.Nested(SeatScore), required=True)


# --- event data, one schema per platform event type -------------------------------------------


class Deadline(Closed):
    seconds = fields.Integer(required=True, validate=validate.Range(min=1, max=MAX_MOVE_SECONDS))
    on_expiry = fields.String(required=True, validate=validate.OneOf(ON_EXPIRY))
    bot = fields.String(metadata={"description": "The stand-in bot's level (absent in games "
                                                 "made before bots had levels: random)"})


class GameCreatedData(Closed):
    type = fields.String(required=True, metadata={"description": "The game type id"})
    rules_version = fields.String(required=True)
    options = fields.Dict(required=True)
    seats = fields.Integer(required=True, validate=validate.Range(min=1, max=10))
    seed_commitment = fields.String(required=True, metadata={"description": "SHA-256 of the "
                                                                            "secret seed, hex"})
    deadline = fields.Nested(Deadline)
    game_id = fields.String()
    dealing = fields.String(validate=validate.OneOf(["seats"]), metadata={
        "description": '"seats": every SeatTaken carries the seat\'s seed'})
    draws = fields.String(validate=validate.OneOf(["moves"]), metadata={
        "description": '"moves": the setup draws from random stream 0 and each move from its '
                       "number among the moves (games made before: the event's version)"})
    public = fields.Boolean(validate=validate.Equal(False), metadata={
        "description": "false: a private table (public ones leave it out)"})


class SeatTakenData(Closed):
    seat = fields.Integer(required=True)
    player_id = fields.String(required=True)
    name = fields.String(required=True)
    bot = fields.Boolean(required=True)
    seed = fields.String(validate=validate.Regexp(SEAT_SEED))


class GameStartedData(Closed):
    pass


class MovePlayedData(Closed):
    seat = fields.Integer(required=True)
    move = fields.Nested(RecordedMove, metadata={
        "description": "Left out, before the end, of another seat's move that is secret"})
    facts = fields.List(fields.Nested(Fact), required=True)


class GameEndedData(Closed):
    scores = typed("ScoreSheet", required=True)


class SeedRevealedData(Closed):
    seed = fields.String(required=True, metadata={"description": "The secret seed, hex"})


class TurnTimedOutData(Closed):
    seat = fields.Integer(required=True)
    started = fields.Integer(required=True, metadata={"description": "The version at which "
                                                                     "the turn began"})


class PlayerResignedData(Closed):
    seat = fields.Integer(required=True)


class MessagePostedData(Closed):
    seat = fields.Integer(required=True)
    text = fields.String(required=True)


class Rating(Closed):
    mu = fields.Float(required=True)
    sigma = fields.Float(required=True)


class RatingRow(Closed):
    """A seat's rating before and after (older records: `mu_before` and `mu_after`)."""

    seat = fields.Integer(required=True)
    player_id = fields.String(required=True)
    before = fields.Nested(Rating)
    after = fields.Nested(Rating)
    mu_before = fields.Float()
    mu_after = fields.Float()


class GameScoredData(Closed):
    ratings = fields.List(fields.Nested(RatingRow), required=True)


EVENT_DATA: dict[str, type[Schema]] = {
    "GameCreated": GameCreatedData, "SeatTaken": SeatTakenData,
    "GameStarted": GameStartedData, "MovePlayed": MovePlayedData,
    "MessagePosted": MessagePostedData, "PlayerResigned": PlayerResignedData,
    "TurnTimedOut": TurnTimedOutData, "GameEnded": GameEndedData,
    "SeedRevealed": SeedRevealedData, "GameScored": GameScoredData,
}


class EnvelopeBase(Closed):
    v = fields.Integer(required=True, metadata={"description": "The version: 1, 2, 3, ..."})
    at = fields.String(required=True, metadata={"description": "When it was appended (UTC)"})
    by = fields.String(required=True, metadata={"description": "A player id, a bot, or system"})
    prev = fields.String(required=True, allow_none=True, metadata={
        "description": "The hash of the envelope before; null until the game has ended"})
    hash = fields.String(required=True, allow_none=True, metadata={
        "description": "SHA-256 of this envelope's canonical JSON without `hash`; null until "
                       "the game has ended: each hash covers the ones before, so it would "
                       "let guesses of redacted secrets be tested"})
    redacted = fields.Boolean(metadata={"description": "Parts hidden from you were removed"})


def _envelope(kind: str, data: type[Schema]) -> type[Schema]:
    name = f"{kind}Envelope"
    body = {"type": fields.String(required=True, validate=validate.OneOf([kind])),
            "data": fields.Nested(data, required=True)}
    return type(name, (EnvelopeBase,), body)


ENVELOPES: dict[str, type[Schema]] = {kind: _envelope(kind, data)
                                      for kind, data in EVENT_DATA.items()}

ENVELOPE = {
    "description": "One event of the log; its `type` says which",
    "oneOf": [{"$ref": f"{REF}{kind}Envelope"} for kind in ENVELOPES],
    "discriminator": {"propertyName": "type",
                      "mapping": {kind: f"{REF}{kind}Envelope" for kind in ENVELOPES}},
}


def envelope_list(*, required: bool = False, description: str | None = None) -> fields.Raw:
    return typed_list("Envelope", required=required, description=description)


def components() -> dict[str, type[Schema]]:
    """The documentation-only schemas, by component name, for the spec to register."""
    named: dict[str, type[Schema]] = {
        "LegalMove": LegalMove, "Fact": Fact, "GameView": GameView, "ScoreSheet": ScoreSheet,
    }
    named.update({f"{kind}Envelope": schema for kind, schema in ENVELOPES.items()})
    return named
