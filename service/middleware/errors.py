"""Every error leaves as application/problem+json with a stable `code` (RFC 9457)."""

from __future__ import annotations

from typing import Any

import redis
import structlog
from flask import Flask, Response, json, request
from werkzeug.exceptions import HTTPException

from events import exceptions as ex

PROBLEM = "application/problem+json"

log = structlog.get_logger()

# Use-case errors → HTTP status. Subclasses inherit their parent's status.
_STATUS: list[tuple[type[ex.MeepleError], int]] = [
    (ex.NotFound, 404),
    (ex.Unauthorized, 401),
    (ex.NotSeated, 403),
    (ex.VersionConflict, 409),
    (ex.SeatTaken, 409),
    (ex.GameFull, 409),
    (ex.QuotaExceeded, 409),
    (ex.EmailTaken, 409),
    (ex.GameNotStarted, 409),
    (ex.GameOver, 409),
    (ex.AlreadyResigned, 409),
    (ex.StaleDeadline, 409),
    (ex.DeadlineNotDue, 409),
    (ex.NotYourTurn, 409),
    (ex.RulesVersionUnavailable, 409),
    (ex.GameExists, 409),
    (ex.RecordInvalid, 422),
    (ex.UnknownGameType, 422),
    (ex.InvalidOptions, 422),
    (ex.IdempotencyKeyReused, 422),
    (ex.IllegalMoveError, 422),
    (ex.InvalidMessage, 422),
    (ex.WrongCode, 422),
    (ex.NotReplicated, 503),
    (ex.ArchiveUnavailable, 503),
    (ex.KeysUnavailable, 503),
]

# HTTP errors raised by Flask, webargs or Flask-Limiter → stable codes.
_HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    409: "conflict",
    412: "precondition_failed",
    413: "too_large",
    415: "unsupported_media_type",
    422: "invalid_request",
    428: "precondition_required",
    429: "rate_limited",
    503: "unavailable",
}


class Refused(Exception):
    """A refusal of the service's own, not of a use case (e.g. too many live streams): its
    status, code, detail and the seconds to wait (Retry-After)."""

    def __init__(self, status: int, code: str, detail: str, retry_after: int) -> None:
        super().__init__(detail)
        self.status, self.code, self.detail, self.retry_after = status, code, detail, retry_after


def handle_refused(error: Refused) -> Response:
    response = problem(error.status, error.code, error.detail)
    response.headers["Retry-After"] = str(error.retry_after)
    return response


def problem(status: int, code: str, detail: str, **extra: Any) -> Response:
    body = {"title": _title(status), "status": status, "code": code, "detail": detail, **extra}
    response = Response(json.dumps(body), status=status, mimetype=PROBLEM)
    if status == 401:
        response.headers["WWW-Authenticate"] = 'Bearer realm="meeple"'
    return response


def _title(status: int) -> str:
    from http import HTTPStatus

    return HTTPStatus(status).phrase


def status_of(error: ex.MeepleError) -> int:
    return next((status for kind, status in _STATUS if isinstance(error, kind)), 400)


def handle_meeple_error(error: ex.MeepleError) -> Response:
    extra: dict[str, Any] = {}
    if isinstance(error, ex.VersionConflict):
        extra["current_version"] = error.current
    if isinstance(error, ex.IllegalMoveError) and error.index is not None:
        extra["move_index"] = error.index
    if isinstance(error, ex.RecordInvalid):
        extra["report"] = error.report
    if isinstance(error, ex.NotReplicated):
        extra["outcome"] = "unknown"
    response = problem(status_of(error), error.code, error.detail, **extra)
    if response.status_code == 503:
        response.headers["Retry-After"] = "1"
        if error.__cause__ is not None:  # e.g. the OSError behind keys_unavailable: for operators
            log.error("unavailable", code=error.code, cause=repr(error.__cause__))
    return response


def handle_http_error(error: HTTPException) -> Response:
    status = error.code or 500
    data = getattr(error, "data", None) or {}
    extra: dict[str, Any] = {}
    detail = error.description or _title(status)
    if "messages" in data:  # webargs validation errors
        extra["errors"] = data["messages"]
        detail = "the request is not valid: see 'errors'"
    elif "message" in data:
        detail = str(data["message"])
    response = problem(status, _HTTP_CODES.get(status, "http_error"), detail, **extra)
    for name, value in error.get_headers():  # e.g. Allow on 405
        if name.lower() not in ("content-type", "content-length"):
            response.headers[name] = value
    if status == 429:
        from service.middleware.limits import seconds_until_reset

        response.headers["Retry-After"] = str(seconds_until_reset())
    return response


def handle_redis_down(error: Exception) -> Response:
    log.warning("redis unavailable", error=repr(error), method=request.method)
    if request.method in ("GET", "HEAD", "OPTIONS"):
        response = problem(503, "store_unavailable", "the game store is unavailable; nothing "
                           "was written: retry shortly", outcome="not_applied")
    else:
        # The connection may have failed after the write, before the answer: say so. A retry
        # with the same Idempotency-Key is applied at most once and answers the first result.
        retry = ("retry with the same Idempotency-Key: it is applied at most once, and answers "
                 "with the first result" if request.headers.get("Idempotency-Key") else
                 "send an Idempotency-Key with writes so that a retry is safe, then look at the "
                 "game before you retry")
        response = problem(503, "store_unavailable", "the game store became unavailable while "
                           f"handling this request: it may or may not have been applied; {retry}",
                           outcome="unknown")
    response.headers["Retry-After"] = "1"
    return response


def handle_unexpected(error: Exception) -> Response:
    log.exception("unhandled error", error=repr(error))
    return problem(500, "internal_error", "something went wrong on our side; it was logged")


def init_app(app: Flask) -> None:
    app.register_error_handler(ex.MeepleError, handle_meeple_error)
    app.register_error_handler(Refused, handle_refused)
    app.register_error_handler(HTTPException, handle_http_error)
    app.register_error_handler(redis.exceptions.ConnectionError, handle_redis_down)
    app.register_error_handler(redis.exceptions.TimeoutError, handle_redis_down)
    app.register_error_handler(redis.exceptions.BusyLoadingError, handle_redis_down)
    # A Redis Cluster (or Sentinel) failing over: refused or redirected until a replica is
    # promoted and the clients see it, seconds in all; or a game's slot moving to another
    # master (ASK, TRYAGAIN, and redis-py's ClusterError once its redirections run out).
    for failing_over in (redis.exceptions.ClusterDownError, redis.exceptions.TryAgainError,
                         redis.exceptions.MasterDownError, redis.exceptions.ReadOnlyError,
                         redis.exceptions.MovedError, redis.exceptions.AskError,
                         redis.exceptions.ClusterError, redis.exceptions.RedisClusterException):
        app.register_error_handler(failing_over, handle_redis_down)
    app.register_error_handler(Exception, handle_unexpected)
