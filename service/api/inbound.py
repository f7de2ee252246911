"""Inbound email: replies to turn emails, posted by an inbound-mail provider (or `meeple smtpd`).

The provider posts the raw RFC 5322 message as the body and authenticates with the shared
secret MEEPLE_INBOUND_SECRET as a Bearer token; without that secret configured the route is
off (503). The answer is 202 with what the reply did, whatever it did: a reply that plays
nothing is answered by email, not by an error the provider would retry.
"""

from __future__ import annotations

import hmac
from pathlib import Path
from typing import Any

import marshmallow as ma
from flask import current_app, request
from werkzeug.exceptions import ServiceUnavailable, UnsupportedMediaType

from events.exceptions import Unauthorized
from events.mail.email_replies import MAX_EMAIL_BYTES, OUTCOMES, EmailReplies, RQMailer
from events.mail.reply_tokens import secret_in
from service.api import Blueprint
from service.middleware.auth import BEARER, meeple
from service.middleware.errors import PROBLEM
from service.openapi.schemas import Problem

blp = Blueprint("inbound", __name__, url_prefix="/v1/inbound",
                description="Replies to turn emails, from an inbound-mail provider")

# The spec lists octet-stream only: OpenAPI generators (openapi-python-client) know no
# message/rfc822 and would drop the route; the description names the other two.
MEDIA_TYPES = ("application/octet-stream", "message/rfc822", "text/plain")
RAW_EMAIL = {
    "required": True,
    "description": "The raw RFC 5322 message, as received (headers, blank line, body), as "
                   "application/octet-stream, message/rfc822 or text/plain. The reply token "
                   "is read from Delivered-To, X-Original-To, To or Cc.",
    "content": {"application/octet-stream": {"schema": {"type": "string",
                                                        "format": "binary"}}},
}


class InboundOutcome(ma.Schema):
    outcome = ma.fields.String(required=True, validate=ma.validate.OneOf(OUTCOMES),
                               metadata={"description": "played, or why nothing was played"})
    detail = ma.fields.String(required=True)
    game_id = ma.fields.String(allow_none=True)
    seat = ma.fields.Integer(allow_none=True)
    version = ma.fields.Integer(allow_none=True,
                                metadata={"description": "the game's version after the reply"})


def check_inbound_secret() -> None:
    expected = current_app.config.get("INBOUND_SECRET")
    if not expected:
        raise ServiceUnavailable("inbound email is off: set MEEPLE_INBOUND_SECRET to turn it on")
    given = request.headers.get("Authorization", "")
    if not hmac.compare_digest(given.encode(), f"{BEARER}{expected}".encode()):
        raise Unauthorized("send the inbound secret as 'Authorization: Bearer SECRET'")


def replies() -> EmailReplies:
    app = meeple()
    return EmailReplies(app, secret_in(Path(current_app.config["KEYS_DIR"])),
                        RQMailer(app.redis))


@blp.route("/email", methods=["POST"])
@blp.doc(security=[{"bearerAuth": []}], requestBody=RAW_EMAIL)
@blp.response(202, InboundOutcome)
@blp.alt_response(401, schema=Problem, content_type=PROBLEM,
                  description="The inbound secret is missing or wrong")
@blp.alt_response(413, schema=Problem, content_type=PROBLEM,
                  description="The message is larger than 1 MB")
@blp.alt_response(415, schema=Problem, content_type=PROBLEM,
                  description="The body is not application/octet-stream, message/rfc822 "
                              "or text/plain")
@blp.alt_response(503, schema=Problem, content_type=PROBLEM,
                  description="Inbound email is off (no MEEPLE_INBOUND_SECRET)")
def inbound_email(**_: Any) -> tuple[dict[str, Any], int]:
    """A reply to a turn email: plays its codes if its reply token allows it, all or nothing.
    Forged, reused, stale and unreadable replies play nothing and are answered by email."""
    check_inbound_secret()
    if request.mimetype not in MEDIA_TYPES:
        raise UnsupportedMediaType(f"send the raw message as {' or '.join(MEDIA_TYPES)}")
    request.max_content_length = MAX_EMAIL_BYTES
    result = replies().handle(request.get_data())
    return {"outcome": result.outcome, "detail": result.reason, "game_id": result.game_id,
            "seat": result.seat, "version": result.version}, 202
