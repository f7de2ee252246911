"""What the spec says, held to the letter: integers and booleans of the JSON types the spec
names (not "5", 5.0, "yes" or 1), no query parameters a route does not name, no body fields
where a route takes none, no format characters in table talk, and If-Match compared as the
exact text of the ETag."""

from __future__ import annotations

import json
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.service.conftest import RP, Caller

TRAPPIST = "trappist-one"


def started(alice: Caller, bob: Caller) -> str:
    game = alice.create(seats=2)
    assert bob.post(f"/v1/games/{game['id']}/join", {}).status_code == 200
    return str(game["id"])


@pytest.mark.parametrize("body", [
    {"type": RP, "seats": "2"},
    {"type": RP, "seats": 2.0},
    {"type": RP, "seats": True},
    {"type": RP, "seats": 2, "join": "no"},
    {"type": RP, "seats": 2, "join": 0},
    {"type": RP, "seats": 2, "public": "yes"},
    {"type": RP, "seats": 2, "public": 1},
    {"type": RP, "seats": 2, "bots": [{"seat": "1"}]},
    {"type": RP, "seats": 2, "deadline": {"hours": "1.5", "on_expiry": "bot"}},
    {"type": RP, "seats": 2, "deadline": {"hours": True, "on_expiry": "bot"}},
])
def test_a_creation_with_loosely_typed_fields_is_refused(alice: Caller, body: Any) -> None:
    answer = alice.post("/v1/games", body)
    assert answer.status_code == 422, answer.json
    assert answer.json["code"] == "invalid_request"


@pytest.mark.parametrize("options", [{"exodite": "yes"}, {"exodite": 1}, {"exodite": "true"}])
def test_options_of_the_wrong_json_type_are_refused(alice: Caller, options: Any) -> None:
    answer = alice.post("/v1/games", {"type": TRAPPIST, "seats": 2, "options": options})
    assert answer.status_code == 422 and answer.json["code"] == "invalid_options", answer.json


def test_well_typed_fields_are_taken(alice: Caller) -> None:
    answer = alice.post("/v1/games", {"type": TRAPPIST, "seats": 2, "join": False,
                                      "public": False, "options": {"exodite": True},
                                      "deadline": {"hours": 2, "on_expiry": "bot"}})
    assert answer.status_code == 201, answer.json


@pytest.mark.parametrize("extra", [{"expected_version": "4"}, {"expected_version": 4.0},
                                   {"seat": "0"}, {"seat": 0.0}, {"seat": False}])
def test_moves_with_loosely_typed_numbers_are_refused(alice: Caller, bob: Caller,
                                                      extra: Any) -> None:
    game_id = started(alice, bob)
    listed = alice.get(f"/v1/games/{game_id}/moves").json
    answer = alice.post(f"/v1/games/{game_id}/moves",
                        {"moves": [{"id": listed["moves"][0]["id"]}], **extra})
    assert answer.status_code == 422 and answer.json["code"] == "invalid_request", answer.json
    assert alice.get(f"/v1/games/{game_id}").json["version"] == listed["version"]


def test_join_and_resign_take_integer_seats_only(alice: Caller, bob: Caller) -> None:
    game = alice.create(seats=2)
    assert bob.post(f"/v1/games/{game['id']}/join", {"seat": "1"}).status_code == 422
    game_id = started(alice, bob)
    assert alice.post(f"/v1/games/{game_id}/resign", {"seat": "0"}).status_code == 422


@pytest.mark.parametrize("path", ["/v1/game-types?x=1", "/v1/game-types/trajan?x=1",
                                  "/v1/players/me?verbose=1", "/v1/keys?x=1",
                                  "/v1/players/me/stream?after=0"])
def test_a_route_without_query_parameters_refuses_any(alice: Caller, path: str) -> None:
    answer = alice.get(path)
    assert answer.status_code == 422, answer.json
    assert answer.json["code"] == "invalid_request"
    assert list(answer.json["errors"]["query"]) == [path.split("?")[1].split("=")[0]]


def test_write_routes_refuse_query_parameters_too(alice: Caller, bob: Caller) -> None:
    game_id = started(alice, bob)
    assert alice.post("/v1/games?public=false", {"type": RP, "seats": 2}).status_code == 422
    assert alice.post(f"/v1/games/{game_id}/messages?x=1", {"text": "hi"}).status_code == 422
    assert alice.get(f"/v1/games/{game_id}/record?x=1").status_code == 422
    assert alice.get(f"/v1/games/{game_id}?seat=0").status_code == 200  # a named one


def test_replacing_a_key_takes_no_body_fields(client: FlaskClient, alice: Caller) -> None:
    refused = alice.post("/v1/players/me/keys", {"x": 1})
    assert refused.status_code == 422 and refused.json["code"] == "invalid_request"
    assert alice.get("/v1/players/me").status_code == 200  # the key still works
    replaced = alice.post("/v1/players/me/keys", {})
    assert replaced.status_code == 201
    again = client.post("/v1/players/me/keys",
                        headers={"Authorization": f"Bearer {replaced.json['api_key']}"})
    assert again.status_code == 201  # no body at all


@pytest.mark.parametrize("text", ["\ufeff", "\u202eevil", "a\u200bb", "\u2066x\u2069",
                                  "x\u200d", "\u00ad"])
def test_table_talk_refuses_format_characters(alice: Caller, bob: Caller, text: str) -> None:
    game_id = started(alice, bob)
    answer = alice.post(f"/v1/games/{game_id}/messages", {"text": text})
    assert answer.status_code == 422, answer.json
    assert "format characters" in str(answer.json)


def test_table_talk_keeps_emoji_joined_by_a_zero_width_joiner(alice: Caller,
                                                              bob: Caller) -> None:
    game_id = started(alice, bob)
    answer = alice.post(f"/v1/games/{game_id}/messages", {"text": "gg \U0001F469\u200d\U0001F4BB"})
    assert answer.status_code == 201, answer.json


def test_if_match_compares_the_exact_text_of_the_etag(alice: Caller, bob: Caller) -> None:
    game_id = started(alice, bob)
    listed = alice.get(f"/v1/games/{game_id}/moves").json
    version, move = listed["version"], {"moves": [{"id": listed["moves"][0]["id"]}]}
    # A well-formed tag that is no ETag of this game matches nothing: 412 (an Arabic-Indic
    # 4 is no digit of an ETag; "abc" and "v4" no version at all: an outside audit).
    for tag in (f'"{version:04d}"', f'"0{version}"', '"\u0664"', '"abc"', f'"v{version}"'):
        answer = alice.post(f"/v1/games/{game_id}/moves", move, headers={"If-Match": tag})
        assert answer.status_code == 412, answer.json
        assert answer.json["code"] == "precondition_failed"
    answer = alice.post(f"/v1/games/{game_id}/moves", move, headers={"If-Match": f'"{version}"'})
    assert answer.status_code == 201, answer.json


def test_an_idempotency_key_names_one_request_at_one_game(alice: Caller, bob: Caller) -> None:
    """As documented: keys are per player and, on a game's routes, per game."""
    games = [started(alice, bob), started(alice, bob)]
    for game_id in games:
        listed = alice.get(f"/v1/games/{game_id}/moves").json
        answer = alice.post(f"/v1/games/{game_id}/moves",
                            {"expected_version": listed["version"],
                             "moves": [{"id": listed["moves"][0]["id"]}]},
                            headers={"Idempotency-Key": "k"})
        assert answer.status_code == 201 and answer.json["replayed"] is False


def test_a_query_parameter_given_twice_is_refused(client) -> None:
    """Only the first value was read and the others ignored (outside audit, schemathesis)."""
    answer = client.get("/v1/games?status=open&status=zzz")
    assert answer.status_code == 422, answer.data
    assert answer.json["code"] == "invalid_request"
    assert "status" in json.dumps(answer.json["errors"])
    assert client.get("/v1/games?status=open").status_code == 200
