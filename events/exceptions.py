"""Every error a use case can raise. Each has a stable `code` the API returns as is."""

from __future__ import annotations


class MeepleError(Exception):
    code = "error"

    def __init__(self, detail: str = "") -> None:
        super().__init__(detail or self.code)
        self.detail = detail or self.code


class NotFound(MeepleError):
    code = "not_found"


class GameNotFound(NotFound):
    code = "game_not_found"


class UnknownGameType(NotFound):
    code = "unknown_game_type"


class GameExists(MeepleError):
    """An import names a game id that holds another game."""

    code = "game_exists"


class QuotaExceeded(MeepleError):
    """A player has as many open tables, or made as many imports today, as one may."""

    code = "quota_exceeded"


class EmailTaken(MeepleError):
    """Another player has confirmed this email address: an address has one player."""

    code = "email_taken"


class WrongCode(MeepleError):
    """An email confirmation code that is wrong, expired, used up or not asked for."""

    code = "wrong_code"


class RecordInvalid(MeepleError):
    """A record failed verification; `report` says where and why."""

    code = "record_invalid"

    def __init__(self, detail: str, report: dict[str, object]) -> None:
        super().__init__(detail)
        self.report = report


class RulesVersionUnavailable(MeepleError):
    """The game was played under rules this server no longer runs: it will not replay it with
    other rules and pretend the outcome is the same."""

    code = "rules_version_unavailable"


class InvalidOptions(MeepleError):
    code = "invalid_options"


class VersionConflict(MeepleError):
    """Someone else appended first; `current` is the version now in the store."""

    code = "version_conflict"

    def __init__(self, detail: str = "", current: int = 0) -> None:
        super().__init__(detail or f"the game is at version {current}")
        self.current = current


class IdempotencyKeyReused(MeepleError):
    code = "idempotency_key_reused"


class NotReplicated(MeepleError):
    """The append is on the primary but fewer replicas than required confirmed it in time: a
    failover now could lose it, so it is not acknowledged. A retry with the same
    Idempotency-Key answers the first result once the replicas have it."""

    code = "not_replicated"


class KeysUnavailable(MeepleError):
    """The server's signing keys (events.records.keys.Keyring) cannot be read or written: a
    record cannot be signed or the keys listed until an operator fixes the directory."""

    code = "keys_unavailable"


class ArchiveUnavailable(MeepleError):
    """The archive of finished games (events.store.archive_stores) cannot be reached, or holds
    a damaged document: the game is not gone, only out of reach for now."""

    code = "archive_unavailable"


class SeatTaken(MeepleError):
    code = "seat_taken"


class GameFull(MeepleError):
    code = "game_full"


class AlreadySeated(MeepleError):
    code = "already_seated"


class GameNotStarted(MeepleError):
    code = "game_not_started"


class GameOver(MeepleError):
    code = "game_over"


class GameArchived(GameOver):
    """The game ended long ago and was archived: it is read-only now (its record, log and
    every past state stay readable); no more messages or moves are taken."""

    code = "game_archived"


class NotYourTurn(MeepleError):
    code = "not_your_turn"


class NotSeated(MeepleError):
    code = "not_seated"


class IllegalMoveError(MeepleError):
    """A game's IllegalMove, carried across the use-case boundary with its own code."""

    def __init__(self, code: str, detail: str, index: int | None = None) -> None:
        super().__init__(detail)
        self.code = code
        self.index = index


class Unauthorized(MeepleError):
    code = "unauthorized"


class VersionNotFound(NotFound):
    code = "version_not_found"


class InvalidMessage(MeepleError):
    """Table talk that is empty or too long (after stripping surrounding whitespace)."""

    code = "invalid_message"


class AlreadyResigned(MeepleError):
    """The seat has resigned: it can neither resign again nor be played by its player."""

    code = "already_resigned"


class StaleDeadline(MeepleError):
    """A deadline job for a turn that is over (the seat moved, resigned or the game ended)."""

    code = "stale_deadline"


class DeadlineNotDue(MeepleError):
    """A deadline job that runs before its time (clocks of two hosts disagree)."""

    code = "deadline_not_due"
