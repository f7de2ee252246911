"""The server does what its spec and README say, where a client developer found it did not:
415 for a body that is not JSON, the versions lists carry, If-Match as RFC 9110 compares
it, and a lost API key replaced."""

from __future__ import annotations

from typing import Any

from service import create_app
from tests.service.conftest import Caller


def started_game(alice: Caller, bob: Caller) -> dict[str, Any]:
    game = alice.create(seats=2)
    bob.post(f"/v1/games/{game['id']}/join", {})
    return dict(alice.get(f"/v1/games/{game['id']}").json)


def acting(game: dict[str, Any], alice: Caller, bob: Caller) -> Caller:
    seat = game["actors"][0]
    owner = next(s["player_id"] for s in game["seats"] if s["seat"] == seat)
    return alice if owner == alice.id else bob


# --- 415 ------------------------------------------------------------------------------------


def test_a_body_that_is_not_json_is_415_not_missing_fields(client, alice):
    form = client.post("/v1/games", data="type=trajan&seats=2",
                       headers={**alice.headers,
                                "Content-Type": "application/x-www-form-urlencoded"})
    assert form.status_code == 415
    assert form.json["code"] == "unsupported_media_type"
    assert "application/json" in form.json["detail"]
    untyped = client.post("/v1/games", data='{"type": "trajan", "seats": 2}',
                          headers=alice.headers)
    assert untyped.status_code == 415
    assert "no Content-Type" in untyped.json["detail"]
    assert alice.get("/v1/players/me/games").json["total"] == 0  # nothing was made


def test_a_post_without_a_body_still_takes_the_defaults(client, alice, bob):
    game = alice.create(seats=2)
    joined = client.post(f"/v1/games/{game['id']}/join", headers=bob.headers)
    assert joined.status_code == 200
    assert joined.json["status"] == "active"


# --- versions in lists ------------------------------------------------------------------


def test_lists_and_the_inbox_carry_the_version_a_move_must_send(alice, bob):
    """The lobby changes only when status, seats or actors do; a message moves the version
    without that. What a list shows must still be good as expected_version."""
    game = started_game(alice, bob)
    for n in range(3):
        assert alice.post(f"/v1/games/{game['id']}/messages", {"text": f"hi {n}"}).status_code \
            == 201
    now = alice.get(f"/v1/games/{game['id']}").json["version"]
    assert now == game["version"] + 3
    listed = alice.get("/v1/games?player=me").json["items"][0]
    inbox = acting(game, alice, bob).get("/v1/players/me/games").json["items"][0]
    assert listed["version"] == inbox["version"] == now
    mover = acting(game, alice, bob)
    move = mover.get(f"/v1/games/{game['id']}/moves").json["moves"][0]
    played = mover.post(f"/v1/games/{game['id']}/moves",
                        {"expected_version": inbox["version"], "moves": [{"id": move["id"]}]})
    assert played.status_code == 201, played.json


# --- If-Match -----------------------------------------------------------------------------


def play_with(mover: Caller, game: dict[str, Any], headers: dict[str, str],
              **body: Any) -> Any:
    move = mover.get(f"/v1/games/{game['id']}/moves").json["moves"][0]
    return mover.post(f"/v1/games/{game['id']}/moves", {"moves": [{"id": move["id"]}], **body},
                      headers=headers)


def test_if_match_is_compared_strongly_as_rfc_9110_says(alice, bob):
    """RFC 9110 13.1.1: "An origin server MUST use the strong comparison function when
    comparing entity tags for If-Match"."""
    game = started_game(alice, bob)
    mover = acting(game, alice, bob)
    weak = play_with(mover, game, {"If-Match": f'W/"{game["version"]}"'})
    assert weak.status_code == 412
    assert weak.json["code"] == "precondition_failed"
    assert mover.get(f"/v1/games/{game['id']}").json["version"] == game["version"]
    strong = play_with(mover, game, {"If-Match": f'"{game["version"]}"'})
    assert strong.status_code == 201


def test_if_match_star_and_a_list_and_garbage(alice, bob):
    game = started_game(alice, bob)
    mover = acting(game, alice, bob)
    listed = play_with(mover, game, {"If-Match": f'"{game["version"]}", "999"'})
    assert listed.status_code == 400
    assert play_with(mover, game, {"If-Match": "twelve"}).status_code == 400
    assert play_with(mover, game, {"If-Match": "*"}).status_code == 201


def test_if_match_and_expected_version_that_disagree_are_a_400(alice, bob):
    game = started_game(alice, bob)
    mover = acting(game, alice, bob)
    v = game["version"]
    both = play_with(mover, game, {"If-Match": f'"{v}"'}, expected_version=v - 1)
    assert both.status_code == 400
    assert both.json["code"] == "bad_request"
    assert mover.get(f"/v1/games/{game['id']}").json["version"] == v
    assert play_with(mover, game, {"If-Match": f'"{v}"'}, expected_version=v).status_code == 201


def test_if_none_match_takes_a_weak_tag_as_rfc_9110_says(alice):
    """RFC 9110 13.1.2: "A recipient MUST use the weak comparison function when comparing
    entity tags for If-None-Match"."""
    game = alice.create(seats=2)
    for tag in (f'"{game["version"]}"', f'W/"{game["version"]}"', f'"0", W/"{game["version"]}"'):
        answer = alice.get(f"/v1/games/{game['id']}", headers={"If-None-Match": tag})
        assert answer.status_code == 304, tag
        assert answer.headers["ETag"] == f'"{game["version"]}"'
    assert alice.get(f"/v1/games/{game['id']}",
                     headers={"If-None-Match": '"0"'}).status_code == 200


# --- replacing an API key -----------------------------------------------------------------


def test_a_replaced_key_stops_working_at_once_and_the_new_one_works(app, client, alice):
    game = alice.create(seats=2)
    old = dict(alice.headers)
    # Another process (another gunicorn worker) that has seen the old key at work.
    second = create_app({"REDIS_URL": app.config["REDIS_URL"], "DISPATCH": False,
                         "KEYS_DIR": app.config["KEYS_DIR"]}).test_client()
    assert second.get("/v1/players/me", headers=old).status_code == 200
    answer = client.post("/v1/players/me/keys", headers=old)
    assert answer.status_code == 201
    body = answer.json
    assert body["id"] == alice.id and body["replayed"] is False
    assert body["api_key"] != old["Authorization"].removeprefix("Bearer ")
    assert client.get("/v1/players/me", headers=old).status_code == 401
    new = {"Authorization": f"Bearer {body['api_key']}"}
    assert client.get("/v1/players/me", headers=new).json["id"] == alice.id
    assert client.get(f"/v1/games/{game['id']}", headers=new).json["your_seats"] == [0]
    assert second.get("/v1/players/me", headers=old).status_code == 401


def test_a_retried_replacement_answers_the_same_new_key(client, alice):
    """The answer may be lost on the way: the same request again must not lock the player
    out (its old key no longer works) nor make a third key."""
    headers = {**alice.headers, "Idempotency-Key": "rotate-1"}
    first = client.post("/v1/players/me/keys", headers=headers)
    again = client.post("/v1/players/me/keys", headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.json["api_key"] == first.json["api_key"]
    assert again.json["replayed"] is True
    other_key = client.post("/v1/players/me/keys",
                            headers={**alice.headers, "Idempotency-Key": "rotate-2"})
    assert other_key.status_code == 401  # a different request with the dead key
    new = {"Authorization": f"Bearer {first.json['api_key']}"}
    assert client.get("/v1/players/me", headers=new).status_code == 200


def test_replacing_needs_a_working_key(client):
    assert client.post("/v1/players/me/keys").status_code == 401
    wrong = client.post("/v1/players/me/keys",
                        headers={"Authorization": "Bearer mk_nope", "Idempotency-Key": "x"})
    assert wrong.status_code == 401
