"""Deadlines over HTTP: the create option, what the game resource shows, resigning."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
import yaml

from events.domain.deadlines import parse_time
from tests.service.conftest import RP, Caller


def started_game(alice: Caller, bob: Caller, **body: Any) -> dict[str, Any]:
    game = alice.create(2, **body)
    joined = bob.post(f"/v1/games/{game['id']}/join", {})
    assert joined.status_code == 200, joined.json
    return alice.get(f"/v1/games/{game['id']}").json  # type: ignore[no-any-return]


def test_a_table_with_a_deadline_shows_it_and_when_each_move_is_due(
    alice: Caller, bob: Caller
) -> None:
    game = started_game(alice, bob, deadline={"hours": 36, "on_expiry": "resign"})
    assert game["deadline"] == {"seconds": 36 * 3600, "on_expiry": "resign", "bot": "greedy"}
    assert [d["seat"] for d in game["turn_deadlines"]] == game["actors"]
    for due in game["turn_deadlines"]:
        waited = parse_time(due["due_at"]) - parse_time(game["updated_at"])
        assert waited.total_seconds() == 36 * 3600  # the turn began with GameStarted
    assert game["resigned"] == []


def test_a_table_without_deadline_says_so(alice: Caller, bob: Caller) -> None:
    game = started_game(alice, bob)
    assert game["deadline"] is None and game["turn_deadlines"] == []


@pytest.mark.parametrize("deadline", [
    {"hours": 0, "on_expiry": "bot"},
    {"hours": 14 * 24 + 1, "on_expiry": "bot"},
    {"hours": 24, "on_expiry": "pass"},
    {"hours": 24},
    {"hours": 24, "on_expiry": "bot", "minutes": 3},
    {"hours": 0.5, "on_expiry": "bot"},  # below the minimum of an hour
    {"hours": "soon", "on_expiry": "bot"},
])
def test_an_invalid_deadline_is_refused(alice: Caller, deadline: dict[str, Any]) -> None:
    answer = alice.post("/v1/games", {"type": RP, "seats": 2, "deadline": deadline})
    assert answer.status_code == 422, answer.json
    assert answer.json["code"] in ("invalid_request", "invalid_options")


def test_a_player_resigns_and_the_bot_takes_the_seat(alice: Caller, bob: Caller,
                                                      carol: Caller) -> None:
    game = started_game(alice, bob)
    game_id = game["id"]
    while 1 not in game["actors"]:  # until bob (seat 1) must act
        listed = alice.get(f"/v1/games/{game_id}/moves").json
        played = alice.post(f"/v1/games/{game_id}/moves", {"moves": [listed["moves"][0]]})
        assert played.status_code == 201, played.json
        game = alice.get(f"/v1/games/{game_id}").json
    assert bob.get("/v1/players/me/games?awaiting=me").json["total"] == 1
    answer = bob.post(f"/v1/games/{game_id}/resign", {})
    assert answer.status_code == 200, answer.json
    assert answer.json["resigned"] == [1]
    # The game no longer waits for bob, even while the bot has not played his seat yet.
    inbox = bob.get("/v1/players/me/games?awaiting=me").json
    assert inbox["items"] == [] and inbox["total"] == 0
    events = bob.get(f"/v1/games/{game_id}/events").json["items"]
    assert events[-1]["type"] == "PlayerResigned" and events[-1]["by"] == bob.id
    again = bob.post(f"/v1/games/{game_id}/resign", {})
    assert again.status_code == 409 and again.json["code"] == "already_resigned"
    outsider = carol.post(f"/v1/games/{game_id}/resign", {})
    assert outsider.status_code == 403 and outsider.json["code"] == "not_seated"
    other_seat = alice.post(f"/v1/games/{game_id}/resign", {"seat": 1})
    assert other_seat.status_code == 403 and other_seat.json["code"] == "not_seated"


def test_a_resigned_player_cannot_move(alice: Caller, bob: Caller) -> None:
    game = started_game(alice, bob)
    seat_of_bob = 1
    bob.post(f"/v1/games/{game['id']}/resign", {})
    answer = bob.post(f"/v1/games/{game['id']}/moves",
                      {"seat": seat_of_bob, "moves": [{"id": "anything"}]})
    assert answer.status_code == 409 and answer.json["code"] == "already_resigned"


def test_resigning_before_the_start_is_refused(alice: Caller) -> None:
    game = alice.create(2)
    answer = alice.post(f"/v1/games/{game['id']}/resign", {})
    assert answer.status_code == 409 and answer.json["code"] == "game_not_started"


def test_the_minimum_time_per_move_is_configurable(redis_url: str, redis_client: Any,
                                                   tmp_path: Any) -> None:
    from service import create_app

    app = create_app({"REDIS_URL": redis_url, "DISPATCH": False, "MIN_MOVE_SECONDS": 2,
                      "RATELIMIT_PER_CALLER": "100000 per minute",
         "RATELIMIT_REGISTRATION": "100000 per minute",
                      "KEYS_DIR": str(tmp_path / "keys")})
    dave = Caller(app.test_client(), "dave")
    game = dave.create(2, deadline={"hours": 3 / 3600, "on_expiry": "bot"})
    assert game["deadline"] == {"seconds": 3, "on_expiry": "bot", "bot": "greedy"}


def test_a_retried_resignation_with_its_key_finds_the_first(alice: Caller, bob: Caller) -> None:
    game = started_game(alice, bob)
    key = {"Idempotency-Key": "resign-1"}
    first = bob.post(f"/v1/games/{game['id']}/resign", {}, headers=key)
    retry = bob.post(f"/v1/games/{game['id']}/resign", {}, headers=key)
    assert first.status_code == retry.status_code == 200, retry.json
    assert retry.json["resigned"] == [1] and retry.json["version"] == first.json["version"]
    events = bob.get(f"/v1/games/{game['id']}/events").json["items"]
    assert [e["type"] for e in events].count("PlayerResigned") == 1
    # The same key for another request is refused, not replayed.
    other = bob.post(f"/v1/games/{game['id']}/resign", {"seat": 0}, headers=key)
    assert other.status_code == 422 and other.json["code"] == "idempotency_key_reused"


def test_the_events_of_a_table_with_a_deadline_match_the_spec(alice: Caller, bob: Caller
                                                              ) -> None:
    """GameCreated's `deadline` names the stand-in's level (`bot`): the spec's Deadline did
    not allow it, so a generated client's strict parser refused every such game's events
    and records (outside audit)."""
    game = started_game(alice, bob, deadline={"hours": 1, "on_expiry": "bot", "bot": "greedy"})
    page = alice.get(f"/v1/games/{game['id']}/events?after=0&limit=5").json
    assert page["items"][0]["data"]["deadline"]["bot"] == "greedy"
    spec = yaml.safe_load((Path(__file__).parents[2] / "openapi.yaml").read_text())
    schema = {"$ref": "#/components/schemas/EventsPage", "components": spec["components"]}
    errors = [str(error) for error in jsonschema_rs.validator_for(schema).iter_errors(page)]
    assert errors == []
