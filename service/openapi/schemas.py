"""Request and response bodies of the REST API. openapi.yaml is generated from these."""

from __future__ import annotations

import unicodedata
from typing import Any

from marshmallow import INCLUDE, RAISE, Schema, ValidationError, fields, validate

from events.accounts.profiles import DIGEST_CHOICES, NOTIFY_CHOICES
from events.accounts.webhook_urls import malformed, refused_when_set
from events.application.meeple import MESSAGE_MAX_LENGTH, message_problem
from events.domain.deadlines import DEFAULT_MIN_MOVE_SECONDS, MAX_MOVE_SECONDS, ON_EXPIRY
from games.registry import GAMES
from games.rng import SEAT_SEED
from service.openapi.shapes import envelope_list, typed, typed_list

STATUSES = ("open", "active", "ended")


class Strict(Schema):
    class Meta:
        unknown = RAISE  # unknown fields are a client error, never silently dropped


class StrictBoolean(fields.Boolean):
    """true or false, as the spec says: not "yes", "no", 1 or 0 (marshmallow's Boolean takes
    them, and a `truthy={True}` set still holds 1, which equals True)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if type(value) is not bool:
            raise self.make_error("invalid", input=value)
        return value


class StrictFloat(fields.Float):
    """A JSON number, as the spec says: not a string holding one ("1.5"), nor true."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> float:
        if type(value) not in (int, float):
            raise self.make_error("invalid", input=value)
        number: float = super()._deserialize(value, attr, data, **kwargs)
        return number


def StrictInteger(**kwargs: Any) -> fields.Integer:  # noqa: N802 (a field, named as fields are)
    """A JSON integer, as the spec says: not "5", nor 5.0 (marshmallow takes both)."""
    return fields.Integer(strict=True, **kwargs)


class Problem(Strict):
    """An error, as RFC 9457 problem details."""

    type = fields.String(metadata={"description": "A URI naming the problem type"})
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    code = fields.String(required=True, metadata={"description": "Stable machine-readable code"})
    detail = fields.String(required=True, metadata={"description": "What went wrong, for humans"})
    errors = fields.Dict(metadata={"description": "Field-by-field validation errors"})
    current_version = fields.Integer(metadata={"description": "With version_conflict"})
    move_index = fields.Integer(metadata={"description": "With illegal moves: which move"})
    report = fields.Dict(metadata={"description": "With record_invalid: the verifier's report"})
    outcome = fields.String(validate=validate.OneOf(["not_applied", "unknown"]), metadata={
        "description": "With store_unavailable and not_replicated: whether the request was "
                       "applied. `unknown` for a write: retry it with the same "
                       "Idempotency-Key to find out"})


# --- players ----------------------------------------------------------------


def printable_name(name: str) -> None:
    """A name goes into email headers and every client's screen: no control, format or
    line-separator characters (CR, LF, U+2028, a right-to-left override ...)."""
    bad = [char for char in name if unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp")]
    if bad:
        raise ValidationError(f"a name may not hold control or line-separator characters "
                              f"(found U+{ord(bad[0]):04X})")
    if not name.strip():
        raise ValidationError("a name must have something besides spaces")


class PlayerCreate(Strict):
    name = fields.String(required=True, validate=[validate.Length(min=1, max=40),
                                                  printable_name])


class PlayerOut(Strict):
    id = fields.String(required=True)
    name = fields.String(required=True)
    created_at = fields.String(required=True)


class PlayerCreated(PlayerOut):
    api_key = fields.String(
        required=True, metadata={"description": "Shown once: send as 'Authorization: Bearer KEY'"}
    )


class NoBody(Strict):
    """A request that takes no fields: no body, or `{}`."""


class KeyReplaced(PlayerCreated):
    replayed = fields.Boolean(required=True, metadata={
        "description": "true: a retry of a replacement already made (same old key and "
                       "Idempotency-Key), answering the key it made"})


def public_webhook_url(url: str) -> None:
    """The URL's form, and where it points: a name is resolved once (at most a few
    seconds), and checked again at each delivery (events.accounts.webhook_urls)."""
    problem = malformed(url)
    if problem is not None:
        raise ValidationError(problem)
    reason = refused_when_set(url)
    if reason is not None:
        raise ValidationError(f"webhooks go to public addresses only: {reason}")


class ProfileUpdate(Strict):
    """Any of the fields; null clears one. Setting `webhook_url` makes a new signing secret."""

    email = fields.Email(
        allow_none=True, validate=validate.Length(max=254),
        metadata={"description": "Becomes `email_pending`, and a code is mailed to it; "
                                 "null forgets both addresses"})
    webhook_url = fields.Url(
        allow_none=True, schemes={"http", "https"}, require_tld=False,
        validate=[validate.Length(max=2000), public_webhook_url],
        metadata={"description": "Receives signed JSON POSTs; a new URL re-enables it. "
                                 "Private, loopback and link-local addresses are refused "
                                 "(a name is looked up when set and at each delivery), "
                                 "and so is a user name or password in the URL."},
    )
    notify = fields.String(allow_none=True, validate=validate.OneOf(NOTIFY_CHOICES),
                           metadata={"description": "How to tell you a game awaits you"})
    digest = fields.String(
        allow_none=True,
        validate=validate.OneOf(DIGEST_CHOICES),
        metadata={"description": "'each': one message per turn; 'daily': one digest a day "
                                 "(at MEEPLE_DIGEST_HOUR UTC) of the games awaiting you, "
                                 "table talk and ended games; deadline reminders still "
                                 "come at once"},
    )


class ProfileOut(PlayerOut):
    email = fields.String(required=True, allow_none=True,
                          metadata={"description": "The confirmed address notices go to"})
    email_pending = fields.String(
        required=True, allow_none=True,
        metadata={"description": "An address waiting for its code to be confirmed"})
    webhook_url = fields.String(required=True, allow_none=True)
    notify = fields.String(required=True, validate=validate.OneOf(NOTIFY_CHOICES))
    digest = fields.String(required=True, validate=validate.OneOf(DIGEST_CHOICES))
    webhook_disabled_reason = fields.String(
        required=True, allow_none=True,
        metadata={"description": "Why deliveries stopped (5 failures in a row); null if not"},
    )


class EmailConfirm(Strict):
    code = fields.String(required=True, validate=validate.Length(min=1, max=32),
                         metadata={"description": "The code mailed to the pending address"})


class ProfileUpdated(ProfileOut):
    webhook_secret = fields.String(metadata={
        "description": "Only when webhook_url was set, shown once: deliveries carry "
                       "X-Meeple-Signature: sha256=HMAC-SHA256(secret, body) in hex, and "
                       "X-Meeple-Signature-V2: the same over `{X-Meeple-Delivery}."
                       "{X-Meeple-Timestamp}.{body}` (README, Webhooks)"})


# --- game types -------------------------------------------------------------


class OptionOut(Strict):
    type = fields.String(required=True, metadata={"description": "Boolean, Integer, String"})
    required = fields.Boolean(required=True)


class ComponentsOut(Strict):
    view = fields.String(required=True, metadata={
        "description": "The spec's component for this game's view, e.g. TrajanView"})
    move = fields.String(required=True, metadata={
        "description": "The spec's component for this game's legal moves"})


class GameTypeSummaryOut(Strict):
    id = fields.String(required=True)
    title = fields.String(required=True)
    min_players = fields.Integer(required=True)
    max_players = fields.Integer(required=True)
    rules_version = fields.String(required=True, metadata={
        "description": "The rules new tables are made with"})
    rules_versions = fields.List(fields.String(), required=True, metadata={
        "description": "Every rules version this server still plays and verifies, oldest "
                       "first"})
    options = fields.Dict(
        keys=fields.String(), values=fields.Nested(OptionOut), required=True,
        metadata={"description": "The options a table may set, with their types"})
    components = fields.Nested(ComponentsOut, required=True, metadata={
        "description": "This game's view and move schemas, as named in this API's spec: a "
                       "generated client has them as types"})


class GameTypeOut(GameTypeSummaryOut):
    """One game type, with the JSON Schemas of its view and moves."""

    view_schema = fields.Dict(required=True, metadata={
        "description": "JSON Schema (2020-12) of `view` in this game's answers, for a seat "
                       "and for a spectator, under every rules version listed"})
    move_schema = fields.Dict(required=True, metadata={
        "description": "JSON Schema (2020-12) of one of this game's legal moves"})


class LeaderboardRow(Strict):
    rank = fields.Integer(required=True)
    player_id = fields.String(required=True)
    rating = fields.Float(required=True, metadata={"description": "mu - 3 sigma (openskill)"})
    bot = fields.Boolean(required=True, metadata={
        "description": "A bot: each level is rated as one player (player_id bot:<level>)"})
    level = fields.String(allow_none=True, metadata={"description": "A bot's level"})


class LeaderboardOut(Strict):
    game_type = fields.String(required=True)
    rows = fields.List(fields.Nested(LeaderboardRow), required=True)


# --- games ------------------------------------------------------------------


SEED_DESCRIPTION = (
    "Your seat's contribution to the game's randomness: 1 to 64 letters, digits, '-' or '_',"
    " written into the log (SeatTaken). The deal derives from the server's seed, committed"
    " before anyone joined, and every seat's contribution (docs/records.md, section 5)."
    " Without one, your seat's seed is made from the server's committed seed, as a bot's"
    " is, and `meeple verify` shows it was at the end. To need no trust in the server at"
    " all, send your own when you join a table whose commitment you have seen: a seed sent"
    " with the request that creates the table reaches the server before it commits (create"
    " with `join: false`, then join).")


BOT_LEVEL_DESCRIPTION = (
    "How the bot plays: 'random' (a random legal move), 'greedy' (the move that looks best one"
    " move ahead) or 'ismcts' (a search over what the seat may know: 'ismcts-<10 to 5000>ms'"
    " thinks that long a move, 'ismcts-<1 to 20000>it' that many iterations, the same move on"
    " any server unless it would take over 5 s, where it stops; 'ismcts' alone is"
    " 'ismcts-200ms')")
BOT_LEVEL = r"^(random|greedy|ismcts(-[0-9]{1,6}(ms|it))?)$"


class BotSeatIn(Strict):
    seat = StrictInteger(required=True, validate=validate.Range(min=0, max=9))
    level = fields.String(load_default="random", validate=validate.Regexp(BOT_LEVEL),
                          metadata={"description": BOT_LEVEL_DESCRIPTION})


class BotSeat(fields.Field):
    """A bot seat at creation: a seat number (a random bot, as before levels existed) or
    {"seat", "level"}."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            if not 0 <= value <= 9:
                raise ValidationError("a seat is 0 to 9")
            return value
        if isinstance(value, dict):
            return BotSeatIn().load(value)
        raise ValidationError('a seat number, or {"seat": number, "level": text}')


class GameCreate(Strict):
    type = fields.String(
        required=True,
        validate=validate.OneOf(sorted(GAMES)),
        metadata={"description": "A game type id"},
    )
    seats = StrictInteger(required=True, validate=validate.Range(min=1, max=10))
    options = fields.Dict(load_default=dict)
    bots = fields.List(
        BotSeat(metadata={"openapi": {"oneOf": [
            {"type": "integer", "minimum": 0, "maximum": 9, "description": "A random bot's seat"},
            {"type": "object", "required": ["seat"], "additionalProperties": False,
             "properties": {
                 "seat": {"type": "integer", "minimum": 0, "maximum": 9},
                 "level": {"type": "string", "pattern": BOT_LEVEL, "default": "random",
                           "description": BOT_LEVEL_DESCRIPTION}}}]}}),
        load_default=list,
        validate=validate.Length(max=10),
        metadata={"description": "The seats bots play: a seat number (a random bot) or "
                                 '{"seat": 2, "level": "greedy"}'},
    )
    join = StrictBoolean(load_default=True, metadata={"description": "Take the first free seat"})
    deadline = fields.Nested(
        "DeadlineIn", load_default=None,
        metadata={"description": "A time per move; without it a seat may take as long as it likes"},
    )
    seed = fields.String(
        load_default=None, validate=validate.Regexp(SEAT_SEED),
        metadata={"description": SEED_DESCRIPTION + " (the creator's seat, with `join`)"},
    )
    public = StrictBoolean(load_default=True, metadata={
        "description": "Anyone may watch it, without an account, as a spectator does (no "
                       "seat's secrets); false: it shows itself to its seats only, and to "
                       "anyone else it is no game (404)"})


class DeadlineIn(Strict):
    # The spec says 1 hour, the default shortest (MEEPLE_MIN_MOVE_SECONDS lowers it: tests
    # and private servers); the use case refuses less than the server's own minimum with 422.
    hours = StrictFloat(
        required=True, validate=validate.Range(min=0, max=MAX_MOVE_SECONDS / 3600,
                                               min_inclusive=False),
        metadata={"minimum": DEFAULT_MIN_MOVE_SECONDS / 3600,
                  "description": "Time per move in hours, 1 to 336 (14 days); fractions are "
                  "fine and are kept to the second. A server may allow less than an hour "
                  "(MEEPLE_MIN_MOVE_SECONDS); below its minimum the answer is a 422"},
    )
    on_expiry = fields.String(
        required=True, validate=validate.OneOf(ON_EXPIRY),
        metadata={"description": "When it runs out: 'bot' plays the turn for the seat, "
                  "'resign' resigns the seat (the bot plays it on, and it ranks last)"},
    )
    bot = fields.String(
        load_default="greedy", validate=validate.Regexp(BOT_LEVEL),
        metadata={"description": "The level of the bot that plays a timed-out turn or a "
                  "resigned seat. " + BOT_LEVEL_DESCRIPTION})


class DeadlineOut(Strict):
    seconds = fields.Integer(required=True, metadata={"description": "Time per move"})
    on_expiry = fields.String(required=True, validate=validate.OneOf(ON_EXPIRY))
    bot = fields.String(metadata={"description": "The stand-in bot's level (tables made "
                                                 "before bots had levels: none, random)"})


class TurnDeadlineOut(Strict):
    seat = fields.Integer(required=True)
    started_version = fields.Integer(required=True, metadata={
        "description": "The version at which this seat's turn began"})
    due_at = fields.String(required=True, metadata={"description": "When the move is due"})


class SeatOut(Strict):
    seat = fields.Integer(required=True)
    player_id = fields.String(required=True)
    name = fields.String(required=True)
    bot = fields.Boolean(required=True)
    level = fields.String(allow_none=True, metadata={
        "description": "A bot's level (random, greedy, ismcts-…); null for a person"})


class GameSummaryOut(Strict):
    id = fields.String(required=True)
    type = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(STATUSES))
    version = fields.Integer(required=True)
    seat_count = fields.Integer(required=True)
    seats = fields.List(fields.Nested(SeatOut), required=True)
    actors = fields.List(fields.Integer(), required=True, metadata={"description": "Who must act"})
    public = fields.Boolean(required=True, metadata={"description": "Anyone may watch it"})
    created_at = fields.String(required=True)
    updated_at = fields.String(required=True)


class GameOut(GameSummaryOut):
    rules_version = fields.String(required=True)
    options = fields.Dict(required=True)
    seed_commitment = fields.String(required=True, metadata={"description": "SHA-256 of the seed"})
    revealed_seed = fields.String(allow_none=True, required=True)
    your_seats = fields.List(fields.Integer(), required=True)
    seat = fields.Integer(
        allow_none=True, required=True, metadata={"description": "The seat the view is for"}
    )
    view = typed("GameView", nullable=True, required=True, description="The table as your "
                 "seat sees it (a spectator's view if you have none); null before the start")
    result = typed("ScoreSheet", nullable=True, required=True,
                   description="The score sheet, once the game has ended")
    deadline = fields.Nested(DeadlineOut, allow_none=True, required=True,
                             metadata={"description": "The time per move, if the table has one"})
    turn_deadlines = fields.List(
        fields.Nested(TurnDeadlineOut), required=True,
        metadata={"description": "For each person who must act, when the move is due"},
    )
    resigned = fields.List(fields.Integer(), required=True, metadata={
        "description": "Seats whose player resigned, in order: the bot plays them"})


class ResignRequest(Strict):
    seat = StrictInteger(validate=validate.Range(min=0, max=9), metadata={
        "description": "The seat to give up (default: your first seat that has not resigned)"})


class GameQuery(Strict):
    type = fields.String()
    status = fields.String(validate=validate.OneOf(STATUSES))
    player = fields.String(metadata={"description": "A player id, or 'me'"})
    offset = fields.Integer(load_default=0, validate=validate.Range(min=0, max=1_000_000))
    limit = fields.Integer(load_default=20, validate=validate.Range(min=1, max=100))


class GamePage(Strict):
    items = fields.List(fields.Nested(GameSummaryOut), required=True)
    total = fields.Integer(required=True)
    offset = fields.Integer(required=True)
    limit = fields.Integer(required=True)


class JoinRequest(Strict):
    seat = StrictInteger(validate=validate.Range(min=0, max=9))
    seed = fields.String(load_default=None, validate=validate.Regexp(SEAT_SEED),
                         metadata={"description": SEED_DESCRIPTION})


class SeatQuery(Strict):
    seat = fields.Integer(validate=validate.Range(min=0, max=9))


class MoveIn(Schema):
    """A move: its `id` decides. The whole listed move may be echoed; other fields must match."""

    class Meta:
        unknown = INCLUDE

    id = fields.String(required=True, validate=validate.Length(min=1, max=200))


class MovesRequest(Strict):
    expected_version = StrictInteger(
        validate=validate.Range(min=0),
        metadata={"description": "The version you saw; or send If-Match"},
    )
    seat = StrictInteger(validate=validate.Range(min=0, max=9))
    moves = fields.List(
        fields.Nested(MoveIn), required=True, validate=validate.Length(min=1, max=50)
    )


class LegalMovesOut(Strict):
    version = fields.Integer(required=True)
    seat = fields.Integer(allow_none=True, required=True)
    prompt = fields.String(allow_none=True, required=True)
    moves = typed_list("LegalMove", required=True,
                       description="Each move has a stable `id` and a human `label`")


class MovesOut(Strict):
    version = fields.Integer(required=True)
    replayed = fields.Boolean(required=True, metadata={"description": "An Idempotency-Key retry"})
    events = envelope_list(required=True, description="What this request appended, as you "
                                                      "may see it")
    game = fields.Nested(GameOut, required=True)
    your_moves = fields.Nested(
        LegalMovesOut, required=True,
        metadata={"description": "What GET …/moves would now answer: play on without asking"},
    )


class EventsQuery(Strict):
    after = fields.Integer(load_default=0, validate=validate.Range(min=0))
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=500))


class EventsPage(Strict):
    items = envelope_list(required=True)
    version = fields.Integer(required=True)
    next_after = fields.Integer(allow_none=True, required=True)


class StateQuery(Strict):
    version = fields.Integer(validate=validate.Range(min=1))
    seat = fields.Integer(validate=validate.Range(min=0, max=9))


class SectionOut(Strict):
    title = fields.String(required=True, metadata={"description": "e.g. `You (alice)`, "
                                                   "`bob`, `The market`"})
    lines = fields.List(fields.String(), required=True)


class TableOut(Strict):
    version = fields.Integer(required=True)
    seat = fields.Integer(allow_none=True, required=True,
                          metadata={"description": "Whose view this is; null: a spectator's"})
    prompt = fields.String(allow_none=True, required=True,
                           metadata={"description": "What the game asks now, seats named"})
    sections = fields.List(fields.Nested(SectionOut), required=True, metadata={
        "description": "The table in the game's words: your seat first, then each other "
                       "seat by name, then the boards and what is on offer (as the turn "
                       "emails show it)"})
    text = fields.String(required=True, metadata={
        "description": "The same sections as plain text: a title line, its lines indented"})


class StateOut(Strict):
    version = fields.Integer(required=True)
    status = fields.String(required=True, validate=validate.OneOf(STATUSES))
    seat = fields.Integer(allow_none=True, required=True)
    actors = fields.List(fields.Integer(), required=True)
    view = typed("GameView", nullable=True, required=True)
    full_state = fields.Dict(
        allow_none=True, required=True,
        metadata={"description": "Once the game has ended: the whole state at this version "
                  "(every hand, every deck in order), for everyone; null before the end"},
    )


class Health(Strict):
    status = fields.String(required=True, metadata={"description": "ok, or degraded"})
    redis = fields.Boolean(required=True)
    keys = fields.Boolean(required=True, metadata={
        "description": "Whether the server can sign records: MEEPLE_KEYS_DIR holds a key or "
                       "can take its first one"})


# --- records ---------------------------------------------------------------------------------


class Signature(Schema):
    alg = fields.String(required=True, metadata={"example": "Ed25519"})
    key_id = fields.String(required=True, metadata={"description": "See GET /v1/keys"})
    public_key = fields.String(required=True, metadata={"description": "Raw key, base64url"})
    value = fields.String(
        required=True,
        metadata={"description": "Ed25519 over the canonical JSON of the record without "
                  "`signature` (UTF-8, keys sorted, no whitespace), base64url"},
    )


class RecordDoc(Schema):
    """A game record (format meeple-record/1). Documentation only: the verifier reads any JSON
    and reports what is wrong with it."""

    class Meta:
        unknown = INCLUDE

    format = fields.String(metadata={"example": "meeple-record/1"})
    game = fields.Dict(metadata={"description": "id, type, rules_version, options, seat_count, "
                                 "seats, created_at, status"})
    seed_commitment = fields.String(metadata={"description": "SHA-256 of the secret seed"})
    complete = fields.Boolean(metadata={"description": "false: a caller's redacted view of a "
                                        "game still in play; it cannot be re-executed"})
    redacted_for = fields.List(fields.Integer(), allow_none=True)
    events = envelope_list()
    seed = fields.String(allow_none=True, metadata={"description": "Revealed once ended"})
    scores = typed("ScoreSheet", nullable=True)
    signature = fields.Nested(Signature)


class PublicKey(Strict):
    id = fields.String(required=True)
    alg = fields.String(required=True)
    public_key = fields.String(required=True, metadata={"description": "Raw key, base64url"})
    created_at = fields.String(required=True)
    current = fields.Boolean(required=True, metadata={"description": "Signs new records"})


class KeysOut(Strict):
    keys = fields.List(fields.Nested(PublicKey), required=True)


class VerifyReport(Schema):
    """What the verifier found. `first` is the first divergence in record order."""

    class Meta:
        unknown = INCLUDE

    ok = fields.Boolean(required=True)
    status = fields.String(required=True, validate=validate.OneOf(
        ["valid", "partial", "invalid"]), metadata={
        "description": "valid (ok); partial: an incomplete record (a game still in play, one "
                       "seat's redacted view) with nothing else wrong, which cannot be "
                       "re-executed; invalid: anything else that is wrong"})
    problems = fields.List(fields.Dict(), required=True, metadata={
        "description": "Each: check, version, path (JSON path into the record), expected, "
                       "found, detail"})
    first = fields.Dict(allow_none=True)
    not_listed = fields.Integer(metadata={
        "description": "Problems found beyond the first 100 listed (in record order)"})
    stopped = fields.Boolean(metadata={
        "description": "True when the verifier stopped after 10,000 problems"})
    checked = fields.Dict(metadata={"description": "What was checked, with counts"})


# --- table talk ------------------------------------------------------------------------------


NOT_BLANK = r"\S"  # a JSON Schema pattern matches anywhere: somewhere, a non-space
MESSAGE_MAX_SENT = 4 * MESSAGE_MAX_LENGTH  # room for the whitespace that stripping removes


def _message_text(text: str) -> None:
    problem = message_problem(text.strip())
    if problem:
        raise ValidationError(problem)


class MessageCreate(Strict):
    text = fields.String(
        required=True, validate=[validate.Length(min=1, max=MESSAGE_MAX_SENT), _message_text],
        metadata={"pattern": NOT_BLANK,
                  "description": "At most 2,000 characters as sent, and 1 to 500 once "
                  "surrounding whitespace is stripped (the stripped text is what is posted); "
                  "no control characters but tab and line breaks, and no format characters "
                  "(U+200B, U+FEFF, U+202E, ...; a zero-width joiner only inside a word or "
                  "an emoji)"},
    )


class MessageOut(Strict):
    v = fields.Integer(required=True, metadata={"description": "The game version it was posted at"})
    at = fields.String(required=True)
    seat = fields.Integer(required=True, metadata={"description": "The poster's seat"})
    name = fields.String(required=True, metadata={"description": "The poster's name"})
    text = fields.String(required=True)


class MessagePostOut(Strict):
    version = fields.Integer(required=True, metadata={"description": "The game's version now"})
    replayed = fields.Boolean(required=True, metadata={"description": "An Idempotency-Key retry"})
    message = fields.Nested(MessageOut, required=True)


class MessagesQuery(Strict):
    after = fields.Integer(load_default=0, validate=validate.Range(min=0), metadata={
        "description": "Only messages posted after this version (a previous `next_after`)"})
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=500))


class MessagesPage(Strict):
    items = fields.List(fields.Nested(MessageOut), required=True)
    version = fields.Integer(required=True)
    next_after = fields.Integer(allow_none=True, required=True, metadata={
        "description": "Pass as `after` for the next page; null when there is no more. A "
                       "page reads at most 5,000 events of the log: in a long game it may "
                       "hold fewer messages than `limit`, even none, and still have a next"})


# --- inbox -----------------------------------------------------------------------------------


class InboxQuery(Strict):
    awaiting = fields.String(validate=validate.OneOf(["me"]), metadata={
        "description": "'me': only the games where one of your seats must act now"})
    offset = fields.Integer(load_default=0, validate=validate.Range(min=0, max=1_000_000))
    limit = fields.Integer(load_default=20, validate=validate.Range(min=1, max=100))


class InboxItem(GameSummaryOut):
    awaiting_me = fields.Boolean(required=True,
                                 metadata={"description": "One of your seats must act now"})


class InboxPage(Strict):
    items = fields.List(fields.Nested(InboxItem), required=True)
    total = fields.Integer(required=True)
    offset = fields.Integer(required=True)
    limit = fields.Integer(required=True)
