"""Player accounts and profiles."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from events.accounts.players import Player
from events.accounts.profiles import Profile, Profiles
from service.api import Blueprint
from service.auth import current_player, meeple
from service.schemas import PlayerCreate, PlayerCreated, ProfileOut, ProfileUpdate, ProfileUpdated

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


@blp.route("/me")
@blp.doc(security=BEARER)
@blp.response(200, ProfileOut)
def me() -> dict[str, Any]:
    """The player the API key belongs to, with their notification profile."""
    player = current_player()
    return profile_out(player, profiles().get(player.id))


@blp.route("/me", methods=["PATCH"])
@blp.doc(security=BEARER)
@authenticated_first
@blp.arguments(ProfileUpdate, required=False)  # no body: nothing changes
@blp.response(200, ProfileUpdated)
def update_me(body: dict[str, Any]) -> dict[str, Any]:
    """Change your profile: email, webhook_url, notify ('email', 'webhook', 'none'), digest.
    Setting webhook_url answers, once, the secret that signs its deliveries."""
    player = current_player()
    profile, secret = profiles().update(player.id, body)
    out = profile_out(player, profile)
    if secret is not None:
        out["webhook_secret"] = secret
    return out
