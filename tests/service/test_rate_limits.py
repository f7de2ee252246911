"""Rate limits per API key answer 429 problem+json with Retry-After."""

from __future__ import annotations

from service import create_app
from tests.service.conftest import Caller


def test_too_many_requests_get_429_with_retry_after(redis_url, redis_client):
    app = create_app({"REDIS_URL": redis_url, "DISPATCH": False,
                      "RATELIMIT_DEFAULT": "5 per minute"})
    client = app.test_client()
    alice = Caller(client, "alice")
    statuses = [alice.get("/v1/players/me").status_code for _ in range(5)]
    assert statuses == [200] * 5
    limited = alice.get("/v1/players/me")
    assert limited.status_code == 429
    assert limited.content_type == "application/problem+json"
    assert limited.json["code"] == "rate_limited"
    assert int(limited.headers["Retry-After"]) > 0


def test_limits_are_per_api_key(redis_url, redis_client):
    app = create_app({"REDIS_URL": redis_url, "DISPATCH": False,
                      "RATELIMIT_DEFAULT": "3 per minute"})
    client = app.test_client()
    alice, bob = Caller(client, "alice"), Caller(client, "bob")
    for _ in range(3):
        assert alice.get("/v1/players/me").status_code == 200
    assert alice.get("/v1/players/me").status_code == 429
    assert bob.get("/v1/players/me").status_code == 200


def test_verifying_and_importing_records_have_their_own_tighter_limit(redis_url, redis_client,
                                                                        tmp_path):
    app = create_app({"REDIS_URL": redis_url, "DISPATCH": False, "KEYS_DIR": str(tmp_path),
                      "RATELIMIT_DEFAULT": "100 per minute", "RATELIMIT_RECORDS": "2 per minute"})
    client = app.test_client()
    alice = Caller(client, "alice")
    assert [alice.post("/v1/records/verify", {}).status_code for _ in range(2)] == [200, 200]
    assert alice.post("/v1/records/verify", {}).status_code == 429
    assert [alice.post("/v1/records", {}).status_code for _ in range(2)] == [422, 422]
    assert alice.post("/v1/records", {}).status_code == 429
    assert alice.get("/v1/players/me").status_code == 200  # other routes: the default limit
