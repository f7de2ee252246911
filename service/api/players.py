"""Player accounts and profiles."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from events.accounts.players import Player
from events.accounts.profiles import Profile, Profiles
from events.exceptions import Unauthorized
from service.api import Blueprint
from service.api.games import IDEMPOTENCY, idempotency_key
from service.middleware.auth import api_key_of_request, current_player, meeple
from service.middleware.errors import PROBLEM
from service.openapi.schemas import (
    EmailConfirm,
    KeyReplaced,
    NoBody,
    PlayerCreate,
    PlayerCreated,
    Problem,
    ProfileOut,
    ProfileUpdate,
    ProfileUpdated,
)

blp = Blueprint("players", __name__, url_prefix="/v1/players", description="Player accounts")
BEARER: list[dict[str, list[str]]] = [{"bearerAuth": []}]
F = TypeVar("F", bound=Callable[..., Any])


def authenticated_first(view: F) -> F:
    """Check the API key before the body is parsed: no key is a 401, whatever the body."""

    @functools.wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        current_player()
        return view(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


@blp.route("", methods=["POST"])
@blp.arguments(PlayerCreate)
@blp.response(201, PlayerCreated)
def register(body: dict[str, Any]) -> dict[str, Any]:
    """Register a player and receive an API key (shown only once)."""
    player, api_key = meeple().players.register(body["name"])
    return {"id": player.id, "name": player.name, "created_at": player.created_at,
            "api_key": api_key}


def profiles() -> Profiles:
    return Profiles(meeple().redis)


def profile_out(player: Player, profile: Profile) -> dict[str, Any]:
    return {"id": player.id, "name": player.name, "created_at": player.created_at,
            **profile.public()}


@blp.route("/me/keys", methods=["POST"])
@blp.doc(security=BEARER, parameters=[IDEMPOTENCY])
@blp.arguments(NoBody, required=False)
@blp.response(201, KeyReplaced)
def replace_key(_: dict[str, Any]) -> dict[str, Any]:
    """Replace your API key: the answer holds a new key, and the key this request was sent
    with stops working at once, in every process. Send an `Idempotency-Key`: should the
    answer be lost, the same request (with the old key and the same Idempotency-Key) answers
    the same new key for 10 minutes, with `replayed: true`."""
    old_key = api_key_of_request()
    retry = idempotency_key()
    try:
        player = current_player()
    except Unauthorized:
        earlier = meeple().players.replayed_key(old_key, retry) if old_key and retry else None
        if earlier is None:
            raise
        player, new_key = earlier
        return key_replaced(player, new_key, replayed=True)
    assert old_key is not None  # current_player() found it
    new_key = meeple().players.replace_key(player, old_key, retry)
    return key_replaced(player, new_key, replayed=False)


def key_replaced(player: Player, api_key: str, replayed: bool) -> dict[str, Any]:
    return {"id": player.id, "name": player.name, "created_at": player.created_at,
            "api_key": api_key, "replayed": replayed}


@blp.route("/me")
@blp.doc(security=BEARER)
@blp.response(200, ProfileOut)
@blp.doc(operationId="get_me")
def me() -> dict[str, Any]:
    """The player the API key belongs to, with their notification profile."""
    player = current_player()
    return profile_out(player, profiles().get(player.id))


@blp.route("/me", methods=["PATCH"])
@blp.doc(security=BEARER)
@authenticated_first
@blp.arguments(ProfileUpdate, required=False)  # no body: nothing changes
@blp.response(200, ProfileUpdated)
@blp.alt_response(409, schema=Problem, content_type=PROBLEM,
                  description="Another player has confirmed this address (`email_taken`), or "
                              "5 codes were sent today (`quota_exceeded`)")
def update_me(body: dict[str, Any]) -> dict[str, Any]:
    """Change your profile: email, webhook_url, notify ('email', 'webhook', 'none'), digest.
    Setting webhook_url answers, once, the secret that signs its deliveries. A new email
    address is `email_pending` and is sent a code (nothing else) until it is confirmed with
    `POST /v1/players/me/email/confirm`; the confirmed `email` stays in use until then."""
    player = current_player()
    store = profiles()
    changes = dict(body)
    address = changes.pop("email", None) if changes.get("email") is not None else None
    if address is not None:
        code = store.request_email(player.id, address)
        if code is not None:
            meeple().dispatcher.send_email_code(player.id, address, code)
    profile, secret = store.update(player.id, changes)
    out = profile_out(player, profile)
    if secret is not None:
        out["webhook_secret"] = secret
    return out


@blp.route("/me/email/confirm", methods=["POST"])
@blp.doc(security=BEARER)
@authenticated_first
@blp.arguments(EmailConfirm)
@blp.response(200, ProfileOut)
@blp.alt_response(409, schema=Problem, content_type=PROBLEM,
                  description="Another player has confirmed this address first (`email_taken`)")
@blp.alt_response(422, schema=Problem, content_type=PROBLEM,
                  description="Not the code sent, expired, or 5 wrong tries (`wrong_code`): "
                              "set the address again for a new code")
def confirm_email(body: dict[str, Any]) -> dict[str, Any]:
    """Confirm the pending email address with the code that was mailed to it; from now on
    notices go to it (if `notify` is 'email') and replies from it are answered."""
    player = current_player()
    return profile_out(player, profiles().confirm_email(player.id, body["code"]))
