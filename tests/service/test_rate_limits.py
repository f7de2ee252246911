"""Rate limits per API key answer 429 problem+json with Retry-After."""

from __future__ import annotations

from service import create_app
from tests.service.conftest import Caller


def test_too_many_requests_get_429_with_retry_after(redis_url, redis_client):
    app = create_app({"REDIS_URL": redis_url, "DISPATCH": False,
                      "RATELIMIT_PER_CALLER": "5 per minute"})
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
                      "RATELIMIT_PER_CALLER": "3 per minute"})
    client = app.test_client()
    alice, bob = Caller(client, "alice"), Caller(client, "bob")
    for _ in range(3):
        assert alice.get("/v1/players/me").status_code == 200
    assert alice.get("/v1/players/me").status_code == 429
    assert bob.get("/v1/players/me").status_code == 200


def test_verifying_and_importing_records_have_their_own_tighter_limit(redis_url, redis_client,
                                                                        tmp_path):
    app = create_app({"REDIS_URL": redis_url, "DISPATCH": False, "KEYS_DIR": str(tmp_path),
                      "RATELIMIT_PER_CALLER": "100 per minute",
                      "RATELIMIT_RECORDS": "2 per minute"})
    client = app.test_client()
    alice = Caller(client, "alice")
    assert [alice.post("/v1/records/verify", {}).status_code for _ in range(2)] == [200, 200]
    assert alice.post("/v1/records/verify", {}).status_code == 429
    assert [alice.post("/v1/records", {}).status_code for _ in range(2)] == [422, 422]
    assert alice.post("/v1/records", {}).status_code == 429
    assert alice.get("/v1/players/me").status_code == 200  # other routes: the default limit


def test_a_made_up_key_per_request_counts_against_the_address(redis_url, redis_client):
    """The attack: a random `Authorization: Bearer` value per request, each a fresh bucket."""
    app = create_app({"REDIS_URL": redis_url, "DISPATCH": False,
                      "RATELIMIT_PER_CALLER": "5 per minute"})
    client = app.test_client()
    statuses = [client.get("/v1/players/me",
                           headers={"Authorization": f"Bearer made-up-{n}"}).status_code
                for n in range(6)]
    assert statuses == [401] * 5 + [429]
    # The same address without a key: already over its limit.
    assert client.get("/v1/players/me").status_code == 429


def test_a_real_key_is_counted_for_its_player_not_its_address(redis_url, redis_client):
    app = create_app({"REDIS_URL": redis_url, "DISPATCH": False,
                      "RATELIMIT_PER_CALLER": "4 per minute"})
    client = app.test_client()
    alice = Caller(client, "alice")
    for _ in range(4):
        assert alice.get("/v1/players/me").status_code == 200
    assert alice.get("/v1/players/me").status_code == 429
    # Anonymous calls from the same address have their own count.
    assert [client.get("/v1/players/me").status_code for _ in range(3)] == [401] * 3


def test_registration_has_its_own_limit_per_address_whatever_key_is_sent(redis_url,
                                                                         redis_client):
    app = create_app({"REDIS_URL": redis_url, "DISPATCH": False,
                      "RATELIMIT_PER_CALLER": "1000 per minute",
                      "RATELIMIT_REGISTRATION": "3 per hour"})
    client = app.test_client()
    alice = Caller(client, "alice")
    statuses = [client.post("/v1/players", json={"name": f"p{n}"}, headers=headers).status_code
                for n, headers in enumerate([{}, alice.headers, {"Authorization": "Bearer x"}])]
    assert statuses == [201, 201, 429]
    # From another address (as a trusted proxy would say), registering works.
    other = create_app({"REDIS_URL": redis_url, "DISPATCH": False, "TRUSTED_PROXIES": 1,
                        "RATELIMIT_PER_CALLER": "1000 per minute",
                        "RATELIMIT_REGISTRATION": "3 per hour"}).test_client()
    forwarded = {"X-Forwarded-For": "203.0.113.7"}
    assert other.post("/v1/players", json={"name": "q"}, headers=forwarded).status_code == 201


def test_x_forwarded_for_is_ignored_without_trusted_proxies(redis_url, redis_client):
    app = create_app({"REDIS_URL": redis_url, "DISPATCH": False,
                      "RATELIMIT_PER_CALLER": "1000 per minute",
                      "RATELIMIT_REGISTRATION": "2 per hour"})
    client = app.test_client()
    statuses = [client.post("/v1/players", json={"name": f"p{n}"},
                            headers={"X-Forwarded-For": f"198.51.100.{n}"}).status_code
                for n in range(3)]
    assert statuses == [201, 201, 429]


def test_counters_redis_down_requests_go_on(redis_url, redis_client):
    """Losing the rate-limit Redis is no reason to refuse a request (and no 503 blaming
    the game store): limits are counted in memory meanwhile."""
    from tests.conftest import free_port

    app = create_app({"REDIS_URL": redis_url, "DISPATCH": False,
                      "RATELIMIT_STORAGE_URI": f"redis://127.0.0.1:{free_port()}/0",
                      "RATELIMIT_PER_CALLER": "5 per minute"})
    client = app.test_client()
    alice = Caller(client, "alice")
    statuses = [alice.get("/v1/players/me").status_code for _ in range(6)]
    assert statuses == [200] * 5 + [429]  # still limited, in this process's memory


def test_one_limit_counts_a_key_across_every_route(redis_url, redis_client):
    """The default limit is per API key, whatever the route: not one bucket per route."""
    app = create_app({"REDIS_URL": redis_url, "DISPATCH": False,
                      "RATELIMIT_PER_CALLER": "4 per minute"})
    client = app.test_client()
    alice = Caller(client, "alice")
    routes = ["/v1/players/me", "/v1/game-types", "/v1/players/me/games", "/v1/games"]
    assert [alice.get(path).status_code for path in routes] == [200] * 4
    assert [alice.get(path).status_code for path in routes] == [429] * 4


def test_answers_say_where_the_caller_stands_as_the_ietf_draft_does(redis_url, redis_client):
    app = create_app({"REDIS_URL": redis_url, "DISPATCH": False,
                      "RATELIMIT_PER_CALLER": "5 per minute", "RATELIMIT_MESSAGES": "2 per minute"})
    client = app.test_client()
    alice = Caller(client, "alice")
    first = alice.get("/v1/players/me")
    assert first.headers["RateLimit-Policy"] == '"all";q=5;w=60'
    remaining, reset = parse_ratelimit(first.headers["RateLimit"], "all")
    assert remaining == 4 and 0 < reset <= 60
    assert parse_ratelimit(alice.get("/v1/players/me").headers["RateLimit"], "all")[0] == 3
    # A route with a tighter limit of its own names both; the nearest to running out is shown.
    game = alice.create(seats=2)
    posted = alice.post(f"/v1/games/{game['id']}/messages", {"text": "hi"})
    assert posted.status_code == 201
    policies = posted.headers["RateLimit-Policy"].split(", ")
    assert sorted(policies) == ['"all";q=5;w=60', '"messages";q=2;w=60']
    assert parse_ratelimit(posted.headers["RateLimit"], "messages")[0] == 1
    limited = [alice.get("/v1/players/me") for _ in range(3)][-1]
    assert limited.status_code == 429
    assert parse_ratelimit(limited.headers["RateLimit"], "all")[0] == 0
    assert int(limited.headers["Retry-After"]) > 0


def parse_ratelimit(header: str, policy: str) -> tuple[int, int]:
    name, *params = header.split(";")
    assert name == f'"{policy}"', header
    values = dict(param.split("=") for param in params)
    return int(values["r"]), int(values["t"])


def test_moves_are_counted_one_by_one_however_they_are_batched(redis_url, redis_client):
    """Each move of a batch but the last is first played in 16 imagined worlds
    (games.information): a batch of 50 costs what 50 moves do, and is counted so."""
    app = create_app({"REDIS_URL": redis_url, "DISPATCH": False,
                      "RATELIMIT_PER_CALLER": "100 per minute", "RATELIMIT_MOVES": "6 per minute"})
    client = app.test_client()
    alice = Caller(client, "alice")
    game = alice.create(seats=2)
    moves = f"/v1/games/{game['id']}/moves"
    batch = {"expected_version": game["version"], "moves": [{"id": "nope"}] * 5}
    assert alice.post(moves, batch).status_code != 429  # 5 of 6
    one_more = alice.post(moves, {**batch, "moves": [{"id": "nope"}] * 2})
    assert one_more.status_code == 429 and one_more.json["code"] == "rate_limited"
    assert alice.get("/v1/players/me").status_code == 200  # other routes go on
