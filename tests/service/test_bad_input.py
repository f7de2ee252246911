"""Bad input of any shape is a clear 4xx problem, never a 500 and never a write."""

from __future__ import annotations

import pytest

from tests.service.conftest import RP

PROBLEM = "application/problem+json"


def assert_problem(response, status: int, code: str) -> None:
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.content_type == PROBLEM
    assert response.json["code"] == code
    assert response.json["detail"]


def test_no_api_key_is_401(client):
    """Where a key is needed; public reads take none (tests/service/test_public_games.py)."""
    for path in ("/v1/players/me", "/v1/games?player=me", "/v1/players/me/games"):
        assert_problem(client.get(path), 401, "unauthorized")
        assert client.get(path).headers["WWW-Authenticate"].startswith("Bearer")


def test_a_wrong_api_key_is_401(client):
    response = client.get("/v1/games", headers={"Authorization": "Bearer nope"})
    assert_problem(response, 401, "unauthorized")


def test_unknown_game_is_404(alice):
    assert_problem(alice.get("/v1/games/doesnotexist"), 404, "game_not_found")


def test_unknown_route_is_404_problem(client):
    assert_problem(client.get("/v1/nothing-here"), 404, "not_found")


def test_wrong_method_is_405_problem(client):
    assert_problem(client.delete("/v1/game-types"), 405, "method_not_allowed")


@pytest.mark.parametrize("body", [
    {"type": RP, "seats": 2, "colour": "red"},
    {"type": RP, "seats": "two"},
    {"type": RP},
    {"seats": 2},
    {"type": RP, "seats": 2, "bots": "all"},
    {"type": RP, "seats": 2, "options": []},
    [],
    "text",
    None,
])
def test_malformed_create_is_422(alice, body, redis_client):
    response = alice.post("/v1/games", body)
    assert response.status_code in (400, 422), response.json
    assert response.content_type == PROBLEM
    assert not redis_client.keys("meeple:g:*")


def test_invalid_json_is_400(alice):
    response = alice.client.post("/v1/games", data="{not json", headers={
        **alice.headers, "Content-Type": "application/json"})
    assert response.status_code in (400, 422)
    assert response.content_type == PROBLEM


def test_unknown_game_type_and_seat_counts_are_422(alice, redis_client):
    unknown = alice.post("/v1/games", {"type": "chess", "seats": 2})
    assert_problem(unknown, 422, "invalid_request")
    assert "type" in unknown.json["errors"]["json"]
    assert_problem(alice.get("/v1/game-types/chess"), 404, "unknown_game_type")
    assert_problem(alice.post("/v1/games", {"type": RP, "seats": 6}), 422, "invalid_options")
    assert_problem(alice.post("/v1/games", {"type": RP, "seats": 2, "bots": [5]}), 422,
                   "invalid_options")
    assert_problem(alice.post("/v1/games", {"type": RP, "seats": 2, "options": {"x": 1}}), 422,
                   "invalid_options")
    assert not redis_client.keys("meeple:g:*")


@pytest.mark.parametrize("body", [
    {"moves": []},
    {"moves": [{}]},
    {"moves": [{"id": 5}]},
    {"moves": "all"},
    {"moves": [{"id": "x"}], "expected_version": -1},
    {},
])
def test_malformed_moves_are_422_and_write_nothing(alice, bob, body):
    game = alice.create(seats=2)
    bob.post(f"/v1/games/{game['id']}/join", {})
    version = alice.get(f"/v1/games/{game['id']}").json["version"]
    response = alice.post(f"/v1/games/{game['id']}/moves", body)
    assert_problem(response, 422, "invalid_request")
    assert "errors" in response.json
    assert alice.get(f"/v1/games/{game['id']}").json["version"] == version


def test_moves_before_the_start_are_refused(alice):
    game = alice.create(seats=2)
    response = alice.post(f"/v1/games/{game['id']}/moves", {"moves": [{"id": "x"}]})
    assert_problem(response, 409, "game_not_started")


def test_moves_by_a_stranger_are_refused(alice, bob, carol):
    game = alice.create(seats=2)
    bob.post(f"/v1/games/{game['id']}/join", {})
    response = carol.post(f"/v1/games/{game['id']}/moves", {"moves": [{"id": "x"}]})
    assert_problem(response, 403, "not_seated")


def test_asking_for_someone_elses_seat_is_refused(alice, bob):
    game = alice.create(seats=2)
    bob.post(f"/v1/games/{game['id']}/join", {})
    assert_problem(alice.get(f"/v1/games/{game['id']}?seat=1"), 403, "not_seated")
    assert_problem(alice.get(f"/v1/games/{game['id']}/moves?seat=1"), 403, "not_seated")


def test_bad_query_parameters_are_422(alice):
    assert_problem(alice.get("/v1/games?limit=0"), 422, "invalid_request")
    assert_problem(alice.get("/v1/games?status=paused"), 422, "invalid_request")
    assert_problem(alice.get("/v1/games?bogus=1"), 422, "invalid_request")


def test_an_oversized_body_is_413(alice):
    response = alice.post("/v1/games", {"type": RP, "seats": 2, "options": {"x": "y" * 70_000}})
    assert_problem(response, 413, "too_large")


@pytest.mark.parametrize("key", ["", "k" * 201])
def test_an_idempotency_key_outside_its_documented_length_is_400_and_writes_nothing(alice, key):
    response = alice.post("/v1/games", {"type": RP, "seats": 2},
                          headers={"Idempotency-Key": key})
    assert_problem(response, 400, "bad_request")
    assert "Idempotency-Key" in response.json["detail"]
    assert alice.get("/v1/games").json["items"] == []  # nothing was created
    game = alice.create()
    for path in (f"/v1/games/{game['id']}/join", f"/v1/games/{game['id']}/moves"):
        body = {} if path.endswith("join") else {"moves": [{"id": "x"}]}
        assert_problem(alice.post(path, body, headers={"Idempotency-Key": key}), 400,
                       "bad_request")


def raw_post(caller, path: str, text: str):
    return caller.client.post(path, data=text.encode("utf-8", "surrogatepass"),
                              headers={**caller.headers, "Content-Type": "application/json"})


HOSTILE_BODIES = {
    "nested 1,000 deep": '{"type": "x", "seats": 2, "options": ' + "[" * 1000 + "]" * 1000 + "}",
    "nested 40 deep": '{"type": "x", "seats": 2, "options": {"a": ' + "[" * 40 + "]" * 40 + "}}",
    "an integer of 5,000 digits": '{"type": "x", "seats": ' + "9" * 5000 + "}",
    "an integer of 21 digits": '{"type": "x", "seats": ' + "1" * 21 + "}",
    "NaN": '{"type": "x", "seats": NaN}',
    "a float beyond range": '{"type": "x", "seats": 1e999}',
    "a lone surrogate, escaped": '{"type": "x\\ud800", "seats": 2}',
    "a lone surrogate in a key": '{"\\udfff": 1}',
    "a lone surrogate as bytes": '{"type": "x\ud800", "seats": 2}',
    "not UTF-8": None,
}


@pytest.mark.parametrize("name", sorted(HOSTILE_BODIES))
def test_hostile_json_is_a_400_at_parse_time_and_writes_nothing(alice, redis_client, name):
    text = HOSTILE_BODIES[name]
    if text is None:
        response = alice.client.post("/v1/games", data=b'{"type": "\xff\xfe"}',
                                     headers={**alice.headers, "Content-Type": "application/json"})
    else:
        response = raw_post(alice, "/v1/games", text)
    assert_problem(response, 400, "bad_request")
    assert not redis_client.keys("meeple:g:*")


@pytest.mark.parametrize("path", ["/v1/players", "/v1/records/verify"])
def test_hostile_json_is_a_400_on_every_kind_of_body(alice, path):
    for text in ('{"name": "x\\ud800"}', '{"name": ' + "[" * 100 + "]" * 100 + "}",
                 '{"name": ' + "7" * 5000 + "}"):
        assert_problem(raw_post(alice, path, text), 400, "bad_request")


@pytest.mark.parametrize("path", ["/v1/players", "/v1/records/verify", "/v1/games"])
def test_a_key_given_twice_is_a_400_naming_it(alice, redis_client, path):
    """Which of two values a reader keeps depends on the reader (docs/records.md, section 3:
    such a record "is not a valid record"), so no body may hold one."""
    response = raw_post(alice, path, '{"type": "trajan", "seats": 2, "type": "trappist-one"}')
    assert_problem(response, 400, "bad_request")
    assert "the key 'type' appears twice in one object" in response.get_data(as_text=True)
    assert not redis_client.keys("meeple:g:*")


def test_a_lone_surrogate_in_table_talk_is_a_400(alice, bob):
    game = alice.create(seats=2)
    bob.post(f"/v1/games/{game['id']}/join", {})
    response = raw_post(alice, f"/v1/games/{game['id']}/messages", '{"text": "hi \\udc00"}')
    assert_problem(response, 400, "bad_request")
    assert alice.get(f"/v1/games/{game['id']}/messages").json["items"] == []


@pytest.mark.parametrize("game_id", ["%7B", "a%7Db", "x" * 65, "a%20b", "%C3%A9", "a:b"])
def test_ids_that_cannot_be_game_ids_are_404(alice, game_id):
    for path in (f"/v1/games/{game_id}", f"/v1/games/{game_id}/moves",
                 f"/v1/games/{game_id}/events", f"/v1/games/{game_id}/record",
                 f"/v1/games/{game_id}/messages"):
        assert_problem(alice.get(path), 404, "game_not_found")
    assert_problem(alice.post(f"/v1/games/{game_id}/join", {}), 404, "game_not_found")
