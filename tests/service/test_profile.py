"""GET and PATCH /v1/players/me: the notification profile."""

from __future__ import annotations

from typing import Any

import pytest

from tests.service.conftest import Caller


def patch(who: Caller, body: Any) -> Any:
    return who.client.patch("/v1/players/me", json=body, headers=who.headers)


def test_a_new_player_has_the_default_profile(alice: Caller) -> None:
    me = alice.get("/v1/players/me").json
    assert me == {"id": alice.id, "name": "alice", "created_at": me["created_at"],
                  "email": None, "email_pending": None, "webhook_url": None, "notify": "none",
                  "digest": "each", "webhook_disabled_reason": None}


def test_fields_are_set_and_cleared(alice: Caller) -> None:
    answer = patch(alice, {"email": "alice@example.org", "notify": "email"})
    assert answer.status_code == 200, answer.json
    # Not used before it is confirmed (tests/workers/test_email_confirmation.py).
    assert answer.json["email"] is None and answer.json["email_pending"] == "alice@example.org"
    assert answer.json["notify"] == "email"
    assert "webhook_secret" not in answer.json
    kept = patch(alice, {"digest": "each"}).json
    assert kept["email_pending"] == "alice@example.org"
    cleared = patch(alice, {"email": None, "notify": None})
    assert cleared.json["email_pending"] is None and cleared.json["notify"] == "none"
    assert alice.get("/v1/players/me").json["email_pending"] is None


def test_the_webhook_secret_is_shown_once_and_renewed_with_the_url(alice: Caller) -> None:
    first = patch(alice, {"webhook_url": "https://hooks.example.org/meeple", "notify": "webhook"})
    assert first.status_code == 200, first.json
    secret = first.json["webhook_secret"]
    assert secret.startswith("whsec_") and len(secret) > 30
    me = alice.get("/v1/players/me").json
    assert me["webhook_url"] == "https://hooks.example.org/meeple"
    assert "webhook_secret" not in me and secret not in str(me)
    assert "webhook_secret" not in patch(alice, {"notify": "webhook"}).json
    # A local receiver is allowed (no top-level domain needed); a new URL, a new secret.
    second = patch(alice, {"webhook_url": "http://127.0.0.1:9999/hook"})
    assert second.json["webhook_secret"] not in (None, secret)
    cleared = patch(alice, {"webhook_url": None})
    assert cleared.json["webhook_url"] is None and "webhook_secret" not in cleared.json


@pytest.mark.parametrize(("body", "field", "message"), [
    ({"email": "not-an-address"}, "email", "email"),
    ({"email": 7}, "email", ""),
    ({"webhook_url": "ftp://example.org/x"}, "webhook_url", "URL"),
    ({"webhook_url": "not a url"}, "webhook_url", "URL"),
    ({"notify": "sms"}, "notify", "one of"),
    ({"digest": "hourly"}, "digest", "one of"),
    ({"name": "mallory"}, "name", "Unknown field"),
])
def test_bad_profiles_are_refused(alice: Caller, body: Any, field: str, message: str) -> None:
    answer = patch(alice, body)
    assert answer.status_code == 422, answer.json
    assert answer.json["code"] == "invalid_request"
    errors = str(answer.json["errors"])
    assert field in errors and message in errors
    assert alice.get("/v1/players/me").json["notify"] == "none"  # nothing was written


def test_the_profile_needs_an_api_key(client: Any) -> None:
    assert client.patch("/v1/players/me", json={"notify": "email"}).status_code == 401
